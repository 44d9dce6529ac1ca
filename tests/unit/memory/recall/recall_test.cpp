#include "memory/recall/recall.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testing/spoken_conversation.h"
#include "testing/test_namespace.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "store/window_repo.h"

namespace cilia::memory {
namespace {

UnixMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

class RecallTest : public ::testing::Test {
 protected:
  RecallTest() : t_(At("2026-06-20T12:00:00+08:00")) {}

  void Ingest(const std::string& conv, const std::string& title, const std::vector<testing::SpokenMessage>& msgs) {
    const Status stored = testing::StoreSpoken(t_.ns(), conv, title, msgs);
    ASSERT_TRUE(stored.ok()) << stored.ToString();
  }

  RecallReply Ask(nlohmann::json body, bool count_access = false) {
    auto req = ParseRecallRequest(body, t_.ns().tz());
    EXPECT_TRUE(req.ok()) << req.status().ToString();
    auto reply = Recall(t_.ns(), *req, count_access);
    EXPECT_TRUE(reply.ok()) << reply.status().ToString();
    return *reply;
  }

  void SetUp() override {
    Ingest("d01", "五一报名半马", {{"d01-m1", "阿杰", "报上了！6月14号那个天府锦江半马，名额五分钟就没了。", "2026-05-01T23:38:00+08:00"},
                                    {"d01-m2", "AI", "恭喜抢到名额！这是你第一次跑半马吗？", "2026-05-01T23:38:07+08:00"}});
    Ingest("trip", "", {{"D1:3", "Caroline", "I went to a LGBTQ support group yesterday and it was so powerful.", "2026-06-10T13:56:00Z"},
                        {"D1:4", "Melanie", "Wow, that's cool! What happened there?", "2026-06-10T13:57:00Z"}});
    Ingest("wifi", "home", {{"w1", "阿杰", "家里wifi密码是 Kiwi-2048，别告诉别人。", "2026-06-18T09:00:00+08:00"}});
  }

  testing::TestNamespace t_;
};

TEST_F(RecallTest, FindsAnEnglishFactWithHeaderSpeakersAndCallerIds) {
  RecallReply r = Ask({{"query", "when did she go to the support group"}});
  ASSERT_FALSE(r.results.empty());
  const RecallResult& top = r.results[0];
  EXPECT_EQ(top.layer, "archive");
  EXPECT_EQ(top.conversation_id, "trip");
  EXPECT_EQ(top.message_ids, (std::vector<std::string>{"D1:3", "D1:4"}));
  EXPECT_EQ(top.created_at, At("2026-06-10T13:56:00Z"));
  EXPECT_EQ(top.text,
            "[2026-06-10 · trip]\nCaroline: I went to a LGBTQ support group yesterday and it was so powerful.\n"
            "Melanie: Wow, that's cool! What happened there?");
  EXPECT_EQ(top.id.rfind("w_", 0), 0u);
}

TEST_F(RecallTest, FindsAChineseFactByAWordOfIt) {
  RecallReply r = Ask({{"query", "我报的半马是哪天"}});
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results[0].conversation_id, "d01");
  EXPECT_EQ(r.results[0].text.rfind("[2026-05-01 · 五一报名半马]\n阿杰: 报上了！", 0), 0u);
}

TEST_F(RecallTest, HarnessTextIsNotIndexedAndNotShown) {
  Ingest("cc", "", {{"cc1", "阿杰",
                     "<system-reminder>\nAttribution for git commits and pull requests you create.\n</system-reminder>\n"
                     "My sister Lena moved to Lisbon last spring.",
                     "2026-06-19T09:00:00+08:00"}});
  for (const RecallResult& r : Ask({{"query", "attribution git commits pull requests"}}).results) {
    EXPECT_NE(r.conversation_id, "cc") << r.text;
  }
  EXPECT_TRUE(Ask({{"query", "Attribution for git"}, {"exact", true}}).results.empty());
  RecallReply r = Ask({{"query", "where did Lena move"}});
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results[0].conversation_id, "cc");
  EXPECT_EQ(r.results[0].text, "[2026-06-19 · cc]\n阿杰: My sister Lena moved to Lisbon last spring.");
}

