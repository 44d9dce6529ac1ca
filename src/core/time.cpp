#include "core/time.h"

#include <fmt/format.h>
#include <unicode/timezone.h>
#include <unicode/ucal.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace cilia {
namespace {

constexpr int64_t kMsPerSecond = 1000;
constexpr int64_t kMsPerHour = 3'600'000;

// Rounds toward negative infinity, so instants before 1970 land on the right day.
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// The value as it goes into an error message: quoted, and cut short when long.
std::string Quote(std::string_view text) {
  constexpr size_t kMaxShown = 64;
  if (text.size() <= kMaxShown) return fmt::format("\"{}\"", text);
  size_t cut = kMaxShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  return fmt::format("\"{}…\"", text.substr(0, cut));
}

// Reads the fixed-width fields of dates and times, remembering the first thing
// that was wrong.
// The instants RFC 3339 can write, 0000-01-01T00:00:00Z to
// 9999-12-31T23:59:59.999Z: an offset may carry a four-digit year past
// either end, and a time there would be echoed with a five-digit year.
constexpr UnixMs kFirstWritableMs = -62'167'219'200'000;
constexpr UnixMs kLastWritableMs = 253'402'300'799'999;

class FieldReader {
 public:
  explicit FieldReader(std::string_view text) : text_(text) {}

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  bool AtEnd() const { return pos_ == text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void Skip() { ++pos_; }

  // Exactly `width` digits, naming `what` when they are missing.
  int Digits(int width, const char* what) {
    if (failed()) return 0;
    const size_t field_start = pos_;
    int value = 0;
    for (int i = 0; i < width; ++i) {
      if (AtEnd() || text_[pos_] < '0' || text_[pos_] > '9') {
        Fail(fmt::format("expected {} digits for the {} at position {}", width, what, field_start + 1));
        return 0;
      }
      value = value * 10 + (text_[pos_++] - '0');
    }
    return value;
  }

  void Expect(char c, const char* where) {
    if (failed()) return;
    if (Peek() != c) {
      Fail(fmt::format("expected '{}' {} at position {}", c, where, pos_ + 1));
      return;
    }
    ++pos_;
  }

  void Range(int value, int lo, int hi, const char* what) {
    if (!failed() && (value < lo || value > hi)) {
      Fail(fmt::format("{} {} is out of range ({}..{})", what, value, lo, hi));
    }
  }

  void Fail(std::string message) {
    if (!failed()) error_ = std::move(message);
  }

  std::string_view Remaining() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

CivilDate ReadDate(FieldReader& in) {
  CivilDate date;
  date.year = in.Digits(4, "year");
  in.Expect('-', "after the year");
  date.month = in.Digits(2, "month");
  in.Expect('-', "after the month");
  date.day = in.Digits(2, "day");
  in.Range(date.month, 1, 12, "month");
  if (!in.failed()) in.Range(date.day, 1, DaysInMonth(date.year, date.month), "day");
  return date;
}

void ExpectEnd(FieldReader& in) {
  if (!in.failed() && !in.AtEnd()) in.Fail(fmt::format("unexpected text {} at the end", Quote(in.Remaining())));
}

// The whole of `in` as an RFC 3339 time; 0 when `in` failed.
UnixMs ReadRfc3339(FieldReader& in) {
  const CivilDate date = ReadDate(in);
  if (!in.failed()) {
    const char sep = in.Peek();
    if (sep == 'T' || sep == 't' || sep == ' ') {
      in.Skip();
    } else {
      in.Fail("expected 'T' or a space between date and time at position 11");
    }
  }
  const int hour = in.Digits(2, "hour");
  in.Expect(':', "after the hour");
  const int minute = in.Digits(2, "minute");
  in.Expect(':', "after the minute");
  const int second = in.Digits(2, "second");
  in.Range(hour, 0, 23, "hour");
  in.Range(minute, 0, 59, "minute");
  in.Range(second, 0, 60, "second");  // 60: a leap second, read as the next minute's first

  int64_t millis = 0;
  if (!in.failed() && in.Peek() == '.') {
    in.Skip();
    int digits = 0;
    for (; in.Peek() >= '0' && in.Peek() <= '9'; in.Skip(), ++digits) {
      if (digits < 3) millis = millis * 10 + (in.Peek() - '0');
    }
    if (digits == 0) in.Fail("expected digits after the decimal point");
    for (; digits < 3; ++digits) millis *= 10;
  }

  int offset_minutes = 0;
  if (!in.failed()) {
    const char zone = in.Peek();
    if (zone == 'Z' || zone == 'z') {
      in.Skip();
    } else if (zone == '+' || zone == '-') {
      in.Skip();
      const int offset_hour = in.Digits(2, "offset hours");
      in.Expect(':', "in the offset");
      const int offset_minute = in.Digits(2, "offset minutes");
      in.Range(offset_hour, 0, 23, "offset hour");
      in.Range(offset_minute, 0, 59, "offset minute");
      offset_minutes = (zone == '-' ? -1 : 1) * (offset_hour * 60 + offset_minute);
    } else {
      in.Fail("expected 'Z' or an offset like +08:00 after the time");
    }
  }
  ExpectEnd(in);
  if (in.failed()) return 0;
  const UnixMs time = DaysSinceEpoch(date) * kMsPerDay + hour * kMsPerHour + minute * kMsPerMinute +
                      second * kMsPerSecond + millis - offset_minutes * kMsPerMinute;
  if (time < kFirstWritableMs || time > kLastWritableMs) {
    in.Fail("the time is outside the years 0000 to 9999 in UTC");
    return 0;
  }
  return time;
}

}  // namespace

std::string CivilDate::ToString() const { return fmt::format("{:04d}-{:02d}-{:02d}", year, month, day); }

bool IsLeapYear(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  return month == 2 && IsLeapYear(year) ? 29 : kDays[month - 1];
}

// Counts in 400-year eras starting on March 1st, so the leap day is the last
// day of each counted year and every era has the same 146097 days.
int64_t DaysSinceEpoch(CivilDate date) {
  const int64_t year = date.month <= 2 ? int64_t{date.year} - 1 : date.year;
  const int64_t era = FloorDiv(year, 400);
  const int64_t year_of_era = year - era * 400;                                  // 0..399
  const int64_t month_from_march = (date.month + 9) % 12;                        // Mar = 0 .. Feb = 11
  const int64_t day_of_year = (153 * month_from_march + 2) / 5 + date.day - 1;   // 0..365
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  constexpr int64_t kEpochFromEraStart = 719468;  // 0000-03-01 .. 1970-01-01
  return era * 146097 + day_of_era - kEpochFromEraStart;
}

CivilDate DateFromDaysSinceEpoch(int64_t days) {
  const int64_t shifted = days + 719468;
  const int64_t era = FloorDiv(shifted, 146097);
  const int64_t day_of_era = shifted - era * 146097;  // 0..146096
  const int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_from_march = (5 * day_of_year + 2) / 153;
  CivilDate date;
  date.day = static_cast<int>(day_of_year - (153 * month_from_march + 2) / 5 + 1);
  date.month = static_cast<int>(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
  date.year = static_cast<int>(year_of_era + era * 400 + (date.month <= 2 ? 1 : 0));
  return date;
}

CivilDate AddDays(CivilDate date, int days) { return DateFromDaysSinceEpoch(DaysSinceEpoch(date) + days); }

CivilDate AddMonths(CivilDate date, int months) {
  const int64_t index = int64_t{date.year} * 12 + (date.month - 1) + months;
  CivilDate moved;
  moved.year = static_cast<int>(FloorDiv(index, 12));
  moved.month = static_cast<int>(index - int64_t{moved.year} * 12) + 1;
  moved.day = std::min(date.day, DaysInMonth(moved.year, moved.month));
  return moved;
}

int Weekday(CivilDate date) {
  const int64_t days_since_monday = DaysSinceEpoch(date) + 3;  // 1970-01-01 was a Thursday
  return static_cast<int>(days_since_monday - FloorDiv(days_since_monday, 7) * 7) + 1;
}

Result<CivilDate> ParseDate(std::string_view text) {
  FieldReader in(text);
  CivilDate date = ReadDate(in);
  ExpectEnd(in);
  if (in.failed()) return Status::InvalidArgument(fmt::format("not a YYYY-MM-DD date {}: {}", Quote(text), in.error()));
  return date;
}

Result<UnixMs> ParseRfc3339(std::string_view text) {
  FieldReader in(text);
  const UnixMs time = ReadRfc3339(in);
  if (in.failed()) return Status::InvalidArgument(fmt::format("not an RFC 3339 time {}: {}", Quote(text), in.error()));
  return time;
}

std::string FormatRfc3339(UnixMs utc, int offset_minutes) {
  const int64_t local = utc + offset_minutes * kMsPerMinute;
  const int64_t days = FloorDiv(local, kMsPerDay);
  const int64_t ms_of_day = local - days * kMsPerDay;
  const CivilDate date = DateFromDaysSinceEpoch(days);
  std::string out = fmt::format("{}T{:02d}:{:02d}:{:02d}", date.ToString(), ms_of_day / kMsPerHour,
                                ms_of_day / kMsPerMinute % 60, ms_of_day / kMsPerSecond % 60);
  if (const int64_t millis = ms_of_day % kMsPerSecond; millis != 0) out += fmt::format(".{:03d}", millis);
  if (offset_minutes == 0) return out + "Z";
  const int magnitude = std::abs(offset_minutes);
  return out + fmt::format("{}{:02d}:{:02d}", offset_minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
}

// ICU documents const TimeZone methods as safe to call concurrently, and the
// zone is never mutated after Load, so one shared instance serves every thread.
struct TimeZone::Impl {
  std::string name;
  std::unique_ptr<const icu::TimeZone> zone;

  // Milliseconds east of UTC; historical offsets may have seconds.
  int64_t OffsetMs(UnixMs utc) const {
    UErrorCode status = U_ZERO_ERROR;
    int32_t raw = 0;
    int32_t dst = 0;
    zone->getOffset(static_cast<UDate>(utc), /*local=*/false, raw, dst, status);
    return U_SUCCESS(status) ? int64_t{raw} + dst : int64_t{zone->getRawOffset()};
  }

  int64_t LocalMs(UnixMs utc) const { return utc + OffsetMs(utc); }
};

Result<TimeZone> TimeZone::Load(std::string_view iana_name) {
  if (iana_name.empty()) return Status::InvalidArgument("time zone name is empty");
  const icu::UnicodeString id = icu::UnicodeString::fromUTF8(icu::StringPiece(iana_name.data(),
                                                                              static_cast<int32_t>(iana_name.size())));
  std::unique_ptr<icu::TimeZone> zone(icu::TimeZone::createTimeZone(id));
  // ICU hands back "Etc/Unknown" (behaving like GMT) for ids it does not know.
  icu::UnicodeString resolved;
  if (zone == nullptr || zone->getID(resolved) == icu::UnicodeString(UCAL_UNKNOWN_ZONE_ID)) {
    return Status::InvalidArgument(fmt::format("unknown time zone {}", Quote(iana_name)));
  }
  auto impl = std::make_shared<Impl>();
  impl->name = std::string(iana_name);
  impl->zone = std::move(zone);
  return TimeZone(std::move(impl));
}

TimeZone TimeZone::Utc() {
  static const TimeZone utc = [] {
    auto impl = std::make_shared<Impl>();
    impl->name = "UTC";
    impl->zone.reset(icu::TimeZone::getGMT()->clone());
    return TimeZone(std::move(impl));
  }();
  return utc;
}

const std::string& TimeZone::name() const { return impl_->name; }

int TimeZone::OffsetMinutes(UnixMs utc) const { return static_cast<int>(impl_->OffsetMs(utc) / kMsPerMinute); }

CivilDate TimeZone::LocalDate(UnixMs utc) const {
  return DateFromDaysSinceEpoch(FloorDiv(impl_->LocalMs(utc), kMsPerDay));
}

UnixMs TimeZone::StartOfDay(CivilDate local) const {
  const int64_t midnight = DaysSinceEpoch(local) * kMsPerDay;  // local midnight, as if it were UTC
  // Midnight is `midnight - offset` for the offset in force then, which is one
  // of the offsets in force a day either side. When both fit (midnight
  // happens twice) the earlier wins.
  UnixMs earliest = std::numeric_limits<UnixMs>::max();
  for (const int64_t probe : {midnight - kMsPerDay, midnight + kMsPerDay}) {
    const int64_t offset = impl_->OffsetMs(probe);
    const UnixMs candidate = midnight - offset;
    if (impl_->OffsetMs(candidate) == offset) earliest = std::min(earliest, candidate);
  }
  if (earliest != std::numeric_limits<UnixMs>::max()) return earliest;

  // Midnight falls in a DST gap: the day starts at the transition, the first
  // instant whose local time is past midnight.
  UnixMs before = midnight - impl_->OffsetMs(midnight + kMsPerDay);  // still the previous day
  UnixMs after = midnight - impl_->OffsetMs(midnight - kMsPerDay);   // already this day
  while (after - before > 1) {
    const UnixMs mid = before + (after - before) / 2;
    (impl_->LocalMs(mid) >= midnight ? after : before) = mid;
  }
  return after;
}

std::string TimeZone::FormatLocal(UnixMs utc, bool with_time) const {
  const int64_t local = impl_->LocalMs(utc);
  const int64_t days = FloorDiv(local, kMsPerDay);
  const std::string date = DateFromDaysSinceEpoch(days).ToString();
  if (!with_time) return date;
  const int64_t ms_of_day = local - days * kMsPerDay;
  return fmt::format("{} {:02d}:{:02d}", date, ms_of_day / kMsPerHour, ms_of_day / kMsPerMinute % 60);
}

Result<UnixMs> ParseTimeBound(std::string_view text, const TimeZone& tz, BoundSide side) {
  const char* field = side == BoundSide::kAfter ? "after" : "before";
  FieldReader in(text);
  // A bare date is exactly ten characters; anything longer must be a full time.
  if (text.size() == 10) {
    const CivilDate date = ReadDate(in);
    ExpectEnd(in);
    if (in.failed()) return Status::InvalidArgument(fmt::format("{} {} is not a valid date: {}", field, Quote(text), in.error()));
    const UnixMs bound = side == BoundSide::kAfter ? tz.StartOfDay(date) : tz.StartOfDay(AddDays(date, 1)) - 1;
    if (bound < kFirstWritableMs || bound > kLastWritableMs) {
      return Status::InvalidArgument(fmt::format("{} {} is outside the years 0000 to 9999 in UTC", field, Quote(text)));
    }
    return bound;
  }
  const UnixMs time = ReadRfc3339(in);
  if (in.failed()) {
    return Status::InvalidArgument(fmt::format("{} {} is neither a date (YYYY-MM-DD) nor an RFC 3339 time: {}",
                                               field, Quote(text), in.error()));
  }
  return time;
}

}  // namespace cilia
