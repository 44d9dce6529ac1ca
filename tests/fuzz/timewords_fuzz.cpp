// Time words in a recall query, and the time formats beside them: no query
// crashes, a span found is a real span, and RFC 3339 round-trips.
#include "core/time.h"
#include "fuzz_support.h"
#include "text/timewords.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  static const TimeZone shanghai = *TimeZone::Load("Asia/Shanghai");
  static const TimeZone new_york = *TimeZone::Load("America/New_York");
  const std::string_view query = fuzz::Input(data, size);
  constexpr UnixMs kNow = 1'780'000'000'000;
  for (const TimeZone* tz : {&shanghai, &new_york}) {
    TimeHint hint = ParseTimeWords(query, kNow, *tz);
    if (hint.from && hint.to) fuzz::Require(*hint.from <= *hint.to, "a span ends after it starts");
    (void)ParseTimeBound(query, *tz, BoundSide::kBefore);
  }
  if (auto t = ParseRfc3339(query); t.ok()) {
    auto back = ParseRfc3339(FormatRfc3339(*t));
    fuzz::Require(back.ok() && *back == *t, "an accepted time is written so that it reads back");
  }
  (void)ParseDate(query);
  return 0;
}