TEST_F(RecallTest, ExactFindsShortChineseAndVerbatimStrings) {
  RecallReply two = Ask({{"query", "密码"}, {"exact", true}});
  ASSERT_EQ(two.results.size(), 1u);
  EXPECT_EQ(two.results[0].conversation_id, "wifi");
  RecallReply code = Ask({{"query", "kiwi-2048"}, {"exact", true}});
  ASSERT_EQ(code.results.size(), 1u);
  EXPECT_TRUE(Ask({{"query", "Kiwi-2049"}, {"exact", true}}).results.empty());
}

TEST_F(RecallTest, DateBoundsAndConversationFilter) {
  EXPECT_TRUE(Ask({{"query", "半马"}, {"after", "2026-05-02"}}).results.empty());
  EXPECT_EQ(Ask({{"query", "半马"}, {"before", "2026-05-01"}}).results.size(), 1u);
  EXPECT_TRUE(Ask({{"query", "半马"}, {"conversation_id", "trip"}}).results.empty());
  EXPECT_TRUE(Ask({{"query", "半马"}, {"conversation_id", "no-such"}}).results.empty());
}

TEST_F(RecallTest, NarrowAndBroadDateFiltersKeepExactlyTheWindowsTheyAllow) {
  // A kiwi note a day from April 1 to May 10: one day's windows are listed,
  // a month's are tested one by one against the catalogue.
  for (int d = 0; d < 40; ++d) {
    const std::string day = d < 30 ? fmt::format("2026-04-{:02}", d + 1) : fmt::format("2026-05-{:02}", d - 29);
    Ingest("day-" + day, "", {{"k" + day, "阿杰", "kiwi note of " + day, day + "T12:00:00+08:00"}});
  }
  RecallReply one = Ask({{"query", "kiwi note"}, {"after", "2026-04-10"}, {"before", "2026-04-10"}});
  ASSERT_EQ(one.results.size(), 1u);
  EXPECT_EQ(one.results[0].conversation_id, "day-2026-04-10");

  RecallReply month = Ask({{"query", "kiwi note"}, {"after", "2026-04-05"}, {"before", "2026-05-04"}, {"limit", 40}});
  EXPECT_EQ(month.results.size(), 30u);
  for (const auto& r : month.results) {
    EXPECT_GE(r.created_at, At("2026-04-05T00:00:00+08:00")) << r.conversation_id;
    EXPECT_LE(r.created_at, At("2026-05-04T23:59:59.999+08:00")) << r.conversation_id;
  }
  EXPECT_TRUE(Ask({{"query", "kiwi note"}, {"after", "2026-05-11"}, {"before", "2026-05-31"}}).results.empty());
}

TEST_F(RecallTest, TimeWordsBecomeADateFilter) {
  // Asked on 2026-06-11 (Shanghai): "yesterday" is 2026-06-10, the support group day.
  RecallReply r = Ask({{"query", "what did we talk about yesterday"}, {"now", "2026-06-11T10:00:00+08:00"}});
  ASSERT_FALSE(r.results.empty());
  for (const auto& res : r.results) EXPECT_EQ(res.conversation_id, "trip");
  RecallReply none = Ask({{"query", "半马 yesterday"}, {"now", "2026-06-11T10:00:00+08:00"}});
  for (const auto& res : none.results) EXPECT_NE(res.conversation_id, "d01");
}

TEST_F(RecallTest, ANamedDayAlsoReachesTheDaysItIsToldOn) {
  // The run of June 11 is told the next morning; a week later is too far.
  Ingest("told", "", {{"t1", "阿杰", "昨天早上跑了18公里，配速5分50。", "2026-06-12T08:20:00+08:00"}});
  Ingest("late", "", {{"l1", "阿杰", "上周那次18公里其实跑得很累。", "2026-06-18T08:20:00+08:00"}});
  RecallReply r = Ask({{"query", "6月11日那次长距离跑了多少公里"}, {"now", "2026-06-20T10:00:00+08:00"}});
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results[0].conversation_id, "told");
  for (const auto& res : r.results) EXPECT_NE(res.conversation_id, "late");
}

