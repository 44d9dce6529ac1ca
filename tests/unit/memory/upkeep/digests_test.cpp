#include "memory/upkeep/digests.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/scripted_model.h"
#include "testing/test_namespace.h"
#include "text/utf8.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/upkeep/precious.h"
#include "store/precious_repo.h"
#include "store/digest_repo.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::LocalTime;
using testing::ScriptedModel;

bool IsDayLogRequest(const json& r) { return ScriptedModel::Instructions(r).find("day's log") != std::string::npos; }
bool IsDigestRequest(const json& r) { return ScriptedModel::Instructions(r).find("running digest") != std::string::npos; }

// Day logs cite the first two messages and one that does not exist; the
// digest is far too long; rollups name their period's first day.
std::string GoodModel(const json& r) {
  if (IsDayLogRequest(r)) {
    return R"(```json
{"title": "搬家", "entries": [{"text": "她说要搬去北京", "messages": [1, "#2", 99]},
                             {"text": "an invented event", "messages": [42]}]}
```)";
  }
  if (IsDigestRequest(r)) return json{{"digest", std::string(700, 'd')}}.dump();
  const std::string input = ScriptedModel::Input(r);
  return json{{"summary", "summary of " + input.substr(input.find("## ") + 3, 10)}}.dump();
}

class NightlyTest : public ::testing::Test {
 protected:
  NightlyTest() : model_(GoodModel), config_(model_.MakeConfig()) {}

  memory::Namespace& ns() { return t_.ns(); }
  NightlyOutcome Run() {
    auto out = RunNightly(ns(), config_, t_.clock());
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : NightlyOutcome{};
  }
  template <typename F>
  auto Read(F&& f) {
    return ns().store().Read([&](store::Database& db) { return f(store::DigestRepo(db)); });
  }
  void SetNow(const std::string& day, int hour) { t_.clock().Set(LocalTime(ns(), day, hour)); }

  testing::TestNamespace t_;  // now: 2026-05-29 04:26 in Asia/Shanghai
  ScriptedModel model_;
  Config config_;
};

TEST_F(NightlyTest, WritesYesterdaysLogCitingOnlyRealMessages) {
  testing::Store(ns(), "chat", {{"D1:1", "user", "我下个月搬去北京。", LocalTime(ns(), "2026-05-28", 9)},
                                {"D1:2", "assistant", "要帮你列清单吗？", LocalTime(ns(), "2026-05-28", 9, 1)}});
  NightlyOutcome out = Run();
  EXPECT_THAT(out.days_logged, ElementsAre("2026-05-28"));
  auto log = Read([](store::DigestRepo r) { return r.GetLog("2026-05-28"); });
  ASSERT_TRUE(log.ok() && log->has_value());
  const store::DailyLog& day = **log;
  EXPECT_EQ(day.title, "搬家");
  ASSERT_EQ(day.entries.size(), 1u) << "the entry citing no real message is dropped";
  EXPECT_EQ(day.entries[0].text, "她说要搬去北京");
  EXPECT_THAT(day.entries[0].sources,
              ElementsAre(store::MessageRef{"chat", "D1:1"}, store::MessageRef{"chat", "D1:2"}));
  EXPECT_EQ(day.messages, 2);
  EXPECT_EQ(day.model, "fake/cheap");

  const std::string transcript = ScriptedModel::Input(model_.requests().front());
  EXPECT_THAT(transcript, HasSubstr("[1] 2026-05-28 09:00 · chat · user:\n我下个月搬去北京。"));
  EXPECT_EQ(transcript.find("D1:1"), std::string::npos) << "ids stay outside what the model sees";
}

TEST_F(NightlyTest, TheDigestIsAtMost500CharactersAndFeedsTheDailyPack) {
  testing::Store(ns(), "chat", {{"a", "user", "hello there", LocalTime(ns(), "2026-05-28", 22)}});
  NightlyOutcome out = Run();
  EXPECT_TRUE(out.digest_updated);
  auto digest = Read([](store::DigestRepo r) { return r.LatestDigest(); });
  ASSERT_TRUE(digest.ok() && digest->has_value());
  EXPECT_EQ(text::CodePointCount((*digest)->text), kMaxDigestChars);
  EXPECT_EQ((*digest)->through_day, "2026-05-28");

  const std::string pack = DailyPack(ns(), t_.clock().Now());
  EXPECT_THAT(pack, HasSubstr("<digest>\n" + (*digest)->text + "\n</digest>"));
  EXPECT_THAT(pack, HasSubstr("<day_log date=\"2026-05-28\">\n- 她说要搬去北京\n</day_log>"));
  EXPECT_EQ(out.Items(), 2) << "one log, one digest revision";
}

TEST_F(NightlyTest, TheDailyPackStaysTheSameAllDayAndMovesOnTheNext) {
  testing::Store(ns(), "chat", {{"a", "user", "hello there", LocalTime(ns(), "2026-05-27", 22)}});
  SetNow("2026-05-28", 8);
  Run();
  const std::string morning = DailyPack(ns(), LocalTime(ns(), "2026-05-28", 9));
  ASSERT_FALSE(morning.empty());
  ASSERT_TRUE(ns().store().Write([&](store::Database& db) {
    return store::DigestRepo(db).AddDigest({0, "2026-05-27", "a newer digest", "x", LocalTime(ns(), "2026-05-28", 10)}).status();
  }).ok());
  EXPECT_EQ(DailyPack(ns(), LocalTime(ns(), "2026-05-28", 23, 59)), morning);
  EXPECT_THAT(DailyPack(ns(), LocalTime(ns(), "2026-05-29", 0, 1)), HasSubstr("a newer digest"));
}

TEST_F(NightlyTest, AnEmptyNamespaceHasNothingToDoAndNoPack) {
  NightlyOutcome out = Run();
  EXPECT_TRUE(out.days_logged.empty());
  EXPECT_EQ(out.model_calls, 0);
  EXPECT_EQ(DailyPack(ns(), t_.clock().Now()), "");
}

TEST_F(NightlyTest, ADayTheModelCannotCiteIsRetriedThenSkippedAndTheNextDaysGoOn) {
  testing::Store(ns(), "chat", {{"a", "user", "bad day", LocalTime(ns(), "2026-05-27", 12)},
                                {"b", "user", "good day", LocalTime(ns(), "2026-05-28", 12)}});
  model_.SetScript([](const json& r) -> std::string {
    if (IsDayLogRequest(r) && ScriptedModel::Input(r).find("bad day") != std::string::npos) {
      return R"({"entries": [{"text": "made up", "messages": [7]}]})";
    }
    return GoodModel(r);
  });
  for (int run = 1; run <= 3; ++run) {
    NightlyOutcome out = Run();
    if (run < 3) EXPECT_THAT(out.retried, ElementsAre("day:2026-05-27"));
    else EXPECT_THAT(out.skipped, ElementsAre("day:2026-05-27"));
    EXPECT_THAT(out.errors, ElementsAre(HasSubstr("cites no message")));
  }
  EXPECT_TRUE(Read([](store::DigestRepo r) { return r.GetLog("2026-05-28"); })->has_value())
      << "a failing day does not hold back the days after it";
  auto failed = Read([](store::DigestRepo r) { return r.GetItem("day:2026-05-27"); });
  EXPECT_EQ((*failed)->status, store::NightlyStatus::kFailed);
  EXPECT_EQ((*failed)->attempts, 3);
  NightlyOutcome fourth = Run();
  EXPECT_EQ(fourth.model_calls, 0) << "settled days are not tried again";
}

TEST_F(NightlyTest, AnUnreachableModelStopsTheRunWithoutCountingAgainstTheDay) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", LocalTime(ns(), "2026-05-28", 12)}});
  model_.SetScript([](const json&) { return std::string("HTTP 400"); });
  NightlyOutcome out = Run();
  EXPECT_FALSE(out.upstream_error.empty());
  EXPECT_TRUE(out.retried.empty());
  EXPECT_FALSE(Read([](store::DigestRepo r) { return r.GetItem("day:2026-05-28"); })->has_value());
  model_.SetScript(GoodModel);
  EXPECT_THAT(Run().days_logged, ElementsAre("2026-05-28"));
}

TEST_F(NightlyTest, DuplicateExcerptsAreMergedEvenWhenTheModelCannotBeReached) {
  testing::Store(ns(), "chat", {{"a", "user", "我下个月搬去北京，已经找好房子了。", LocalTime(ns(), "2026-05-28", 12)}});
  Excerpts excerpts(ns());
  NewExcerpt item;
  item.content = "她下个月搬去北京。";
  item.quote = "我下个月搬去北京";
  item.conversation_id = "chat";
  item.message_id = "a";
  const int64_t kept = excerpts.Create(item, Author::kExtractor)->id;
  item.content = "她下个月搬去北京";  // the same without its full stop
  item.quote = "北京，已经找好房子了";
  const int64_t duplicate = excerpts.Create(item, Author::kExtractor)->id;
  model_.SetScript([](const json&) { return std::string("HTTP 400"); });
  NightlyOutcome out = Run();
  EXPECT_FALSE(out.upstream_error.empty());
  EXPECT_EQ(out.duplicates_merged, 1);
  EXPECT_EQ(out.ToJson()["duplicates_merged"], 1);
  EXPECT_EQ((*excerpts.Get(duplicate))->superseded_by, kept);
}

TEST_F(NightlyTest, AForgottenMessageTakesItsDayLogAndPassagesAndTheDayIsWrittenAgainWithoutIt) {
  testing::Store(ns(), "chat", {{"D1:1", "user", "我的银行卡密码是 Kiwi-2048。", LocalTime(ns(), "2026-05-28", 9)},
                                {"D1:2", "assistant", "我记下了，但建议你别告诉别人。", LocalTime(ns(), "2026-05-28", 9, 1)},
                                {"D1:3", "user", "好的，明天去跑步。", LocalTime(ns(), "2026-05-28", 9, 2)}});
  ASSERT_THAT(Run().days_logged, ElementsAre("2026-05-28"));
  ASSERT_TRUE(Pin(ns(), {"chat", {"D1:1"}, "", store::Author::kOwner}, t_.clock().Now()).ok());
  ASSERT_TRUE(Pin(ns(), {"chat", {"D1:3"}, "", store::Author::kOwner}, t_.clock().Now()).ok());
  ASSERT_FALSE(DailyPack(ns(), t_.clock().Now()).empty());

  ASSERT_TRUE(Archive(ns()).ForgetMessage("chat", "D1:1").ok());
  EXPECT_FALSE(Read([](store::DigestRepo r) { return r.GetLog("2026-05-28"); })->has_value());
  EXPECT_FALSE(Read([](store::DigestRepo r) { return r.LatestDigest(); })->has_value());
  auto passages = ns().store().Read([](store::Database& db) { return store::PreciousRepo(db).List(); });
  ASSERT_EQ(passages->size(), 1u);
  EXPECT_EQ((*passages)[0].message_ids, std::vector<std::string>{"D1:3"});

  // The next run writes the day again from what is left of it.
  const size_t asked_before = model_.requests().size();
  NightlyOutcome out = Run();
  EXPECT_THAT(out.days_logged, ElementsAre("2026-05-28"));
  EXPECT_TRUE(out.digest_updated);
  const auto requests = model_.requests();
  ASSERT_GT(requests.size(), asked_before);
  const std::string transcript = ScriptedModel::Input(requests[asked_before]);
  EXPECT_THAT(transcript, HasSubstr("我记下了"));
  EXPECT_EQ(transcript.find("Kiwi-2048"), std::string::npos);
  auto log = Read([](store::DigestRepo r) { return r.GetLog("2026-05-28"); });
  ASSERT_TRUE(log->has_value());
  EXPECT_THAT((*log)->entries[0].sources, ElementsAre(store::MessageRef{"chat", "D1:2"}, store::MessageRef{"chat", "D1:3"}));
  EXPECT_TRUE(Run().days_logged.empty()) << "and then it is settled again";
}

TEST_F(NightlyTest, MissedNightsAreCaughtUpAndRollupsProgressByThemselves) {
  // Messages on ten days over three ISO weeks (2026-05-11 is a Monday).
  for (int d = 0; d < 10; ++d) {
    const std::string day = AddDays(CivilDate{2026, 5, 11}, d * 2).ToString();
    testing::Store(ns(), "c" + std::to_string(d), {{"m", "user", "day " + day, LocalTime(ns(), day, 12)}});
  }
  config_.jobs.nightly_catch_up_days = 8;  // the first run reaches back to 05-11
  SetNow("2026-05-20", 4);
  NightlyOutcome first = Run();
  EXPECT_THAT(first.days_logged, ElementsAre("2026-05-11", "2026-05-13", "2026-05-15", "2026-05-17", "2026-05-19"));
  EXPECT_THAT(first.rollups, ElementsAre("week:2026-W20"));

  SetNow("2026-06-02", 4);  // twelve nights missed
  NightlyOutcome late = Run();
  EXPECT_THAT(late.days_logged, ElementsAre("2026-05-21", "2026-05-23", "2026-05-25", "2026-05-27", "2026-05-29"));
  EXPECT_THAT(late.rollups, ElementsAre("week:2026-W21", "week:2026-W22", "month:2026-05"));
  auto week = Read([](store::DigestRepo r) { return r.GetRollup(store::RollupKind::kWeek, "2026-W21"); });
  ASSERT_TRUE(week->has_value());
  EXPECT_EQ((*week)->first_day, "2026-05-18");
  EXPECT_EQ((*week)->last_day, "2026-05-24");
  EXPECT_THAT((*week)->source_days, ElementsAre("2026-05-19", "2026-05-21", "2026-05-23"));
  EXPECT_EQ((*week)->text, "summary of 2026-05-19");

  NightlyOutcome again = Run();
  EXPECT_TRUE(again.rollups.empty()) << "done periods are never picked again";
  EXPECT_EQ(again.model_calls, 0);
}

TEST(IsoWeekLabelTest, FollowsTheThursdayRule) {
  EXPECT_EQ(IsoWeekLabel({2026, 1, 1}), "2026-W01");
  EXPECT_EQ(IsoWeekLabel({2024, 12, 30}), "2025-W01");
  EXPECT_EQ(IsoWeekLabel({2027, 1, 1}), "2026-W53");
  EXPECT_EQ(IsoWeekLabel({2026, 5, 31}), "2026-W22");
}

}  // namespace
}  // namespace cilia::memory
