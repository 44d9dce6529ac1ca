#include "core/time.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace cilia {
namespace {

using ::testing::HasSubstr;

UnixMs Rfc(std::string_view text) {
  Result<UnixMs> parsed = ParseRfc3339(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : 0;
}

TimeZone Zone(std::string_view name) {
  Result<TimeZone> zone = TimeZone::Load(name);
  EXPECT_TRUE(zone.ok()) << zone.status().ToString();
  return zone.ok() ? *zone : TimeZone::Utc();
}

// ---- CivilDate -------------------------------------------------------------

TEST(CivilDate, DaysSinceEpochOfKnownDays) {
  EXPECT_EQ(DaysSinceEpoch({1970, 1, 1}), 0);
  EXPECT_EQ(DaysSinceEpoch({1969, 12, 31}), -1);
  EXPECT_EQ(DaysSinceEpoch({2000, 3, 1}), 11017);
  EXPECT_EQ(DaysSinceEpoch({2026, 6, 19}), 20623);
  EXPECT_EQ(DaysSinceEpoch({1600, 1, 1}), -135140);
}

TEST(CivilDate, EveryDayOfEightCenturiesRoundTrips) {
  CivilDate expected{1600, 1, 1};
  for (int64_t days = DaysSinceEpoch(expected); days <= DaysSinceEpoch({2400, 12, 31}); ++days) {
    const CivilDate date = DateFromDaysSinceEpoch(days);
    ASSERT_EQ(date, expected) << days;
    ASSERT_EQ(DaysSinceEpoch(date), days);
    // Walk the calendar by hand alongside.
    if (++expected.day > DaysInMonth(expected.year, expected.month)) {
      expected.day = 1;
      if (++expected.month > 12) {
        expected.month = 1;
        ++expected.year;
      }
    }
  }
}

TEST(CivilDate, DaysInMonthKnowsLeapYears) {
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2023, 2), 28);
  EXPECT_EQ(DaysInMonth(1900, 2), 28);  // century, not leap
  EXPECT_EQ(DaysInMonth(2000, 2), 29);  // 400th year, leap
  EXPECT_EQ(DaysInMonth(2026, 4), 30);
  EXPECT_EQ(DaysInMonth(2026, 12), 31);
  EXPECT_EQ(DaysInMonth(2026, 0), 0);
  EXPECT_EQ(DaysInMonth(2026, 13), 0);
}

TEST(CivilDate, WeekdayIsIsoMondayOne) {
  EXPECT_EQ(Weekday({1970, 1, 1}), 4);   // Thursday
  EXPECT_EQ(Weekday({1969, 12, 29}), 1); // Monday, before the epoch
  EXPECT_EQ(Weekday({2026, 6, 19}), 5);  // Friday
  EXPECT_EQ(Weekday({2026, 6, 21}), 7);  // Sunday
  EXPECT_EQ(Weekday({2024, 2, 29}), 4);
  EXPECT_EQ(Weekday({1600, 1, 1}), 6);   // Saturday
}