TEST_F(RecallTest, AtMostTwoWindowsPerConversationAndDayUnlessOneConversationIsAsked) {
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> msgs;
  for (int i = 0; i < 6; ++i) {
    msgs.emplace_back("k" + std::to_string(i), "阿杰",
                      "kiwi note " + std::to_string(i) + ": " + std::string(400, 'a' + i) + ".",
                      "2026-06-19T1" + std::to_string(i) + ":00:00+08:00");
  }
  Ingest("kiwis", "", msgs);
  RecallReply capped = Ask({{"query", "kiwi"}, {"limit", 10}});
  int from_kiwis = 0;
  for (const auto& r : capped.results) from_kiwis += r.conversation_id == "kiwis";
  EXPECT_EQ(from_kiwis, 2);
  RecallReply one = Ask({{"query", "kiwi"}, {"limit", 10}, {"conversation_id", "kiwis"}});
  EXPECT_GT(one.results.size(), 2u);
}

TEST_F(RecallTest, OverlappingWindowsAreMergedIntoOneResult) {
  // Messages of ~340, ~100 and ~300 characters make two windows sharing the
  // middle one, 840 characters together: under max_merged_chars.
  Ingest("merge", "", {{"a", "A", "first marmalade part " + std::string(318, 'z') + ".", "2026-06-19T10:00:00+08:00"},
                       {"b", "B", "middle marmalade part " + std::string(77, 'z') + ".", "2026-06-19T10:01:00+08:00"},
                       {"c", "A", "last marmalade part " + std::string(280, 'z') + ".", "2026-06-19T10:02:00+08:00"}});
  RecallReply r = Ask({{"query", "marmalade"}, {"conversation_id", "merge"}});
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].message_ids, (std::vector<std::string>{"a", "b", "c"}));
  // The shared middle segment appears once.
  const std::string& text = r.results[0].text;
  EXPECT_EQ(text.find("middle marmalade"), text.rfind("middle marmalade"));
}

TEST_F(RecallTest, AConversationTitleRanksItsWindows) {
  Ingest("kyoto", "Kyoto trip planning", {{"k1", "阿杰", "booked the ryokan for three nights", "2026-06-19T10:00:00+08:00"}});
  Ingest("aunt", "", {{"a1", "阿杰", "found a ryokan-style tea house for my aunt", "2026-06-19T11:00:00+08:00"}});
  // No message says "kyoto": the title finds the conversation.
  RecallReply kyoto = Ask({{"query", "kyoto"}});
  ASSERT_FALSE(kyoto.results.empty());
  EXPECT_EQ(kyoto.results[0].conversation_id, "kyoto");
  // Both say "ryokan"; the titled one ranks first.
  RecallReply ryokan = Ask({{"query", "ryokan in kyoto"}});
  ASSERT_GE(ryokan.results.size(), 2u);
  EXPECT_EQ(ryokan.results[0].conversation_id, "kyoto");
  // A new title replaces the old one in the index.
  Ingest("kyoto", "Osaka food", {{"k2", "阿杰", "and two nights more", "2026-06-19T10:05:00+08:00"}});
  EXPECT_TRUE(Ask({{"query", "kyoto"}}).results.empty());
  EXPECT_EQ(Ask({{"query", "osaka"}}).results.at(0).conversation_id, "kyoto");
}

TEST_F(RecallTest, RecallCountsAccessSearchDoesNot) {
  auto access = [&] {
    int64_t total = 0;
    for (const auto& r : Ask({{"query", "support group"}}).results) {
      total += t_.ns().GetWindowMeta(std::stoll(r.id.substr(2)))->access_count;
    }
    return total;
  };
  EXPECT_EQ(access(), 0);
  Ask({{"query", "support group"}}, /*count_access=*/false);
  EXPECT_EQ(access(), 0);
  Ask({{"query", "support group"}}, /*count_access=*/true);
  EXPECT_GT(access(), 0);
}

TEST(ParseRecallRequest, NamesTheBadField) {
  TimeZone tz = TimeZone::Utc();
  auto code = [&](nlohmann::json j) { return ParseRecallRequest(j, tz).status().message(); };
  EXPECT_EQ(code({{"limit", 5}}).rfind("query", 0), 0u);
  EXPECT_EQ(code({{"query", "  "}}).rfind("query", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"limit", 1000}}).rfind("limit", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"limit", "5"}}).rfind("limit", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"after", "yesterday"}}).rfind("after", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"now", "soon"}}).rfind("now", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"exact", "yes"}}).rfind("exact", 0), 0u);
  EXPECT_EQ(code({{"query", "x"}, {"after", "2023-06-01"}, {"before", "2023-05-01"}}).rfind("after", 0), 0u);
  auto ok = ParseRecallRequest({{"query", "x"}, {"before", "2023-05-01"}}, tz);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok->before, At("2023-05-01T23:59:59.999Z"));
}

}  // namespace
}  // namespace cilia::memory

