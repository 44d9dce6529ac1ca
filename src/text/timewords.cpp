#include "text/timewords.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <set>
#include <string>

#include "text/segmenter.h"
#include "text/utf8.h"

namespace cilia {
namespace {

// Local days [from, to).
struct DaySpan {
  CivilDate from;
  CivilDate to;
};

// What one recognised phrase means: a span of days, or only "recently".
struct Meaning {
  std::optional<DaySpan> span;
  bool recent = false;
};

// How many units back; a vague count ("a few", "几", "十几") is a range.
struct Count {
  int lo;
  int hi;
};
// "a few days", "几天": up to a week, yesterday included.
constexpr Count kFew{1, 7};

// A count widened by "多" ("十多天" 10..19, "一个多月" 1..2).
Count More(Count n) { return n.hi % 10 == 0 ? Count{n.lo, n.hi + 9} : Count{n.lo, n.hi + 1}; }

enum class Unit { kDay, kWeek, kMonth, kYear };

// Which part of a month or year: early/上旬/初, mid/中旬, late/下旬/底.
enum class Part { kWhole, kEarly, kMid, kLate };

// Chat archives start around 2000: an older year in a query is about the
// content ("born in 1985"), and one after next year is no message's year.
bool PlausibleYear(int year, CivilDate today) { return year >= 2000 && year <= today.year + 1; }

DaySpan OneDay(CivilDate day) { return {day, AddDays(day, 1)}; }

CivilDate MondayOf(CivilDate day) { return AddDays(day, 1 - Weekday(day)); }

DaySpan WeekStartingOn(CivilDate monday) { return {monday, AddDays(monday, 7)}; }

DaySpan WholeMonth(int year, int month) {
  const CivilDate first{year, month, 1};
  return {first, AddMonths(first, 1)};
}

DaySpan WholeYear(int year) { return {{year, 1, 1}, {year + 1, 1, 1}}; }

// A month's days 1–10, 11–20 or 21–end.
DaySpan PartOfMonth(int year, int month, Part part) {
  const DaySpan whole = WholeMonth(year, month);
  switch (part) {
    case Part::kWhole: return whole;
    case Part::kEarly: return {whole.from, {year, month, 11}};
    case Part::kMid: return {{year, month, 11}, {year, month, 21}};
    case Part::kLate: return {{year, month, 21}, whole.to};
  }
  return whole;
}

// A year's thirds: January–April, May–August, September–December.
DaySpan PartOfYear(int year, Part part) {
  switch (part) {
    case Part::kWhole: return WholeYear(year);
    case Part::kEarly: return {{year, 1, 1}, {year, 5, 1}};
    case Part::kMid: return {{year, 5, 1}, {year, 9, 1}};
    case Part::kLate: return {{year, 9, 1}, {year + 1, 1, 1}};
  }
  return WholeYear(year);
}

CivilDate Shift(CivilDate day, int n, Unit unit) {
  switch (unit) {
    case Unit::kDay: return AddDays(day, n);
    case Unit::kWeek: return AddDays(day, 7 * n);
    case Unit::kMonth: return AddMonths(day, n);
    case Unit::kYear: return AddMonths(day, 12 * n);
  }
  return day;
}

// The calendar day, week (Monday first), month or year holding `day`.
DaySpan UnitHolding(CivilDate day, Unit unit) {
  switch (unit) {
    case Unit::kDay: return OneDay(day);
    case Unit::kWeek: return WeekStartingOn(MondayOf(day));
    case Unit::kMonth: return WholeMonth(day.year, day.month);
    case Unit::kYear: return WholeYear(day.year);
  }
  return OneDay(day);
}

// "3 days ago", "两周前": the calendar unit(s) that far back.
DaySpan Ago(CivilDate today, Count n, Unit unit) {
  return {UnitHolding(Shift(today, -n.hi, unit), unit).from, UnitHolding(Shift(today, -n.lo, unit), unit).to};
}

// "the past 3 days", "最近三个月": back that far, through today.
DaySpan Within(CivilDate today, Count n, Unit unit) { return {Shift(today, -n.hi, unit), AddDays(today, 1)}; }

// A month named without a year: this year's if it has begun, else last year's.
int YearOfLatest(CivilDate today, int month) { return month <= today.month ? today.year : today.year - 1; }

// A month and day named without a year: the latest such day up to today (a
// 29 February goes back to the last leap year).
std::optional<CivilDate> LatestDate(CivilDate today, int month, int day) {
  if (month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
  int year = CivilDate{today.year, month, day} <= today ? today.year : today.year - 1;
  for (int tries = 0; tries < 8; ++tries, --year) {
    if (day <= DaysInMonth(year, month)) return CivilDate{year, month, day};
  }
  return std::nullopt;
}

// The latest such weekday (1 = Monday) before today: one to seven days back.
CivilDate LatestWeekday(CivilDate today, int weekday) {
  const int back = (Weekday(today) - weekday + 7) % 7;
  return AddDays(today, -(back == 0 ? 7 : back));
}

bool IsAsciiAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// A position in the lowercased query. Every matching method either consumes
// what it matched or leaves the position where it was; a rule works on a copy,
// so a rule that fails part-way leaves nothing behind.
class Cursor {
 public:
  // `original` is the query as written, byte for byte the same length.
  Cursor(std::string_view text, std::string_view original, size_t pos) : text_(text), original_(original), pos_(pos) {}

  size_t pos() const { return pos_; }

  // Whether the query as written has a lowercase letter at `at`.
  bool LowercaseInOriginal(size_t at) const { return original_[at] >= 'a' && original_[at] <= 'z'; }

  // Exact bytes (Chinese, punctuation).
  bool Lit(std::string_view s) {
    if (!text_.substr(pos_).starts_with(s)) return false;
    pos_ += s.size();
    return true;
  }

  // The index of the first option that Lit matches, or -1.
  int LitOneOf(std::initializer_list<std::string_view> options) {
    int index = 0;
    for (std::string_view option : options) {
      if (Lit(option)) return index;
      ++index;
    }
    return -1;
  }

  // English words after optional spaces, ending at a word boundary. A space in
  // `words` stands for one or more spaces.
  bool Word(std::string_view words) {
    Cursor probe = *this;
    while (!words.empty()) {
      probe.SkipSpaces();
      const size_t space = words.find(' ');
      if (!probe.Lit(words.substr(0, space)) || !probe.AtWordBoundary()) return false;
      words = space == std::string_view::npos ? std::string_view() : words.substr(space + 1);
    }
    *this = probe;
    return true;
  }

  // The index of the first option that Word matches, or -1.
  int WordOneOf(std::initializer_list<std::string_view> options) {
    int index = 0;
    for (std::string_view option : options) {
      if (Word(option)) return index;
      ++index;
    }
    return -1;
  }

  // min_digits..max_digits ASCII digits after optional spaces, not followed by
  // another digit.
  std::optional<int> Number(int min_digits, int max_digits, bool skip_spaces = false) {
    Cursor probe = *this;
    if (skip_spaces) probe.SkipSpaces();
    int value = 0;
    int digits = 0;
    while (probe.pos_ < text_.size() && IsAsciiDigit(text_[probe.pos_])) {
      if (++digits > max_digits) return std::nullopt;
      value = value * 10 + (text_[probe.pos_++] - '0');
    }
    if (digits < min_digits) return std::nullopt;
    *this = probe;
    return value;
  }

  bool AtWordBoundary() const { return pos_ == text_.size() || !IsAsciiAlnum(text_[pos_]); }

  // Whether the character just before / at the position is one of `chars`
  // (a UTF-8 string of candidates).
  bool PrevIsOneOf(std::string_view chars) const {
    const std::string_view prev = PrevChar();
    return !prev.empty() && chars.find(prev) != std::string_view::npos;
  }
  bool NextIsOneOf(std::string_view chars) const {
    if (pos_ == text_.size()) return false;
    size_t end = pos_ + 1;
    while (end < text_.size() && IsContinuationByte(text_[end])) ++end;
    return chars.find(text_.substr(pos_, end - pos_)) != std::string_view::npos;
  }

  std::string_view PrevChar() const {
    size_t begin = pos_;
    while (begin > 0 && pos_ - begin < 4) {
      --begin;
      if (!IsContinuationByte(text_[begin])) break;
    }
    return text_.substr(begin, pos_ - begin);
  }

 private:
  void SkipSpaces() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }

  std::string_view text_;
  std::string_view original_;
  size_t pos_;
};

// ---- English ---------------------------------------------------------------

constexpr std::array<std::string_view, 12> kEnglishMonths = {
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december"};

constexpr std::array<std::string_view, 7> kEnglishWeekdays = {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};

constexpr std::array<std::string_view, 12> kEnglishNumbers = {
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"};

// The index (0-based) of the first word in `words` that Word matches, or -1.
template <size_t N>
int WordIn(Cursor& c, const std::array<std::string_view, N>& words) {
  for (size_t i = 0; i < N; ++i) {
    if (c.Word(words[i])) return static_cast<int>(i);
  }
  return -1;
}

struct MonthName {
  int month;         // 1..12
  bool abbreviated;  // "mar", not "march"
  bool maybe_verb;   // "may" or "march" in lowercase
};

std::optional<MonthName> EnglishMonth(Cursor& c) {
  if (const int full = WordIn(c, kEnglishMonths); full >= 0) {
    const size_t start = c.pos() - kEnglishMonths[full].size();
    const bool verb_spelling = full == 2 || full == 4;
    return MonthName{full + 1, false, verb_spelling && c.LowercaseInOriginal(start)};
  }
  static constexpr std::array<std::string_view, 12> kShort = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  int index = WordIn(c, kShort);
  if (index < 0 && c.Word("sept")) index = 8;
  if (index < 0) return std::nullopt;
  c.Lit(".");
  return MonthName{index + 1, true, false};
}

// Four digits. The caller checks PlausibleYear: a phrase with a year no
// message can have ("born May 8, 1985") is no time word, not a bare "May 8".
std::optional<int> EnglishYear(Cursor& c) {
  Cursor probe = c;
  const std::optional<int> year = probe.Number(4, 4, /*skip_spaces=*/true);
  if (!year || !probe.AtWordBoundary()) return std::nullopt;
  c = probe;
  return year;
}

struct DayOfMonth {
  int day;
  bool ordinal;  // "8th"
};

// "8", "8th", "21st".
std::optional<DayOfMonth> EnglishDayOfMonth(Cursor& c) {
  Cursor probe = c;
  const std::optional<int> day = probe.Number(1, 2, /*skip_spaces=*/true);
  if (!day || *day < 1 || *day > 31) return std::nullopt;
  const bool ordinal = probe.LitOneOf({"st", "nd", "rd", "th"}) >= 0;
  if (!probe.AtWordBoundary()) return std::nullopt;
  c = probe;
  return DayOfMonth{*day, ordinal};
}

std::optional<Count> EnglishCount(Cursor& c) {
  if (c.WordOneOf({"a couple of", "couple of", "a couple"}) >= 0) return Count{2, 3};
  if (c.WordOneOf({"a few", "few", "several"}) >= 0) return kFew;
  if (const std::optional<int> n = c.Number(1, 3, /*skip_spaces=*/true); n && c.AtWordBoundary()) return Count{*n, *n};
  if (const int word = WordIn(c, kEnglishNumbers); word >= 0) return Count{word + 1, word + 1};
  if (c.WordOneOf({"a", "an"}) >= 0) return Count{1, 1};
  return std::nullopt;
}

std::optional<Unit> EnglishUnit(Cursor& c) {
  static constexpr Unit kUnits[] = {Unit::kDay, Unit::kWeek, Unit::kMonth, Unit::kYear};
  const int index = c.WordOneOf({"days", "day", "weeks", "week", "months", "month", "years", "year"});
  if (index < 0) return std::nullopt;
  return kUnits[index / 2];
}

Part EnglishPart(Cursor& c) {
  Part part = Part::kWhole;
  if (c.WordOneOf({"early", "the beginning of", "beginning of", "the start of", "start of"}) >= 0) {
    part = Part::kEarly;
  } else if (c.WordOneOf({"mid", "the middle of", "middle of"}) >= 0) {
    part = Part::kMid;
  } else if (c.WordOneOf({"late", "the end of", "end of"}) >= 0) {
    part = Part::kLate;
  }
  if (part != Part::kWhole) c.Lit("-");  // "mid-March"
  return part;
}

// today, yesterday, the day before yesterday, tonight, this morning, last night
std::optional<Meaning> EnglishDayWord(Cursor& c, CivilDate today) {
  if (c.WordOneOf({"the day before yesterday", "day before yesterday"}) >= 0) return Meaning{OneDay(AddDays(today, -2))};
  if (c.Word("yesterday")) return Meaning{OneDay(AddDays(today, -1))};
  if (c.WordOneOf({"today", "tonight", "this morning", "this afternoon", "this evening"}) >= 0) {
    return Meaning{OneDay(today)};
  }
  // Last night runs past midnight, so it keeps the small hours of today.
  if (c.Word("last night")) return Meaning{DaySpan{AddDays(today, -1), AddDays(today, 1)}};
  return std::nullopt;
}

// 3 days ago, two weeks ago, a month ago, a few years ago
std::optional<Meaning> EnglishAgo(Cursor& c, CivilDate today) {
  const std::optional<Count> n = EnglishCount(c);
  if (!n) return std::nullopt;
  const std::optional<Unit> unit = EnglishUnit(c);
  if (!unit || !c.Word("ago")) return std::nullopt;
  return Meaning{Ago(today, *n, *unit)};
}

// the past week, (in) the last 3 days, past two months
std::optional<Meaning> EnglishWithin(Cursor& c, CivilDate today) {
  c.WordOneOf({"in the", "over the", "during the", "within the", "for the", "the"});
  const int which = c.WordOneOf({"past", "last"});
  if (which < 0) return std::nullopt;
  const std::optional<Count> n = EnglishCount(c);
  const std::optional<Unit> unit = EnglishUnit(c);
  // "last" needs a count: "last week" is the calendar week (EnglishCalendar),
  // and "the last day of the trip" no time word at all.
  if (!unit || (!n && which == 1)) return std::nullopt;
  return Meaning{Within(today, n.value_or(Count{1, 1}), *unit)};
}

// last/this/next week, weekend, month, year
std::optional<Meaning> EnglishCalendar(Cursor& c, CivilDate today) {
  const int which = c.WordOneOf({"last", "this", "next"});
  if (which < 0) return std::nullopt;
  const int offset = which - 1;
  const CivilDate monday = AddDays(MondayOf(today), 7 * offset);
  switch (c.WordOneOf({"weekend", "week", "month", "year"})) {
    case 0: return Meaning{DaySpan{AddDays(monday, 5), AddDays(monday, 7)}};
    case 1: return Meaning{WeekStartingOn(monday)};
    case 2: {
      const CivilDate month = AddMonths(today, offset);
      return Meaning{WholeMonth(month.year, month.month)};
    }
    case 3: return Meaning{WholeYear(today.year + offset)};
    default: return std::nullopt;
  }
}

// (last|on) Wednesday: the latest one before today; this/next Wednesday: in
// this/next week.
std::optional<Meaning> EnglishWeekday(Cursor& c, CivilDate today) {
  const int which = c.WordOneOf({"last", "on", "this", "next"});
  const int weekday = WordIn(c, kEnglishWeekdays) + 1;
  if (weekday == 0) return std::nullopt;
  if (which >= 2) return Meaning{OneDay(AddDays(MondayOf(today), 7 * (which - 2) + weekday - 1))};
  return Meaning{OneDay(LatestWeekday(today, weekday))};
}

// (on) May 8(th)(, 2023); (on) (the) 8(th) (of) May (2023)
std::optional<Meaning> EnglishDate(Cursor& c, CivilDate today) {
  const bool with_on = c.Word("on");
  c.Word("the");
  std::optional<DayOfMonth> day = EnglishDayOfMonth(c);
  std::optional<MonthName> month;
  if (day) {
    c.Word("of");
    month = EnglishMonth(c);
  } else {
    month = EnglishMonth(c);
    if (month) day = EnglishDayOfMonth(c);
  }
  if (!month || !day) return std::nullopt;
  Cursor probe = c;
  probe.Lit(",");
  const std::optional<int> year = EnglishYear(probe);
  if (year && !PlausibleYear(*year, today)) return std::nullopt;
  if (year) c = probe;
  // "may 5 people": a lowercase may or march with a bare number is a verb.
  if (month->maybe_verb && !with_on && !day->ordinal && !year) return std::nullopt;
  if (year) {
    if (day->day > DaysInMonth(*year, month->month)) return std::nullopt;
    return Meaning{OneDay({*year, month->month, day->day})};
  }
  const std::optional<CivilDate> date = LatestDate(today, month->month, day->day);
  if (!date) return std::nullopt;
  return Meaning{OneDay(*date)};
}

// in/during May, in May 2023, May 2023, last March, March last year, early/mid/late March,
// the end of last month, early this year, in 2023
std::optional<Meaning> EnglishMonthOrYear(Cursor& c, CivilDate today) {
  const bool with_in = c.WordOneOf({"in", "during"}) >= 0;
  const Part part = EnglishPart(c);
  if (part != Part::kWhole) {
    if (const int rel = c.WordOneOf({"last month", "this month", "next month"}); rel >= 0) {
      const CivilDate month = AddMonths(today, rel - 1);
      return Meaning{PartOfMonth(month.year, month.month, part)};
    }
    if (const int rel = c.WordOneOf({"last year", "this year", "next year"}); rel >= 0) {
      return Meaning{PartOfYear(today.year + rel - 1, part)};
    }
  }
  if (with_in || part != Part::kWhole) {
    if (const std::optional<int> year = EnglishYear(c)) {
      if (!PlausibleYear(*year, today)) return std::nullopt;
      return Meaning{PartOfYear(*year, part)};
    }
  }
  const bool last = c.Word("last");
  const std::optional<MonthName> name = EnglishMonth(c);
  if (!name) return std::nullopt;
  const int month = name->month;
  std::optional<int> year = EnglishYear(c);
  if (year && !PlausibleYear(*year, today)) return std::nullopt;
  if (!year) {
    const int rel = c.WordOneOf({"last year", "of last year", "this year", "of this year"});
    if (rel >= 0) year = today.year - (rel < 2 ? 1 : 0);
  }
  // Alone, "may" and "march" are more often verbs, and "mar" or "jan" anything.
  if (!year && (name->abbreviated || (!with_in && !last && part == Part::kWhole))) return std::nullopt;
  if (!year) year = last ? (month < today.month ? today.year : today.year - 1) : YearOfLatest(today, month);
  return Meaning{PartOfMonth(*year, month, part)};
}

// recently, lately, a while ago; the other day (a span: the week before today)
std::optional<Meaning> EnglishVague(Cursor& c, CivilDate today) {
  if (c.WordOneOf({"recently", "lately", "a while ago", "a while back", "some time ago", "not long ago"}) >= 0) {
    return Meaning{std::nullopt, /*recent=*/true};
  }
  if (c.Word("the other day")) return Meaning{DaySpan{AddDays(today, -7), today}};
  return std::nullopt;
}

// ---- Dates in digits -------------------------------------------------------

// 2023-05-08, 2023/5/8, 2023.05.08
std::optional<Meaning> DigitDate(Cursor& c, CivilDate today) {
  const std::optional<int> year = c.Number(4, 4);
  if (!year || !PlausibleYear(*year, today)) return std::nullopt;
  const int separator = c.LitOneOf({"-", "/", "."});
  if (separator < 0) return std::nullopt;
  const std::optional<int> month = c.Number(1, 2);
  if (!month || c.LitOneOf({"-", "/", "."}) != separator) return std::nullopt;
  const std::optional<int> day = c.Number(1, 2);
  if (!day || *month < 1 || *month > 12 || *day < 1 || *day > DaysInMonth(*year, *month)) return std::nullopt;
  return Meaning{OneDay({*year, *month, *day})};
}

// ---- Chinese ---------------------------------------------------------------

constexpr std::string_view kHanNumerals = "一二两三四五六七八九十几";
// Words ending in 前 that are not "before": 目前, 之前, 以前, 提前, 当前 … so
// 目前天气 holds no 前天 and 目前年龄 no 前年.
constexpr std::string_view kBeforeQian = "目之以提当眼面跟门从事生空日先此年睡饭考会婚产课赛战";
// 马上, 早上, 晚上: 上 there is not "last".
constexpr std::string_view kBeforeShang = "马早晚";
// 一下, 看了下: 下 there is not "next".
constexpr std::string_view kBeforeXia = "一了";
// 日本, 基本, 成本 …: 本 there is not "this".
constexpr std::string_view kBeforeBen = "日基根成资版书课样剧账标原脚";
// 周围, 周到, 周年, 周期 …: 周 there is not "week".
constexpr std::string_view kAfterZhou = "围边到遭全期转岁年游密长折身刊";
// 周一次, 上周三天, 上周一起, 周三个人: the numeral is a count, not a weekday.
constexpr std::string_view kAfterWeekday = "次遍回趟起天个位份";
// A bare 月初 or 年底 must start a word: after these, or after no Han at all
// (岁月中, 一年中 are not time words).
constexpr std::string_view kBeforeBarePart = "在到从于是那这的了";

std::optional<int> HanDigit(Cursor& c) {
  const int index = c.LitOneOf({"一", "二", "两", "三", "四", "五", "六", "七", "八", "九"});
  if (index < 0) return std::nullopt;
  return index <= 1 ? index + 1 : index;  // 两 is 2 as well
}

// 1..99 in Han numerals: 三, 十, 十二, 二十, 三十一.
std::optional<int> HanNumber(Cursor& c) {
  Cursor probe = c;
  const std::optional<int> tens = HanDigit(probe);
  if (!probe.Lit("十")) {
    if (tens) c = probe;
    return tens;
  }
  const int value = tens.value_or(1) * 10 + HanDigit(probe).value_or(0);
  c = probe;
  return value;
}

std::optional<int> ChineseNumber(Cursor& c, int max_digits) {
  if (const std::optional<int> n = c.Number(1, max_digits)) return n;
  return HanNumber(c);
}

// 3, 三, 十几, 两三, 几, 好几
std::optional<Count> ChineseCount(Cursor& c) {
  if (c.LitOneOf({"好几", "几"}) >= 0) return kFew;
  const std::optional<int> n = ChineseNumber(c, 3);
  if (!n || *n == 0) return std::nullopt;
  if (*n % 10 == 0 && c.Lit("几")) return Count{*n + 1, *n + 9};
  if (*n < 10) {
    Cursor probe = c;
    if (const std::optional<int> upper = HanDigit(probe); upper && *upper > *n && *upper - *n <= 2) {
      c = probe;
      return Count{*n, *upper};
    }
  }
  return Count{*n, *n};
}

// 周 meaning "week" (not 周围, 周到 …).
bool Zhou(Cursor& c) {
  Cursor probe = c;
  if (!probe.Lit("周") || probe.NextIsOneOf(kAfterZhou)) return false;
  c = probe;
  return true;
}

bool WeekWord(Cursor& c) { return Zhou(c) || c.LitOneOf({"星期", "礼拜"}) >= 0; }

// 一..六, 日/天: 1 = Monday .. 7 = Sunday.
std::optional<int> HanWeekday(Cursor& c) {
  Cursor probe = c;
  const int index = probe.LitOneOf({"一", "二", "三", "四", "五", "六", "日", "天"});
  if (index < 0 || probe.NextIsOneOf(kAfterWeekday)) return std::nullopt;
  c = probe;
  return std::min(index + 1, 7);
}

// Units after a Chinese count; `measured` says a 个 came first (个月, 个星期).
std::optional<Unit> ChineseUnit(Cursor& c, bool measured) {
  if (!measured && c.LitOneOf({"天", "日"}) >= 0) return Unit::kDay;
  if (WeekWord(c)) return Unit::kWeek;
  if (measured && c.Lit("月")) return Unit::kMonth;
  if (!measured && c.Lit("年")) return Unit::kYear;
  return std::nullopt;
}

Part ChinesePart(Cursor& c) {
  static constexpr Part kParts[] = {Part::kEarly, Part::kMid, Part::kLate, Part::kEarly,
                                    Part::kMid, Part::kLate, Part::kLate};
  const int index = c.LitOneOf({"上旬", "中旬", "下旬", "初", "中", "底", "末"});
  return index < 0 ? Part::kWhole : kParts[index];
}

// What may follow a month: a day (5号, 八日), a part (初, 中旬, 月底), or nothing.
// Without `year`, a day is the latest such date and a month the latest such month.
std::optional<Meaning> ChineseMonthTail(Cursor& c, CivilDate today, std::optional<int> year, int month) {
  {
    Cursor probe = c;
    const std::optional<int> day = ChineseNumber(probe, 2);
    if (day && probe.LitOneOf({"号", "日"}) >= 0) {
      c = probe;
      if (!year) {
        const std::optional<CivilDate> date = LatestDate(today, month, *day);
        if (!date) return std::nullopt;
        return Meaning{OneDay(*date)};
      }
      if (*day < 1 || *day > DaysInMonth(*year, month)) return std::nullopt;
      return Meaning{OneDay({*year, month, *day})};
    }
  }
  const int resolved_year = year.value_or(YearOfLatest(today, month));
  Cursor probe = c;
  probe.Lit("月");  // 上个月月中
  if (const Part part = ChinesePart(probe); part != Part::kWhole) {
    c = probe;
    return Meaning{PartOfMonth(resolved_year, month, part)};
  }
  return Meaning{WholeMonth(resolved_year, month)};
}

// 今天 昨天 前天 大前天 今晚 昨晚
std::optional<Meaning> ChineseDayWord(Cursor& c, CivilDate today) {
  if (c.Lit("大前天")) return Meaning{OneDay(AddDays(today, -3))};
  if (!c.PrevIsOneOf(kBeforeQian) && c.Lit("前天")) return Meaning{OneDay(AddDays(today, -2))};
  // Last night runs past midnight, so it keeps the small hours of today.
  if (c.LitOneOf({"昨天晚上", "昨天夜里", "昨晚", "昨夜"}) >= 0) {
    return Meaning{DaySpan{AddDays(today, -1), AddDays(today, 1)}};
  }
  if (c.LitOneOf({"昨天", "昨日", "昨儿"}) >= 0) return Meaning{OneDay(AddDays(today, -1))};
  if (c.LitOneOf({"今天", "今日", "今儿", "今早", "今晨", "今晚", "今夜"}) >= 0) return Meaning{OneDay(today)};
  return std::nullopt;
}

// 上周 这周 本周 下周 上上周 上个星期 上礼拜, with a weekday (上周三) or 末 (上周末)
std::optional<Meaning> ChineseWeek(Cursor& c, CivilDate today) {
  int offset = 0;
  if (!c.PrevIsOneOf(kBeforeShang) && c.Lit("上上")) {
    offset = -2;
  } else if (!c.PrevIsOneOf(kBeforeShang) && c.Lit("上")) {
    offset = -1;
  } else if (!c.PrevIsOneOf(kBeforeXia) && c.Lit("下")) {
    offset = 1;
  } else if (!(c.Lit("这") || (!c.PrevIsOneOf(kBeforeBen) && c.Lit("本")))) {
    return std::nullopt;
  }
  c.Lit("个");
  if (!WeekWord(c)) return std::nullopt;
  const CivilDate monday = AddDays(MondayOf(today), 7 * offset);
  if (const std::optional<int> weekday = HanWeekday(c)) return Meaning{OneDay(AddDays(monday, *weekday - 1))};
  if (c.Lit("末")) return Meaning{DaySpan{AddDays(monday, 5), AddDays(monday, 7)}};
  return Meaning{WeekStartingOn(monday)};
}

// 周三 星期三 礼拜天: the latest one before today
std::optional<Meaning> ChineseBareWeekday(Cursor& c, CivilDate today) {
  if (c.PrevIsOneOf("每个") || c.PrevIsOneOf(kHanNumerals)) return std::nullopt;  // 每周三, 一周三次
  if (!WeekWord(c)) return std::nullopt;
  const std::optional<int> weekday = HanWeekday(c);
  if (!weekday) return std::nullopt;
  return Meaning{OneDay(LatestWeekday(today, *weekday))};
}

// 上个月 这个月 本月 下个月 上上个月, with a part (上个月月中) or a day (上个月5号)
std::optional<Meaning> ChineseRelativeMonth(Cursor& c, CivilDate today) {
  int offset = 0;
  if (!c.PrevIsOneOf(kBeforeShang) && c.LitOneOf({"上上个月", "上上月"}) >= 0) {
    offset = -2;
  } else if (!c.PrevIsOneOf(kBeforeShang) && c.LitOneOf({"上个月", "上月"}) >= 0) {
    offset = -1;
  } else if (!c.PrevIsOneOf(kBeforeXia) && c.LitOneOf({"下个月", "下月"}) >= 0) {
    offset = 1;
  } else if (!(c.LitOneOf({"这个月", "这月"}) >= 0 || (!c.PrevIsOneOf(kBeforeBen) && c.Lit("本月")))) {
    return std::nullopt;
  }
  const CivilDate month = AddMonths(today, offset);
  return ChineseMonthTail(c, today, month.year, month.month);
}

// 2026年, 今年, 去年, 前年, 大前年, 明年
std::optional<int> ChineseYear(Cursor& c, CivilDate today) {
  Cursor probe = c;
  if (const std::optional<int> year = probe.Number(4, 4); year && probe.Lit("年")) {
    if (!PlausibleYear(*year, today)) return std::nullopt;
    c = probe;
    return year;
  }
  if (c.Lit("大前年")) return today.year - 3;
  if (!c.PrevIsOneOf(kBeforeQian) && c.Lit("前年")) return today.year - 2;
  static constexpr int kOffsets[] = {-1, 0, 1};
  if (const int index = c.LitOneOf({"去年", "今年", "明年"}); index >= 0) return today.year + kOffsets[index];
  return std::nullopt;
}

// 三月 3月 三月份 十二月, after an optional year (去年三月, 2026年5月8日), with a day or a part
std::optional<Meaning> ChineseMonth(Cursor& c, CivilDate today) {
  const std::optional<int> year = ChineseYear(c, today);
  // 十二月 holds no 二月, and 1985年5月 (a year no message has) no 5月.
  if (!year && (c.PrevIsOneOf(kHanNumerals) || c.PrevIsOneOf("年"))) return std::nullopt;
  const std::optional<int> month = ChineseNumber(c, 2);
  if (!month || *month < 1 || *month > 12 || !c.Lit("月")) return std::nullopt;
  c.Lit("份");
  return ChineseMonthTail(c, today, year, *month);
}

// 去年, 今年初, 2023年底, 去年年中
std::optional<Meaning> ChineseYearPhrase(Cursor& c, CivilDate today) {
  const std::optional<int> year = ChineseYear(c, today);
  if (!year) return std::nullopt;
  static constexpr Part kParts[] = {Part::kEarly, Part::kMid, Part::kLate, Part::kLate,
                                    Part::kEarly, Part::kLate, Part::kLate};
  const int index = c.LitOneOf({"年初", "年中", "年底", "年末", "初", "底", "末"});
  return Meaning{PartOfYear(*year, index < 0 ? Part::kWhole : kParts[index])};
}

// 月初 月中 月底 上旬 下旬: this month's; 年初 年底: this year's
std::optional<Meaning> ChineseBarePart(Cursor& c, CivilDate today) {
  const std::string_view prev = c.PrevChar();
  size_t decoded = 0;
  if (!prev.empty() && text::IsHan(text::NextCodePoint(prev, &decoded)) && !c.PrevIsOneOf(kBeforeBarePart)) {
    return std::nullopt;
  }
  static constexpr Part kMonthParts[] = {Part::kEarly, Part::kEarly, Part::kMid,  Part::kMid, Part::kLate,
                                         Part::kLate,  Part::kLate,  Part::kEarly, Part::kMid, Part::kLate};
  const int month_part = c.LitOneOf({"月初", "月上旬", "月中旬", "月中", "月下旬", "月底", "月末", "上旬", "中旬", "下旬"});
  if (month_part >= 0) return Meaning{PartOfMonth(today.year, today.month, kMonthParts[month_part])};
  static constexpr Part kYearParts[] = {Part::kEarly, Part::kMid, Part::kLate, Part::kLate};
  const int year_part = c.LitOneOf({"年初", "年中", "年底", "年末"});
  if (year_part >= 0) return Meaning{PartOfYear(today.year, kYearParts[year_part])};
  return std::nullopt;
}

// 3天前 两周前 一个多月前 半个月前 十几天前 几年前
std::optional<Meaning> ChineseAgo(Cursor& c, CivilDate today) {
  const bool half = c.Lit("半");
  const std::optional<Count> n = half ? std::nullopt : ChineseCount(c);
  if (!half && !n) return std::nullopt;
  bool more = c.Lit("多");
  const bool measured = c.Lit("个");
  more = c.Lit("多") || more;
  const std::optional<Unit> unit = ChineseUnit(c, measured);
  if (!unit || c.LitOneOf({"之前", "以前", "前"}) < 0) return std::nullopt;
  if (half) {
    // 半个月: ten to twenty days back; 半年: six months back.
    if (*unit == Unit::kMonth) return Meaning{Ago(today, Count{10, 20}, Unit::kDay)};
    if (*unit == Unit::kYear) return Meaning{Ago(today, Count{6, 6}, Unit::kMonth)};
    return std::nullopt;
  }
  return Meaning{Ago(today, more ? More(*n) : *n, *unit)};
}

// 最近三天 近两周 过去一个月 这两天 最近几天
std::optional<Meaning> ChineseWithin(Cursor& c, CivilDate today) {
  if (c.PrevIsOneOf("接附靠亲将")) return std::nullopt;  // 接近三天 is "nearly three days"
  if (c.LitOneOf({"最近这", "最近的", "最近", "过去的", "过去", "近", "这"}) < 0) return std::nullopt;
  const std::optional<Count> n = ChineseCount(c);
  if (!n) return std::nullopt;
  const std::optional<Unit> unit = ChineseUnit(c, c.Lit("个"));
  if (!unit) return std::nullopt;
  c.LitOneOf({"以来", "之内", "内", "里"});
  return Meaning{Within(today, *n, *unit)};
}

// 前几天 前两天 前些天: the days just before today
std::optional<Meaning> ChinesePreviousDays(Cursor& c, CivilDate today) {
  if (c.PrevIsOneOf(kBeforeQian) || !c.Lit("前")) return std::nullopt;
  const std::optional<Count> n = c.Lit("些") ? std::optional<Count>(kFew) : ChineseCount(c);
  if (!n || !c.Lit("天")) return std::nullopt;
  return Meaning{DaySpan{AddDays(today, -n->hi), today}};
}

// 最近 近来 这阵子 那阵子 前阵子 前段时间 …: no filter, a recency boost
std::optional<Meaning> ChineseVague(Cursor& c, CivilDate) {
  if (c.LitOneOf({"最近一段时间", "最近这段时间", "这段时间", "那段时间", "这阵子", "那阵子", "这一阵", "那一阵",
                  "最近", "近来", "近期", "不久前"}) >= 0) {
    return Meaning{std::nullopt, /*recent=*/true};
  }
  if (!c.PrevIsOneOf(kBeforeQian) &&
      c.LitOneOf({"前段时间", "前一段时间", "前些日子", "前一阵子", "前阵子", "前一阵", "前不久"}) >= 0) {
    return Meaning{std::nullopt, /*recent=*/true};
  }
  return std::nullopt;
}

// ---- Finding phrases --------------------------------------------------------

using Rule = std::optional<Meaning> (*)(Cursor&, CivilDate);

constexpr Rule kRules[] = {
    EnglishDayWord, EnglishAgo,         EnglishWithin,       EnglishCalendar,     EnglishWeekday,
    EnglishDate,    EnglishMonthOrYear, EnglishVague,        DigitDate,           ChineseDayWord,
    ChineseWeek,    ChineseBareWeekday, ChineseRelativeMonth, ChineseMonth,       ChineseYearPhrase,
    ChineseBarePart, ChineseAgo,        ChineseWithin,       ChinesePreviousDays, ChineseVague,
};

struct Found {
  size_t begin;
  size_t end;
  Meaning meaning;
};

// The longest phrase any rule reads at `begin`. Words and numbers are only
// read from their start ("12" holds no "2", "today" is not in "todays").
std::optional<Found> LongestAt(std::string_view lower, std::string_view query, size_t begin, CivilDate today) {
  if (IsSpace(lower[begin])) return std::nullopt;
  if (begin > 0 && IsAsciiAlnum(lower[begin]) && IsAsciiAlnum(lower[begin - 1])) return std::nullopt;
  std::optional<Found> best;
  for (const Rule rule : kRules) {
    Cursor c(lower, query, begin);
    std::optional<Meaning> meaning = rule(c, today);
    if (meaning && c.pos() > begin && (!best || c.pos() > best->end)) best = Found{begin, c.pos(), *meaning};
  }
  if (best) {
    // "yesterday's" is taken whole, so the rest keeps no stray "'s".
    Cursor possessive(lower, query, best->end);
    if (possessive.LitOneOf({"'s", "’s"}) >= 0 && possessive.AtWordBoundary()) best->end = possessive.pos();
  }
  return best;
}

std::string AsciiLower(std::string_view text) {
  std::string lower(text);
  for (char& ch : lower) {
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  }
  return lower;
}

// Whether `text` starts with punctuation that hugs the word before it.
bool StartsWithClosingPunctuation(std::string_view text) {
  if (!text.empty() && std::string_view(",.;:?!)").find(text.front()) != std::string_view::npos) return true;
  for (std::string_view mark : {"，", "。", "；", "：", "？", "！", "、", "）"}) {
    if (text.starts_with(mark)) return true;
  }
  return false;
}

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Drops a separator left dangling at either end once a phrase is cut out
// ("yesterday, what did we eat" → "what did we eat").
std::string_view TrimSeparators(std::string_view text) {
  for (bool trimmed = true; trimmed;) {
    trimmed = false;
    text = TrimSpaces(text);
    for (std::string_view mark : {",", "，", "、"}) {
      if (text.starts_with(mark)) {
        text.remove_prefix(mark.size());
        trimmed = true;
      }
      if (text.ends_with(mark)) {
        text.remove_suffix(mark.size());
        trimmed = true;
      }
    }
  }
  return text;
}

// The query without the found phrases. Each cut is closed up: one space where
// there was space on either side, none before punctuation.
std::string RestOf(std::string_view query, const std::vector<Found>& found) {
  std::string rest;
  size_t kept_from = 0;
  bool space_pending = false;
  auto keep = [&](std::string_view piece) {
    const bool leading_space = !piece.empty() && IsSpace(piece.front());
    const std::string_view trimmed = TrimSpaces(piece);
    if (trimmed.empty()) {
      space_pending = space_pending || !piece.empty();
      return;
    }
    if (!rest.empty() && (space_pending || leading_space) && !StartsWithClosingPunctuation(trimmed)) rest += ' ';
    rest += trimmed;
    space_pending = IsSpace(piece.back());
  };
  for (const Found& f : found) {
    keep(query.substr(kept_from, f.begin - kept_from));
    kept_from = f.end;
  }
  keep(query.substr(kept_from));
  return std::string(TrimSeparators(rest));
}

}  // namespace

TimeHint ParseTimeWords(std::string_view query, UnixMs now, const TimeZone& tz) {
  const CivilDate today = tz.LocalDate(now);
  const std::string lower = AsciiLower(query);
  std::vector<Found> found;
  for (size_t pos = 0; pos < lower.size();) {
    if (std::optional<Found> f = LongestAt(lower, query, pos, today)) {
      pos = f->end;
      found.push_back(*std::move(f));
    } else {
      text::NextCodePoint(lower, &pos);
    }
  }

  TimeHint hint;
  if (found.empty()) {
    hint.rest = std::string(query);
    return hint;
  }
  std::optional<DaySpan> covered;
  for (const Found& f : found) {
    hint.phrases.emplace_back(query.substr(f.begin, f.end - f.begin));
    hint.recent = hint.recent || f.meaning.recent;
    if (const std::optional<DaySpan>& span = f.meaning.span) {
      covered = covered ? DaySpan{std::min(covered->from, span->from), std::max(covered->to, span->to)} : *span;
    }
  }
  if (covered) {
    hint.from = tz.StartOfDay(covered->from);
    hint.to = tz.StartOfDay(covered->to);
  }
  hint.rest = RestOf(query, found);
  return hint;
}

bool AsksOnlyWhatWasSaid(std::string_view rest) {
  // In the form Words() gives them (stemmed, and Chinese as the dictionary
  // cuts it), so that "talked" and "聊过" match.
  static const std::set<std::string, std::less<>> kAskingWords = [] {
    static constexpr const char* kList[] = {
        // Chinese: talking, saying, happening, doing, and the nouns of such a question.
        "聊", "聊聊", "聊天", "聊过", "谈", "谈过", "谈了", "说过", "讲", "讲过", "发生", "发生过", "干", "干了", "干嘛",
        "做", "做了", "做过", "事", "事情", "啥", "些", "哪些", "记得", "还记得", "内容", "话题", "咱们", "咱", "一下",
        "有没有", "过", "到", "那天", "当时", "时候", "那时候",
        // English.
        "talk", "talked", "talking", "chat", "chatted", "discuss", "discussed", "say", "said", "tell", "told", "happen",
        "happened", "going", "go", "went", "up", "anything", "something", "everything", "stuff", "thing", "things",
        "conversation", "conversations", "topic", "topics", "remind", "recall", "remember", "any", "all", "else",
        "new", "day", "did", "done", "please", "mention", "mentioned"};
    std::set<std::string, std::less<>> words;
    for (const char* entry : kList) {
      for (std::string& w : text::WordSegmenter::Get().Words(entry)) words.insert(std::move(w));
    }
    return words;
  }();
  for (const std::string& w : text::WordSegmenter::Get().Words(rest)) {
    if (!text::IsStopWord(w) && !kAskingWords.count(w)) return false;
  }
  return true;
}

}  // namespace cilia
