#include "text/timewords.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cilia {
namespace {

TimeZone Shanghai() { return *TimeZone::Load("Asia/Shanghai"); }

UnixMs At(std::string_view rfc3339) { return *ParseRfc3339(rfc3339); }

// The hint's span as local days, first and last inclusive: "2026-06-08..2026-06-14".
std::string Days(const TimeHint& hint, const TimeZone& tz) {
  if (!hint.from && !hint.to) return "";
  if (!hint.from || !hint.to) return "half a span";
  // Spans are whole local days.
  EXPECT_EQ(tz.StartOfDay(tz.LocalDate(*hint.from)), *hint.from);
  EXPECT_EQ(tz.StartOfDay(tz.LocalDate(*hint.to)), *hint.to);
  return tz.FormatLocal(*hint.from, false) + ".." + tz.FormatLocal(*hint.to - 1, false);
}

std::string Joined(const std::vector<std::string>& phrases) {
  std::string joined;
  for (const std::string& phrase : phrases) joined += (joined.empty() ? "" : "|") + phrase;
  return joined;
}

struct Case {
  const char* query;
  const char* days;     // "" when no span
  bool recent;
  const char* phrases;  // joined by "|"
  const char* rest;
};

void ExpectAll(const std::vector<Case>& cases, UnixMs now, const TimeZone& tz) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.query);
    const TimeHint hint = ParseTimeWords(c.query, now, tz);
    EXPECT_EQ(Days(hint, tz), c.days);
    EXPECT_EQ(hint.recent, c.recent);
    EXPECT_EQ(Joined(hint.phrases), c.phrases);
    EXPECT_EQ(hint.rest, c.rest);
  }
}

// Friday 2026-06-19, 21:00 in Shanghai. This week began on Monday the 15th.
const UnixMs kJuneFriday = At("2026-06-19T21:00:00+08:00");