namespace cilia::memory {
namespace {

TEST_F(RecallTest, AnExcerptAnswersBesideTheWindowsAndCountsAsRecalled) {
  NewExcerpt item;
  item.content = "阿杰家的wifi密码是 Kiwi-2048";
  item.quote = "家里wifi密码是 Kiwi-2048";
  item.conversation_id = "wifi";
  item.message_id = "w1";
  item.type = "fact";
  auto created = Excerpts(t_.ns()).Create(item, Author::kOwner);
  ASSERT_TRUE(created.ok()) << created.status().ToString();

  RecallReply r = Ask({{"query", "wifi密码"}}, /*count_access=*/true);
  const auto excerpt = std::find_if(r.results.begin(), r.results.end(), [](const RecallResult& x) { return x.layer == "excerpt"; });
  ASSERT_NE(excerpt, r.results.end());
  EXPECT_EQ(excerpt->conversation_id, "wifi");
  EXPECT_EQ(excerpt->message_ids, std::vector<std::string>{"w1"});
  EXPECT_NE(excerpt->text.find("Kiwi-2048"), std::string::npos);
  EXPECT_TRUE(std::any_of(r.results.begin(), r.results.end(), [](const RecallResult& x) { return x.layer == "archive"; }));
  auto after = Excerpts(t_.ns()).Get(created->id);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->access_count, 1);
}

}  // namespace
}  // namespace cilia::memory

namespace cilia::memory {
namespace {

// A chat a day for the month before 2026-06-20 (a Saturday), and one in June 2025.
class TimeQuestionTest : public RecallTest {
 protected:
  void SetUp() override {
    for (int d = 1; d <= 19; ++d) {
      const std::string day = fmt::format("2026-06-{:02}", d);
      Ingest("june-" + day, "", {{"j" + day, "阿杰", "今天的流水账 " + day + "：买菜、做饭、散步。", day + "T20:00:00+08:00"},
                                 {"a" + day, "AI", "听起来很充实。", day + "T20:01:00+08:00"}});
    }
    for (int d = 10; d <= 20; d += 5) {
      const std::string day = fmt::format("2026-05-{:02}", d);
      Ingest("may-" + day, "", {{"m" + day, "阿杰", "garden note " + day, day + "T09:00:00+08:00"}});
    }
    Ingest("last-june", "", {{"lj", "阿杰", "去年的六月搬了家。", "2025-06-15T09:00:00+08:00"}});
  }

