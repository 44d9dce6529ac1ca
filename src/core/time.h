// Instants, civil dates and the owner's time zone. An instant is UnixMs (UTC
// milliseconds); a civil date is a calendar day with no zone attached. Zones
// come from ICU because g++ 12 has no std::chrono time zones.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace cilia {

// Milliseconds since 1970-01-01T00:00:00Z.
using UnixMs = int64_t;

inline constexpr int64_t kMsPerMinute = 60'000;
inline constexpr int64_t kMsPerDay = 86'400'000;

// A proleptic Gregorian calendar day.
struct CivilDate {
  int year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..DaysInMonth(year, month)

  friend auto operator<=>(const CivilDate&, const CivilDate&) = default;

  // "YYYY-MM-DD".
  std::string ToString() const;
};

bool IsLeapYear(int year);
int DaysInMonth(int year, int month);
// Days since 1970-01-01 (negative before it), and back.
int64_t DaysSinceEpoch(CivilDate date);
CivilDate DateFromDaysSinceEpoch(int64_t days);
CivilDate AddDays(CivilDate date, int days);
// Adds whole months, keeping the day (clamped to the new month's length).
CivilDate AddMonths(CivilDate date, int months);
// ISO weekday: Monday = 1 .. Sunday = 7.
int Weekday(CivilDate date);
// Strictly "YYYY-MM-DD" with a real day.
Result<CivilDate> ParseDate(std::string_view text);

// RFC 3339, e.g. "2023-05-08T13:56:00Z", "2023-05-08T21:56:00.250+08:00".
// Also accepts lowercase 't'/'z' and a space in place of 'T'. Fractions
// beyond milliseconds are truncated.
Result<UnixMs> ParseRfc3339(std::string_view text);
// "2023-05-08T13:56:00Z" for offset 0, "2023-05-08T21:56:00+08:00" otherwise;
// ".123" milliseconds only when they are not zero.
std::string FormatRfc3339(UnixMs utc, int offset_minutes = 0);

// An IANA time zone. Cheap to copy (shared, immutable) and safe to use from
// many threads at once.
class TimeZone {
 public:
  // "Asia/Shanghai", "UTC", "America/New_York"; an unknown name is an
  // InvalidArgument naming it.
  static Result<TimeZone> Load(std::string_view iana_name);
  // The UTC zone, which always exists.
  static TimeZone Utc();

  const std::string& name() const;
  // Minutes east of UTC at that instant (e.g. +480 for Asia/Shanghai).
  int OffsetMinutes(UnixMs utc) const;
  CivilDate LocalDate(UnixMs utc) const;
  // The first instant of that local day, DST-correct (a day whose midnight
  // falls in a DST gap starts at the transition).
  UnixMs StartOfDay(CivilDate local) const;
  // "2023-05-08", or "2023-05-08 21:56" with the time.
  std::string FormatLocal(UnixMs utc, bool with_time) const;

 private:
  struct Impl;
  explicit TimeZone(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Which end of an inclusive range a bound closes.
enum class BoundSide { kAfter, kBefore };

// A recall `after`/`before` value: a date "2023-05-01" is that local day's
// first millisecond (kAfter) or its last (kBefore); an RFC 3339 time is
// itself. Anything else is an InvalidArgument quoting the value.
Result<UnixMs> ParseTimeBound(std::string_view text, const TimeZone& tz, BoundSide side);

}  // namespace cilia