TEST(CivilDate, AddDaysCrossesMonthsYearsAndLeapDays) {
  EXPECT_EQ(AddDays({2026, 12, 31}, 1), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(AddDays({2024, 2, 28}, 1), (CivilDate{2024, 2, 29}));
  EXPECT_EQ(AddDays({2023, 2, 28}, 1), (CivilDate{2023, 3, 1}));
  EXPECT_EQ(AddDays({2026, 1, 1}, -1), (CivilDate{2025, 12, 31}));
  EXPECT_EQ(AddDays({2026, 6, 19}, -365), (CivilDate{2025, 6, 19}));
  EXPECT_EQ(AddDays({2026, 6, 19}, 0), (CivilDate{2026, 6, 19}));
}

TEST(CivilDate, AddMonthsClampsTheDay) {
  EXPECT_EQ(AddMonths({2026, 1, 31}, 1), (CivilDate{2026, 2, 28}));
  EXPECT_EQ(AddMonths({2024, 3, 31}, -1), (CivilDate{2024, 2, 29}));
  EXPECT_EQ(AddMonths({2026, 1, 15}, -1), (CivilDate{2025, 12, 15}));
  EXPECT_EQ(AddMonths({2026, 12, 15}, 1), (CivilDate{2027, 1, 15}));
  EXPECT_EQ(AddMonths({2026, 6, 19}, -24), (CivilDate{2024, 6, 19}));
  EXPECT_EQ(AddMonths({2026, 6, 19}, -18), (CivilDate{2024, 12, 19}));
}

TEST(CivilDate, ComparesByCalendarOrder) {
  EXPECT_LT((CivilDate{2025, 12, 31}), (CivilDate{2026, 1, 1}));
  EXPECT_LT((CivilDate{2026, 1, 31}), (CivilDate{2026, 2, 1}));
  EXPECT_LT((CivilDate{2026, 2, 1}), (CivilDate{2026, 2, 2}));
  EXPECT_EQ((CivilDate{2026, 2, 2}), (CivilDate{2026, 2, 2}));
}

TEST(CivilDate, ToStringPadsEveryField) {
  EXPECT_EQ((CivilDate{2023, 5, 8}).ToString(), "2023-05-08");
  EXPECT_EQ((CivilDate{5, 1, 2}).ToString(), "0005-01-02");
}

TEST(ParseDate, ReadsIsoDates) {
  EXPECT_EQ(*ParseDate("2023-05-08"), (CivilDate{2023, 5, 8}));
  EXPECT_EQ(*ParseDate("2024-02-29"), (CivilDate{2024, 2, 29}));
}

TEST(ParseDate, SaysWhatIsWrong) {
  struct Case {
    const char* text;
    const char* complaint;
  };
  const Case cases[] = {
      {"2023-02-29", "day 29 is out of range (1..28)"},
      {"2023-13-01", "month 13 is out of range (1..12)"},
      {"2023-00-10", "month 0 is out of range"},
      {"2023/05/01", "expected '-' after the year at position 5"},
      {"2023-5-1", "expected 2 digits for the month at position 6"},
      {"", "expected 4 digits for the year at position 1"},
      {"2023-05-011", "unexpected text \"1\" at the end"},
      {"２０２３-05-01", "expected 4 digits for the year"},
      {"yesterday", "expected 4 digits for the year"},
  };
  for (const Case& c : cases) {
    Result<CivilDate> date = ParseDate(c.text);
    ASSERT_FALSE(date.ok()) << c.text;
    EXPECT_EQ(date.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(date.status().message(), HasSubstr(c.complaint)) << c.text;
    EXPECT_THAT(date.status().message(), HasSubstr(std::string("\"") + c.text + "\""));
  }
}

// ---- RFC 3339 --------------------------------------------------------------

TEST(ParseRfc3339, ReadsUtcAndOffsets) {
  EXPECT_EQ(Rfc("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00Z"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08T21:56:00+08:00"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08T08:56:00-05:00"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08T19:26:00+05:30"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00+00:00"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00-00:00"), 1683554160000);
}

TEST(ParseRfc3339, AcceptsLowercaseAndASpace) {
  EXPECT_EQ(Rfc("2023-05-08t13:56:00z"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08 13:56:00Z"), 1683554160000);
  EXPECT_EQ(Rfc("2023-05-08 21:56:00+08:00"), 1683554160000);
}

TEST(ParseRfc3339, KeepsMillisecondsAndTruncatesFinerFractions) {
  EXPECT_EQ(Rfc("2023-05-08T13:56:00.5Z"), 1683554160500);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00.25Z"), 1683554160250);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00.123Z"), 1683554160123);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00.123999999Z"), 1683554160123);
  EXPECT_EQ(Rfc("2023-05-08T13:56:00.000Z"), 1683554160000);
}

TEST(ParseRfc3339, HandlesInstantsBeforeTheEpoch) {
  EXPECT_EQ(Rfc("1969-12-31T23:59:59.999Z"), -1);
  EXPECT_EQ(Rfc("1900-01-01T00:00:00Z"), -2208988800000);
}

TEST(ParseRfc3339, RefusesAnOffsetThatLeavesTheFourDigitYears) {
  // Without the check these were echoed back as "10000-01-01T00:59:59Z" and "-0001-12-31…".
  for (const char* text : {"9999-12-31T23:59:59-01:00", "0000-01-01T00:30:00+01:00"}) {
    Result<UnixMs> parsed = ParseRfc3339(text);
    ASSERT_FALSE(parsed.ok()) << text << " read as " << FormatRfc3339(*parsed);
    EXPECT_THAT(parsed.status().message(), HasSubstr("outside the years 0000 to 9999 in UTC"));
  }
  EXPECT_EQ(FormatRfc3339(Rfc("9999-12-31T23:59:59.999Z")), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatRfc3339(Rfc("0000-01-01T00:00:00Z")), "0000-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(Rfc("9999-12-31T23:59:59+01:00")), "9999-12-31T22:59:59Z");
}

TEST(ParseRfc3339, ReadsALeapSecondAsTheNextMinute) {
  EXPECT_EQ(Rfc("2016-12-31T23:59:60Z"), Rfc("2017-01-01T00:00:00Z"));
}

TEST(ParseRfc3339, RejectsGarbageSayingWhatIsWrong) {
  struct Case {
    const char* text;
    const char* complaint;
  };
  const Case cases[] = {
      {"", "expected 4 digits for the year at position 1"},
      {"yesterday", "expected 4 digits for the year at position 1"},
      {"2023-05-08", "expected 'T' or a space between date and time"},
      {"2023-05-08X13:56:00Z", "expected 'T' or a space between date and time"},
      {"2023-05-08T13:56Z", "expected ':' after the minute at position 17"},
      {"2023-05-08T13:56:00", "expected 'Z' or an offset like +08:00"},
      {"2023-05-08T13:56:00+0800", "expected ':' in the offset at position 23"},
      {"2023-05-08T13:56:00+8:00", "expected 2 digits for the offset hours"},
      {"2023-05-08T13:56:00.Z", "expected digits after the decimal point"},
      {"2023-05-08T25:00:00Z", "hour 25 is out of range (0..23)"},
      {"2023-05-08T13:60:00Z", "minute 60 is out of range (0..59)"},
      {"2023-05-08T13:56:61Z", "second 61 is out of range (0..60)"},
      {"2023-02-30T13:56:00Z", "day 30 is out of range (1..28)"},
      {"2023-05-08T13:56:00+24:00", "offset hour 24 is out of range"},
      {"2023-05-08T13:56:00Z trailing", "unexpected text \" trailing\" at the end"},
      {"2023-05-08T13:56:00Z🙂", "unexpected text \"🙂\" at the end"},
      {"2023年5月8日", "expected '-' after the year at position 5"},
  };
  for (const Case& c : cases) {
    Result<UnixMs> time = ParseRfc3339(c.text);
    ASSERT_FALSE(time.ok()) << c.text;
    EXPECT_EQ(time.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(time.status().message(), HasSubstr("not an RFC 3339 time")) << c.text;
    EXPECT_THAT(time.status().message(), HasSubstr(c.complaint)) << c.text;
  }
}

TEST(ParseRfc3339, QuotesAHugeValueShortenedWithoutSplittingCharacters) {
  std::string huge;
  for (int i = 0; i < 10000; ++i) huge += "时间";
  Result<UnixMs> time = ParseRfc3339(huge);
  ASSERT_FALSE(time.ok());
  const std::string& message = time.status().message();
  EXPECT_LT(message.size(), 300u);
  EXPECT_THAT(message, HasSubstr("\"时间时间"));
  // The shown part is cut between characters: 21 whole ones of 3 bytes each.
  const size_t open = message.find('"');
  const size_t ellipsis = message.find("…\"");
  ASSERT_NE(ellipsis, std::string::npos);
  EXPECT_EQ(ellipsis - open - 1, 63u);
}

TEST(FormatRfc3339, WritesZForUtcAndTheOffsetOtherwise) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatRfc3339(1683554160000), "2023-05-08T13:56:00Z");
  EXPECT_EQ(FormatRfc3339(1683554160000, 480), "2023-05-08T21:56:00+08:00");
  EXPECT_EQ(FormatRfc3339(1683554160000, -300), "2023-05-08T08:56:00-05:00");
  EXPECT_EQ(FormatRfc3339(1683554160000, 330), "2023-05-08T19:26:00+05:30");
  EXPECT_EQ(FormatRfc3339(1683554160000, -570), "2023-05-08T04:26:00-09:30");
}

TEST(FormatRfc3339, WritesMillisecondsOnlyWhenThereAreSome) {
  EXPECT_EQ(FormatRfc3339(1683554160007), "2023-05-08T13:56:00.007Z");
  EXPECT_EQ(FormatRfc3339(1683554160250, 480), "2023-05-08T21:56:00.250+08:00");
  EXPECT_EQ(FormatRfc3339(-1), "1969-12-31T23:59:59.999Z");
}

TEST(FormatRfc3339, RoundTripsThroughParse) {
  for (const UnixMs t : {UnixMs{0}, UnixMs{-1}, UnixMs{1683554160123}, UnixMs{4102444799999}}) {
    for (const int offset : {0, 480, -300, 345}) {
      EXPECT_EQ(Rfc(FormatRfc3339(t, offset)), t) << t << " " << offset;
    }
  }
}

// ---- TimeZone --------------------------------------------------------------

TEST(TimeZone, LoadsIanaNames) {
  for (const char* name : {"Asia/Shanghai", "UTC", "Etc/UTC", "America/New_York", "Europe/Berlin"}) {
    Result<TimeZone> zone = TimeZone::Load(name);
    ASSERT_TRUE(zone.ok()) << zone.status().ToString();
    EXPECT_EQ(zone->name(), name);
  }
}

TEST(TimeZone, RejectsUnknownNamesInsteadOfFallingBackToGmt) {
  for (const char* name : {"Mars/Olympus_Mons", "Asia/Shanghia", "Etc/Unknown", "上海", "🙂"}) {
    Result<TimeZone> zone = TimeZone::Load(name);
    ASSERT_FALSE(zone.ok()) << name;
    EXPECT_EQ(zone.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(zone.status().message(), HasSubstr(std::string("unknown time zone \"") + name + "\""));
  }
  Result<TimeZone> empty = TimeZone::Load("");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("empty"));
}

TEST(TimeZone, UtcHasNoOffset) {
  const TimeZone utc = TimeZone::Utc();
  EXPECT_EQ(utc.name(), "UTC");
  EXPECT_EQ(utc.OffsetMinutes(1683554160000), 0);
  EXPECT_EQ(utc.LocalDate(-1), (CivilDate{1969, 12, 31}));
  EXPECT_EQ(utc.StartOfDay({2023, 5, 8}), Rfc("2023-05-08T00:00:00Z"));
}

TEST(TimeZone, ShanghaiIsEightHoursAheadAllYear) {
  const TimeZone shanghai = Zone("Asia/Shanghai");
  EXPECT_EQ(shanghai.OffsetMinutes(Rfc("2026-01-15T00:00:00Z")), 480);
  EXPECT_EQ(shanghai.OffsetMinutes(Rfc("2026-07-15T00:00:00Z")), 480);
  EXPECT_EQ(shanghai.LocalDate(Rfc("2023-05-08T15:59:59.999Z")), (CivilDate{2023, 5, 8}));
  EXPECT_EQ(shanghai.LocalDate(Rfc("2023-05-08T16:00:00Z")), (CivilDate{2023, 5, 9}));
  EXPECT_EQ(shanghai.StartOfDay({2023, 5, 9}), Rfc("2023-05-08T16:00:00Z"));
  EXPECT_EQ(shanghai.FormatLocal(Rfc("2023-05-08T13:56:00Z"), false), "2023-05-08");
  EXPECT_EQ(shanghai.FormatLocal(Rfc("2023-05-08T13:56:00Z"), true), "2023-05-08 21:56");
  EXPECT_EQ(shanghai.FormatLocal(Rfc("2023-05-08T16:05:00Z"), true), "2023-05-09 00:05");
}

TEST(TimeZone, NewYorkFollowsDaylightSavingTime) {
  const TimeZone new_york = Zone("America/New_York");
  EXPECT_EQ(new_york.OffsetMinutes(Rfc("2026-01-15T12:00:00Z")), -300);
  EXPECT_EQ(new_york.OffsetMinutes(Rfc("2026-07-15T12:00:00Z")), -240);
  // 2026-03-08 02:00 EST jumps to 03:00 EDT: a 23-hour day.
  EXPECT_EQ(new_york.StartOfDay({2026, 3, 8}), Rfc("2026-03-08T00:00:00-05:00"));
  EXPECT_EQ(new_york.StartOfDay({2026, 3, 9}), Rfc("2026-03-09T00:00:00-04:00"));
  EXPECT_EQ(new_york.StartOfDay({2026, 3, 9}) - new_york.StartOfDay({2026, 3, 8}), 23 * 3600 * 1000);
  // 2026-11-01 02:00 EDT falls back to 01:00 EST: a 25-hour day.
  EXPECT_EQ(new_york.StartOfDay({2026, 11, 1}), Rfc("2026-11-01T00:00:00-04:00"));
  EXPECT_EQ(new_york.StartOfDay({2026, 11, 2}) - new_york.StartOfDay({2026, 11, 1}), 25 * 3600 * 1000);
  // 01:30 happens twice that night, once in each offset.
  EXPECT_EQ(new_york.FormatLocal(Rfc("2026-11-01T04:30:00Z"), true), "2026-11-01 00:30");
  EXPECT_EQ(new_york.FormatLocal(Rfc("2026-11-01T05:30:00Z"), true), "2026-11-01 01:30");
  EXPECT_EQ(new_york.FormatLocal(Rfc("2026-11-01T06:30:00Z"), true), "2026-11-01 01:30");
  EXPECT_EQ(new_york.LocalDate(Rfc("2026-03-08T03:59:59Z")), (CivilDate{2026, 3, 7}));
}

TEST(TimeZone, DayWhoseMidnightIsSkippedStartsAtTheTransition) {
  // São Paulo began DST on 2018-11-04 at midnight, clocks going straight to 01:00.
  const TimeZone sao_paulo = Zone("America/Sao_Paulo");
  EXPECT_EQ(sao_paulo.StartOfDay({2018, 11, 4}), Rfc("2018-11-04T01:00:00-02:00"));
  EXPECT_EQ(sao_paulo.LocalDate(sao_paulo.StartOfDay({2018, 11, 4})), (CivilDate{2018, 11, 4}));
  EXPECT_EQ(sao_paulo.LocalDate(sao_paulo.StartOfDay({2018, 11, 4}) - 1), (CivilDate{2018, 11, 3}));
  // It ended on 2019-02-17 at midnight, back to 23:00 of the 16th: that midnight happens once.
  EXPECT_EQ(sao_paulo.StartOfDay({2019, 2, 17}), Rfc("2019-02-17T00:00:00-03:00"));
  EXPECT_EQ(sao_paulo.StartOfDay({2019, 2, 16}), Rfc("2019-02-16T00:00:00-02:00"));
}

TEST(TimeZone, StartOfDayIsTheFirstInstantOfThatLocalDate) {
  for (const char* name : {"Asia/Shanghai", "America/New_York", "Europe/London", "Australia/Lord_Howe"}) {
    const TimeZone zone = Zone(name);
    for (CivilDate day{2026, 1, 1}; day.year == 2026; day = AddDays(day, 1)) {
      const UnixMs start = zone.StartOfDay(day);
      ASSERT_EQ(zone.LocalDate(start), day) << name << " " << day.ToString();
      ASSERT_EQ(zone.LocalDate(start - 1), AddDays(day, -1)) << name << " " << day.ToString();
    }
  }
}

TEST(TimeZone, CopiesShareOneZone) {
  const TimeZone original = Zone("Asia/Shanghai");
  const TimeZone copy = original;
  EXPECT_EQ(copy.name(), "Asia/Shanghai");
  EXPECT_EQ(copy.OffsetMinutes(0), original.OffsetMinutes(0));
}

TEST(TimeZone, GivesTheSameAnswersFromManyThreads) {
  const TimeZone new_york = Zone("America/New_York");
  const UnixMs start = Rfc("2026-01-01T00:00:00Z");
  constexpr int kSteps = 5000;
  constexpr int64_t kStride = 6'311'000;  // ~1.75 h: every hour of a year, DST edges included
  std::vector<std::string> expected;
  for (int i = 0; i < kSteps; ++i) expected.push_back(new_york.FormatLocal(start + i * kStride, true));

  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kSteps; ++i) {
        if (new_york.FormatLocal(start + i * kStride, true) != expected[i]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

// ---- ParseTimeBound --------------------------------------------------------

TEST(ParseTimeBound, ADateCoversTheWholeLocalDay) {
  const TimeZone shanghai = Zone("Asia/Shanghai");
  EXPECT_EQ(*ParseTimeBound("2023-05-01", shanghai, BoundSide::kAfter), Rfc("2023-04-30T16:00:00Z"));
  EXPECT_EQ(*ParseTimeBound("2023-05-01", shanghai, BoundSide::kBefore), Rfc("2023-05-01T15:59:59.999Z"));
  const TimeZone new_york = Zone("America/New_York");
  EXPECT_EQ(*ParseTimeBound("2026-03-08", new_york, BoundSide::kBefore), Rfc("2026-03-08T23:59:59.999-04:00"));
}

TEST(ParseTimeBound, ATimeIsItself) {
  const TimeZone shanghai = Zone("Asia/Shanghai");
  for (const BoundSide side : {BoundSide::kAfter, BoundSide::kBefore}) {
    EXPECT_EQ(*ParseTimeBound("2023-05-08T13:56:00Z", shanghai, side), 1683554160000);
    EXPECT_EQ(*ParseTimeBound("2023-05-08 21:56:00.5+08:00", shanghai, side), 1683554160500);
  }
}

TEST(ParseTimeBound, ADayWhoseEndInUtcIsPastYear9999IsRefused) {
  Result<UnixMs> bound = ParseTimeBound("9999-12-31", Zone("America/New_York"), BoundSide::kBefore);
  ASSERT_FALSE(bound.ok());
  EXPECT_THAT(bound.status().message(), HasSubstr("before \"9999-12-31\" is outside the years 0000 to 9999"));
  EXPECT_TRUE(ParseTimeBound("9999-12-31", Zone("Asia/Shanghai"), BoundSide::kBefore).ok());
}

TEST(ParseTimeBound, BadValuesAreQuotedAndNamed) {
  const TimeZone utc = TimeZone::Utc();
  Result<UnixMs> bad_date = ParseTimeBound("2023-13-01", utc, BoundSide::kBefore);
  ASSERT_FALSE(bad_date.ok());
  EXPECT_EQ(bad_date.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(bad_date.status().message(), HasSubstr("before \"2023-13-01\" is not a valid date"));
  EXPECT_THAT(bad_date.status().message(), HasSubstr("month 13"));

  for (const char* text : {"May 1", "", "2023-5-1", "yesterday", "2023-05-01T10:00"}) {
    Result<UnixMs> bound = ParseTimeBound(text, utc, BoundSide::kAfter);
    ASSERT_FALSE(bound.ok()) << text;
    EXPECT_EQ(bound.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(bound.status().message(),
                HasSubstr(std::string("after \"") + text + "\" is neither a date (YYYY-MM-DD) nor an RFC 3339 time"));
  }
}

}  // namespace
}  // namespace cilia