  // Every result lies in [from, to] (local days, inclusive), and there is one.
  void ExpectSpan(const std::string& query, const std::string& from, const std::string& to) {
    RecallReply r = Ask({{"query", query}, {"now", "2026-06-20T12:00:00+08:00"}});
    ASSERT_FALSE(r.results.empty()) << query;
    for (const RecallResult& res : r.results) {
      const std::string day = t_.ns().tz().FormatLocal(res.created_at, false);
      EXPECT_GE(day, from) << query << ": " << res.text;
      EXPECT_LE(day, to) << query << ": " << res.text;
      EXPECT_EQ(res.text.rfind("[" + day, 0), 0u) << "dated: " << res.text;
    }
  }
};

TEST_F(TimeQuestionTest, ChineseTimeOnlyQuestionsAnswerWhatWasSaidThen) {
  ExpectSpan("昨天", "2026-06-19", "2026-06-19");
  ExpectSpan("昨天聊了什么", "2026-06-19", "2026-06-19");
  ExpectSpan("上周三聊了什么", "2026-06-10", "2026-06-10");
  ExpectSpan("三天前我说了什么", "2026-06-17", "2026-06-17");
  ExpectSpan("上个月聊过什么", "2026-05-01", "2026-05-31");
  ExpectSpan("去年六月发生了什么", "2025-06-01", "2025-06-30");
}

TEST_F(TimeQuestionTest, EnglishTimeOnlyQuestionsAnswerWhatWasSaidThen) {
  ExpectSpan("yesterday", "2026-06-19", "2026-06-19");
  ExpectSpan("what did we talk about yesterday", "2026-06-19", "2026-06-19");
  ExpectSpan("anything from last month", "2026-05-01", "2026-05-31");
  ExpectSpan("what happened last week?", "2026-06-08", "2026-06-14");
}

TEST_F(TimeQuestionTest, GenericWordsUnderAfterAndBeforeAnswerTheSpan) {
  RecallReply r = Ask({{"query", "what happened"}, {"after", "2026-06-03"}, {"before", "2026-06-04"}});
  ASSERT_FALSE(r.results.empty());
  for (const RecallResult& res : r.results) {
    const std::string day = t_.ns().tz().FormatLocal(res.created_at, false);
    EXPECT_TRUE(day == "2026-06-03" || day == "2026-06-04") << res.text;
  }
  RecallReply zh = Ask({{"query", "发生了什么"}, {"after", "2026-05-01"}, {"before", "2026-05-31"}, {"limit", 20}});
  EXPECT_EQ(zh.results.size(), 3u);
}

TEST_F(TimeQuestionTest, ASpanIsAnsweredNewestFirstAFewADay) {
  RecallReply r = Ask({{"query", "上周聊了什么"}, {"now", "2026-06-20T12:00:00+08:00"}, {"limit", 10}});
  ASSERT_EQ(r.results.size(), 7u);  // one window a day, 06-08 … 06-14
  for (size_t i = 1; i < r.results.size(); ++i) EXPECT_GT(r.results[i - 1].created_at, r.results[i].created_at);
}

TEST_F(TimeQuestionTest, ASpanNeverReachesPastNow) {
  // Asked on the morning of 06-10: "this week" stops at the question.
  RecallReply r = Ask({{"query", "这周聊了什么"}, {"now", "2026-06-10T12:00:00+08:00"}});
  ASSERT_FALSE(r.results.empty());
  for (const RecallResult& res : r.results) EXPECT_LE(res.created_at, At("2026-06-10T12:00:00+08:00")) << res.text;
}

TEST_F(TimeQuestionTest, ANamedTimeWithNoChatAtAllOnlyRaisesItsSpan) {
  // No chat in March 2026: the asker means another time, and the notes are found.
  RecallReply r = Ask({{"query", "the garden note from March"}, {"now", "2026-06-20T12:00:00+08:00"}});
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results[0].conversation_id.rfind("may-", 0), 0u);
  // Only a time, with nothing in it: nothing.
  EXPECT_TRUE(Ask({{"query", "三月聊了什么"}, {"now", "2026-06-20T12:00:00+08:00"}}).results.empty());
}

TEST_F(TimeQuestionTest, AFutureSpanBoundsNothing) {
  // "下周" asked about a plan: the plan was told before now.
  Ingest("plan", "", {{"p1", "阿杰", "下周想再报一个半马。", "2026-06-18T21:00:00+08:00"}});
  RecallReply r = Ask({{"query", "下周的半马"}, {"now", "2026-06-20T12:00:00+08:00"}});
  ASSERT_FALSE(r.results.empty());
  EXPECT_EQ(r.results[0].conversation_id, "plan");
}

TEST_F(RecallTest, AWindowIsJudgedByEachOfItsMessagesDatesAndShowsItsDays) {
  Ingest("long", "十二天", {{"l1", "阿杰", "开始记录 marmalade 计划。", "2026-06-01T10:00:00+08:00"},
                            {"l2", "阿杰", "marmalade 第二步。", "2026-06-05T10:00:00+08:00"},
                            {"l3", "阿杰", "marmalade 做好了。", "2026-06-12T10:00:00+08:00"}});
  RecallReply after = Ask({{"query", "marmalade"}, {"after", "2026-06-12"}});
  ASSERT_EQ(after.results.size(), 1u);
  EXPECT_EQ(after.results[0].text.rfind("[2026-06-01–06-12 · 十二天]\n", 0), 0u) << after.results[0].text;
  EXPECT_EQ(Ask({{"query", "marmalade"}, {"after", "2026-06-05"}, {"before", "2026-06-05"}}).results.size(), 1u);
  // Between its messages' days, nothing of it was said.
  EXPECT_TRUE(Ask({{"query", "marmalade"}, {"after", "2026-06-07"}, {"before", "2026-06-08"}}).results.empty());
}

}  // namespace
}  // namespace cilia::memory