TEST(ParseTimeWords, EnglishDaysAndRelativeSpans) {
  ExpectAll({
      {"what did Caroline do last week", "2026-06-08..2026-06-14", false, "last week", "what did Caroline do"},
      {"I went there 3 days ago", "2026-06-16..2026-06-16", false, "3 days ago", "I went there"},
      {"what did we talk about today", "2026-06-19..2026-06-19", false, "today", "what did we talk about"},
      {"Yesterday", "2026-06-18..2026-06-18", false, "Yesterday", ""},
      {"what did I say the day before yesterday?", "2026-06-17..2026-06-17", false, "the day before yesterday",
       "what did I say?"},
      {"tonight's plan", "2026-06-19..2026-06-19", false, "tonight's", "plan"},
      {"this morning", "2026-06-19..2026-06-19", false, "this morning", ""},
      // Last night keeps the small hours of today.
      {"what happened last night", "2026-06-18..2026-06-19", false, "last night", "what happened"},
      {"twelve days ago", "2026-06-07..2026-06-07", false, "twelve days ago", ""},
      {"two weeks ago", "2026-06-01..2026-06-07", false, "two weeks ago", ""},
      {"a couple of weeks ago", "2026-05-25..2026-06-07", false, "a couple of weeks ago", ""},
      {"A month ago", "2026-05-01..2026-05-31", false, "A month ago", ""},
      {"a year ago", "2025-01-01..2025-12-31", false, "a year ago", ""},
      {"a few days ago", "2026-06-12..2026-06-18", false, "a few days ago", ""},
      {"this week", "2026-06-15..2026-06-21", false, "this week", ""},
      {"next week", "2026-06-22..2026-06-28", false, "next week", ""},
      {"last month", "2026-05-01..2026-05-31", false, "last month", ""},
      {"THIS MONTH", "2026-06-01..2026-06-30", false, "THIS MONTH", ""},
      {"last year", "2025-01-01..2025-12-31", false, "last year", ""},
      {"this year", "2026-01-01..2026-12-31", false, "this year", ""},
      {"last weekend", "2026-06-13..2026-06-14", false, "last weekend", ""},
      {"this weekend", "2026-06-20..2026-06-21", false, "this weekend", ""},
      {"in the last 3 days", "2026-06-16..2026-06-19", false, "in the last 3 days", ""},
      {"over the past week", "2026-06-12..2026-06-19", false, "over the past week", ""},
      {"the past few weeks", "2026-05-01..2026-06-19", false, "the past few weeks", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, EnglishWeekdaysAreTheLatestOneBeforeToday) {
  ExpectAll({
      {"last Wednesday", "2026-06-17..2026-06-17", false, "last Wednesday", ""},
      {"on Thursday", "2026-06-18..2026-06-18", false, "on Thursday", ""},
      {"on Friday", "2026-06-12..2026-06-12", false, "on Friday", ""},  // today is Friday: a week back
      {"monday", "2026-06-15..2026-06-15", false, "monday", ""},
      {"this Sunday", "2026-06-21..2026-06-21", false, "this Sunday", ""},
      {"next Monday", "2026-06-22..2026-06-22", false, "next Monday", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, EnglishMonthsAndDates) {
  ExpectAll({
      {"in March", "2026-03-01..2026-03-31", false, "in March", ""},
      {"in June", "2026-06-01..2026-06-30", false, "in June", ""},              // the current month
      {"during December", "2025-12-01..2025-12-31", false, "during December", ""},  // not yet this year
      {"March 2025", "2025-03-01..2025-03-31", false, "March 2025", ""},
      {"in Sept 2025", "2025-09-01..2025-09-30", false, "in Sept 2025", ""},
      {"last March", "2026-03-01..2026-03-31", false, "last March", ""},
      {"last June", "2025-06-01..2025-06-30", false, "last June", ""},
      {"March last year", "2025-03-01..2025-03-31", false, "March last year", ""},
      {"May 8", "2026-05-08..2026-05-08", false, "May 8", ""},
      {"may 5th", "2026-05-05..2026-05-05", false, "may 5th", ""},
      {"May 8th, 2023", "2023-05-08..2023-05-08", false, "May 8th, 2023", ""},
      {"8 May 2023", "2023-05-08..2023-05-08", false, "8 May 2023", ""},
      {"on the 8th of May", "2026-05-08..2026-05-08", false, "on the 8th of May", ""},
      {"Dec 25", "2025-12-25..2025-12-25", false, "Dec 25", ""},  // the latest one, never ahead
      {"feb 29", "2024-02-29..2024-02-29", false, "feb 29", ""},  // the last leap year
      {"2023-05-08", "2023-05-08..2023-05-08", false, "2023-05-08", ""},
      {"notes from 2023/5/8.", "2023-05-08..2023-05-08", false, "2023/5/8", "notes from."},
      {"early March", "2026-03-01..2026-03-10", false, "early March", ""},
      {"mid-March", "2026-03-11..2026-03-20", false, "mid-March", ""},
      {"late may", "2026-05-21..2026-05-31", false, "late may", ""},
      {"at the beginning of June", "2026-06-01..2026-06-10", false, "the beginning of June", "at"},
      {"the middle of last month", "2026-05-11..2026-05-20", false, "the middle of last month", ""},
      {"the end of last month", "2026-05-21..2026-05-31", false, "the end of last month", ""},
      {"early this year", "2026-01-01..2026-04-30", false, "early this year", ""},
      {"in 2023", "2023-01-01..2023-12-31", false, "in 2023", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, EnglishVagueWordsBoostRecency) {
  ExpectAll({
      {"what did we discuss recently", "", true, "recently", "what did we discuss"},
      {"Lately I feel tired", "", true, "Lately", "I feel tired"},
      {"a while ago you said", "", true, "a while ago", "you said"},
      // "The other day" is a span after all: the week before today, like 前几天.
      {"the other day", "2026-06-12..2026-06-18", false, "the other day", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, EnglishWordsThatAreNotTimeWords) {
  ExpectAll({
      {"when did she go to the support group", "", false, "", "when did she go to the support group"},
      {"may I ask what you think", "", false, "", "may I ask what you think"},
      {"may 5 people come", "", false, "", "may 5 people come"},
      {"they march 5 miles", "", false, "", "they march 5 miles"},
      {"mar jan dec", "", false, "", "mar jan dec"},
      {"the last day of the trip", "", false, "", "the last day of the trip"},
      {"She was born in 1985", "", false, "", "She was born in 1985"},
      {"born on May 8, 1985", "", false, "", "born on May 8, 1985"},
      {"todays special", "", false, "", "todays special"},
      {"the 31st of February", "", false, "", "the 31st of February"},
      {"in 2500 steps", "", false, "", "in 2500 steps"},
      // The month is not read, the weekday is.
      {"they will march on Sunday", "2026-06-14..2026-06-14", false, "on Sunday", "they will march"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, ChineseDaysAndWeeks) {
  ExpectAll({
      {"上周三我跟你说的那个配速是多少", "2026-06-10..2026-06-10", false, "上周三", "我跟你说的那个配速是多少"},
      {"今天", "2026-06-19..2026-06-19", false, "今天", ""},
      {"昨天我们聊了什么", "2026-06-18..2026-06-18", false, "昨天", "我们聊了什么"},
      {"前天", "2026-06-17..2026-06-17", false, "前天", ""},
      {"大前天", "2026-06-16..2026-06-16", false, "大前天", ""},
      {"今晚吃什么", "2026-06-19..2026-06-19", false, "今晚", "吃什么"},
      {"昨晚", "2026-06-18..2026-06-19", false, "昨晚", ""},
      {"昨天晚上", "2026-06-18..2026-06-19", false, "昨天晚上", ""},
      {"上周", "2026-06-08..2026-06-14", false, "上周", ""},
      {"上星期", "2026-06-08..2026-06-14", false, "上星期", ""},
      {"上礼拜", "2026-06-08..2026-06-14", false, "上礼拜", ""},
      {"上个星期", "2026-06-08..2026-06-14", false, "上个星期", ""},
      {"上上周", "2026-06-01..2026-06-07", false, "上上周", ""},
      {"这周", "2026-06-15..2026-06-21", false, "这周", ""},
      {"本周", "2026-06-15..2026-06-21", false, "本周", ""},
      {"这星期", "2026-06-15..2026-06-21", false, "这星期", ""},
      {"下周", "2026-06-22..2026-06-28", false, "下周", ""},
      {"上星期三", "2026-06-10..2026-06-10", false, "上星期三", ""},
      {"上礼拜天", "2026-06-14..2026-06-14", false, "上礼拜天", ""},
      {"这周三", "2026-06-17..2026-06-17", false, "这周三", ""},
      {"周三", "2026-06-17..2026-06-17", false, "周三", ""},
      {"星期三", "2026-06-17..2026-06-17", false, "星期三", ""},
      {"星期五", "2026-06-12..2026-06-12", false, "星期五", ""},  // today is Friday: a week back
      {"周日", "2026-06-14..2026-06-14", false, "周日", ""},
      {"上周末", "2026-06-13..2026-06-14", false, "上周末", ""},
      {"我上周一起吃饭的那个人", "2026-06-08..2026-06-14", false, "上周", "我一起吃饭的那个人"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, ChineseMonthsYearsAndDates) {
  ExpectAll({
      {"上个月", "2026-05-01..2026-05-31", false, "上个月", ""},
      {"这个月", "2026-06-01..2026-06-30", false, "这个月", ""},
      {"本月", "2026-06-01..2026-06-30", false, "本月", ""},
      {"去年", "2025-01-01..2025-12-31", false, "去年", ""},
      {"今年", "2026-01-01..2026-12-31", false, "今年", ""},
      {"前年", "2024-01-01..2024-12-31", false, "前年", ""},
      {"三月", "2026-03-01..2026-03-31", false, "三月", ""},
      {"3月", "2026-03-01..2026-03-31", false, "3月", ""},
      {"三月份", "2026-03-01..2026-03-31", false, "三月份", ""},
      {"七月", "2025-07-01..2025-07-31", false, "七月", ""},  // not yet this year
      {"十二月", "2025-12-01..2025-12-31", false, "十二月", ""},
      {"三月初", "2026-03-01..2026-03-10", false, "三月初", ""},
      {"三月中", "2026-03-11..2026-03-20", false, "三月中", ""},
      {"三月底", "2026-03-21..2026-03-31", false, "三月底", ""},
      {"三月上旬", "2026-03-01..2026-03-10", false, "三月上旬", ""},
      {"三月中旬", "2026-03-11..2026-03-20", false, "三月中旬", ""},
      {"三月下旬", "2026-03-21..2026-03-31", false, "三月下旬", ""},
      {"月初", "2026-06-01..2026-06-10", false, "月初", ""},
      {"月中", "2026-06-11..2026-06-20", false, "月中", ""},
      {"在月底", "2026-06-21..2026-06-30", false, "月底", "在"},
      {"上个月月中", "2026-05-11..2026-05-20", false, "上个月月中", ""},
      {"上个月底", "2026-05-21..2026-05-31", false, "上个月底", ""},
      {"上个月5号", "2026-05-05..2026-05-05", false, "上个月5号", ""},
      {"5月8号", "2026-05-08..2026-05-08", false, "5月8号", ""},
      {"5月8日", "2026-05-08..2026-05-08", false, "5月8日", ""},
      {"五月八号", "2026-05-08..2026-05-08", false, "五月八号", ""},
      {"2026年5月8日", "2026-05-08..2026-05-08", false, "2026年5月8日", ""},
      {"6月25号", "2025-06-25..2025-06-25", false, "6月25号", ""},  // the latest one, never ahead
      {"去年三月", "2025-03-01..2025-03-31", false, "去年三月", ""},
      {"去年底", "2025-09-01..2025-12-31", false, "去年底", ""},
      {"今年初", "2026-01-01..2026-04-30", false, "今年初", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, ChineseCountsBack) {
  ExpectAll({
      {"3天前", "2026-06-16..2026-06-16", false, "3天前", ""},
      {"三天前", "2026-06-16..2026-06-16", false, "三天前", ""},
      {"两天之前", "2026-06-17..2026-06-17", false, "两天之前", ""},
      {"十天前", "2026-06-09..2026-06-09", false, "十天前", ""},
      {"十几天前", "2026-05-31..2026-06-08", false, "十几天前", ""},
      {"十多天前", "2026-05-31..2026-06-09", false, "十多天前", ""},
      {"几天前", "2026-06-12..2026-06-18", false, "几天前", ""},
      {"两三天前", "2026-06-16..2026-06-17", false, "两三天前", ""},
      {"两周前", "2026-06-01..2026-06-07", false, "两周前", ""},
      {"两个星期前", "2026-06-01..2026-06-07", false, "两个星期前", ""},
      {"一个月前", "2026-05-01..2026-05-31", false, "一个月前", ""},
      {"一个多月前", "2026-04-01..2026-05-31", false, "一个多月前", ""},
      {"半个月前", "2026-05-30..2026-06-09", false, "半个月前", ""},
      {"三年前", "2023-01-01..2023-12-31", false, "三年前", ""},
      {"前几天", "2026-06-12..2026-06-18", false, "前几天", ""},
      {"前两天", "2026-06-17..2026-06-18", false, "前两天", ""},
      {"最近三天", "2026-06-16..2026-06-19", false, "最近三天", ""},
      {"近两周", "2026-06-05..2026-06-19", false, "近两周", ""},
      {"过去一个月里", "2026-05-19..2026-06-19", false, "过去一个月里", ""},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, ChineseVagueWordsBoostRecency) {
  ExpectAll({
      {"最近", "", true, "最近", ""},
      {"近来身体怎么样", "", true, "近来", "身体怎么样"},
      {"这阵子", "", true, "这阵子", ""},
      {"那阵子我在干嘛", "", true, "那阵子", "我在干嘛"},
      {"前阵子", "", true, "前阵子", ""},
      {"前段时间说的", "", true, "前段时间", "说的"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, ChineseWordsThatAreNotTimeWords) {
  ExpectAll({
      {"目前天气怎么样", "", false, "", "目前天气怎么样"},
      {"之前年龄多大", "", false, "", "之前年龄多大"},
      {"这周围有什么好吃的", "", false, "", "这周围有什么好吃的"},
      {"每周三去跑步", "", false, "", "每周三去跑步"},
      {"一周三次", "", false, "", "一周三次"},
      {"看一下周报", "", false, "", "看一下周报"},
      {"日本月饼好吃吗", "", false, "", "日本月饼好吃吗"},
      {"在岁月中成长", "", false, "", "在岁月中成长"},
      {"马上周末了", "", false, "", "马上周末了"},
      {"接近三天没睡", "", false, "", "接近三天没睡"},
      {"一年中最热的时候", "", false, "", "一年中最热的时候"},
      {"十三月", "", false, "", "十三月"},
      {"1985年5月出生", "", false, "", "1985年5月出生"},
      {"三个人", "", false, "", "三个人"},
  }, kJuneFriday, Shanghai());
}

// Wednesday 2026-01-07: last month, last week and "in December" are last year's.
TEST(ParseTimeWords, EarlyJanuaryReachesBackIntoLastYear) {
  ExpectAll({
      {"in December", "2025-12-01..2025-12-31", false, "in December", ""},
      {"what did we do last month", "2025-12-01..2025-12-31", false, "last month", "what did we do"},
      {"上个月", "2025-12-01..2025-12-31", false, "上个月", ""},
      {"12月", "2025-12-01..2025-12-31", false, "12月", ""},
      {"十二月底", "2025-12-21..2025-12-31", false, "十二月底", ""},
      {"the end of last month", "2025-12-21..2025-12-31", false, "the end of last month", ""},
      {"上周", "2025-12-29..2026-01-04", false, "上周", ""},
      {"上周三", "2025-12-31..2025-12-31", false, "上周三", ""},
      {"两周前", "2025-12-22..2025-12-28", false, "两周前", ""},
      {"last weekend", "2026-01-03..2026-01-04", false, "last weekend", ""},
      {"last year", "2025-01-01..2025-12-31", false, "last year", ""},
      {"去年三月", "2025-03-01..2025-03-31", false, "去年三月", ""},
      {"3 months ago", "2025-10-01..2025-10-31", false, "3 months ago", ""},
      {"December 25", "2025-12-25..2025-12-25", false, "December 25", ""},
      {"in January", "2026-01-01..2026-01-31", false, "in January", ""},
      {"in February", "2025-02-01..2025-02-28", false, "in February", ""},
      {"前天", "2026-01-05..2026-01-05", false, "前天", ""},
  }, At("2026-01-07T10:00:00+08:00"), Shanghai());
}

TEST(ParseTimeWords, YesterdayOnNewYearsDayIsLastYear) {
  ExpectAll({
      {"yesterday", "2025-12-31..2025-12-31", false, "yesterday", ""},
      {"昨天", "2025-12-31..2025-12-31", false, "昨天", ""},
      {"the past 3 days", "2025-12-29..2026-01-01", false, "the past 3 days", ""},
  }, At("2026-01-01T09:00:00+08:00"), Shanghai());
}

TEST(ParseTimeWords, TodayIsTheOwnersToday) {
  const UnixMs now = At("2026-06-19T20:00:00Z");  // already Saturday in Shanghai
  EXPECT_EQ(Days(ParseTimeWords("today", now, Shanghai()), Shanghai()), "2026-06-20..2026-06-20");
  EXPECT_EQ(Days(ParseTimeWords("today", now, TimeZone::Utc()), TimeZone::Utc()), "2026-06-19..2026-06-19");
}

TEST(ParseTimeWords, SpansAreLocalDaysAcrossDaylightSavingTime) {
  const TimeZone new_york = *TimeZone::Load("America/New_York");
  const TimeHint hint = ParseTimeWords("yesterday", At("2026-03-09T12:00:00-04:00"), new_york);
  EXPECT_EQ(hint.from, At("2026-03-08T00:00:00-05:00"));
  EXPECT_EQ(hint.to, At("2026-03-09T00:00:00-04:00"));  // a 23-hour day
}

TEST(ParseTimeWords, SeveralPhrasesCoverTheirUnion) {
  ExpectAll({
      {"上周三和昨天说的", "2026-06-10..2026-06-18", false, "上周三|昨天", "和说的"},
      {"yesterday or last Wednesday", "2026-06-17..2026-06-18", false, "yesterday|last Wednesday", "or"},
      {"what did we eat yesterday, and today?", "2026-06-18..2026-06-19", false, "yesterday|today",
       "what did we eat, and?"},
      // A vague word keeps its boost next to a span.
      {"最近 上周 跑步", "2026-06-08..2026-06-14", true, "最近|上周", "跑步"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, RestClosesUpWhereAPhraseWasCut) {
  ExpectAll({
      {"Yesterday, what did we eat", "2026-06-18..2026-06-18", false, "Yesterday", "what did we eat"},
      {"what did we eat, yesterday", "2026-06-18..2026-06-18", false, "yesterday", "what did we eat"},
      {"yesterday's meeting", "2026-06-18..2026-06-18", false, "yesterday's", "meeting"},
      {"  the   meeting   last   week  went  well ", "2026-06-08..2026-06-14", false, "last   week",
       "the   meeting went  well"},
      {"我们 昨天 去了哪", "2026-06-18..2026-06-18", false, "昨天", "我们 去了哪"},
      {"昨天，我们去了哪", "2026-06-18..2026-06-18", false, "昨天", "我们去了哪"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, NothingRecognisedLeavesTheQueryAsItIs) {
  ExpectAll({
      {"", "", false, "", ""},
      {"   ", "", false, "", "   "},
      {"🙂🙂", "", false, "", "🙂🙂"},
      {"Caroline  said  what?", "", false, "", "Caroline  said  what?"},
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, SurvivesEmojiAndBrokenUtf8) {
  ExpectAll({
      {"🙂昨天🙂", "2026-06-18..2026-06-18", false, "昨天", "🙂🙂"},
      {"\xff昨天\xfe", "2026-06-18..2026-06-18", false, "昨天", "\xff\xfe"},
      {"\xe6\x98", "", false, "", "\xe6\x98"},  // a truncated 昨
  }, kJuneFriday, Shanghai());
}

TEST(ParseTimeWords, FindsAPhraseInAHugeQuery) {
  std::string query;
  for (int i = 0; i < 5000; ++i) query += "跑步 and running ";
  query += "last week";
  const TimeHint hint = ParseTimeWords(query, kJuneFriday, Shanghai());
  EXPECT_EQ(Days(hint, Shanghai()), "2026-06-08..2026-06-14");
  EXPECT_EQ(Joined(hint.phrases), "last week");
  EXPECT_EQ(hint.rest, query.substr(0, query.size() - std::string(" last week").size()));
}

}  // namespace
}  // namespace cilia

namespace cilia {
namespace {

// Asked on Saturday 2026-06-20 (Shanghai): each shape of a question that is
// only a time, and its span.
TEST(AsksOnlyWhatWasSaid, EveryShapeOfATimeOnlyQuestion) {
  const TimeZone tz = Shanghai();
  const UnixMs now = At("2026-06-20T12:00:00+08:00");
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"昨天", "2026-06-19..2026-06-19"},
      {"昨天聊了什么", "2026-06-19..2026-06-19"},
      {"what did we talk about yesterday", "2026-06-19..2026-06-19"},
      {"上周三聊了什么", "2026-06-10..2026-06-10"},
      {"三天前我说了什么", "2026-06-17..2026-06-17"},
      {"上个月聊过什么", "2026-05-01..2026-05-31"},
      {"anything from last month", "2026-05-01..2026-05-31"},
      {"去年六月发生了什么", "2025-06-01..2025-06-30"},
      {"what happened last week?", "2026-06-08..2026-06-14"},
  };
  for (const auto& [query, days] : cases) {
    const TimeHint hint = ParseTimeWords(query, now, tz);
    EXPECT_EQ(Days(hint, tz), days) << query;
    EXPECT_TRUE(AsksOnlyWhatWasSaid(hint.rest)) << query << " → " << hint.rest;
  }
  // Under after/before, generic words alone ask for the span too.
  EXPECT_TRUE(AsksOnlyWhatWasSaid("what happened"));
  EXPECT_TRUE(AsksOnlyWhatWasSaid("发生了什么"));
  EXPECT_TRUE(AsksOnlyWhatWasSaid(""));
}

TEST(AsksOnlyWhatWasSaid, AQuestionAboutSomethingIsNot) {
  EXPECT_FALSE(AsksOnlyWhatWasSaid("跑了多少公里"));
  EXPECT_FALSE(AsksOnlyWhatWasSaid("我家猫叫什么"));
  EXPECT_FALSE(AsksOnlyWhatWasSaid("what did we say about the marathon"));
  EXPECT_FALSE(AsksOnlyWhatWasSaid("聊了什么电影"));
}

}  // namespace
}  // namespace cilia
