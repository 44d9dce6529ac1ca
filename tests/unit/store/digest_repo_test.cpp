#include "store/digest_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using ::testing::ElementsAre;
using DigestRepoTest = testing::BackendTest;

TEST_P(DigestRepoTest, LogsKeepTheirCitedEntriesAndReadByDayRange) {
  DigestRepo repo(db());
  for (const char* day : {"2026-05-27", "2026-05-28", "2026-05-29"}) {
    ASSERT_TRUE(repo.PutLog({day, "t", {{"她搬家了 🏠", {{"c", "D1:1"}}}, {"second", {{"c", "m_2"}}}}, 2, "m", 1, 2}).ok());
  }
  auto log = repo.GetLog("2026-05-28");
  ASSERT_TRUE(log->has_value());
  EXPECT_EQ((*log)->entries[0].sources, (std::vector<MessageRef>{{"c", "D1:1"}}));
  EXPECT_EQ((*log)->Text(), "- 她搬家了 🏠\n- second");
  EXPECT_EQ(repo.Logs("2026-05-28", "")->size(), 2u);
  EXPECT_EQ(repo.Logs("", "2026-05-27")->size(), 1u);
  EXPECT_EQ(repo.Logs("", "")->size(), 3u);
}

TEST_P(DigestRepoTest, TheNewestDigestIsCurrentAndRollupsAreByPeriod) {
  DigestRepo repo(db());
  EXPECT_FALSE(repo.LatestDigest()->has_value());
  ASSERT_TRUE(repo.AddDigest({0, "2026-05-27", "old", "m", 1}).ok());
  ASSERT_TRUE(repo.AddDigest({0, "2026-05-28", "new", "m", 2}).ok());
  EXPECT_EQ((*repo.LatestDigest())->text, "new");
  EXPECT_EQ(repo.AllDigests()->size(), 2u);
  ASSERT_TRUE(repo.PutRollup({RollupKind::kWeek, "2026-W21", "2026-05-18", "2026-05-24", "w", {"2026-05-19"}, "m", 3}).ok());
  ASSERT_TRUE(repo.PutRollup({RollupKind::kWeek, "2026-W22", "2026-05-25", "2026-05-31", "w2", {}, "m", 4}).ok());
  EXPECT_EQ((*repo.LatestRollup(RollupKind::kWeek))->period, "2026-W22");
  EXPECT_THAT((*repo.GetRollup(RollupKind::kWeek, "2026-W21"))->source_days, ElementsAre("2026-05-19"));
  EXPECT_FALSE(repo.LatestRollup(RollupKind::kMonth)->has_value());
}

TEST_P(DigestRepoTest, AForgetTakesTheLogsCitingTheMessageAndWhatWasMadeFromThem) {
  DigestRepo repo(db());
  ASSERT_TRUE(repo.PutLog({"2026-05-26", "t", {{"early", {{"c", "m_1"}}}}, 1, "m", 1, 1}).ok());
  ASSERT_TRUE(repo.PutLog({"2026-05-27", "t", {{"she said it", {{"c", "m_2"}, {"c", "m_3"}}}}, 2, "m", 1, 1}).ok());
  ASSERT_TRUE(repo.PutLog({"2026-05-28", "t", {{"later", {{"other", "m_2"}}}}, 1, "m", 1, 1}).ok());
  for (const char* day : {"2026-05-26", "2026-05-27", "2026-05-28"}) {
    ASSERT_TRUE(repo.PutItem({std::string("day:") + day, NightlyStatus::kOk, 1, "", 1}).ok());
  }
  ASSERT_TRUE(repo.AddDigest({0, "2026-05-26", "before", "m", 1}).ok());
  ASSERT_TRUE(repo.AddDigest({0, "2026-05-27", "read it", "m", 2}).ok());
  ASSERT_TRUE(repo.AddDigest({0, "2026-05-28", "carried it on", "m", 3}).ok());
  ASSERT_TRUE(repo.PutRollup({RollupKind::kWeek, "2026-W22", "2026-05-25", "2026-05-31", "w", {"2026-05-26", "2026-05-27"}, "m", 4}).ok());
  ASSERT_TRUE(repo.PutRollup({RollupKind::kWeek, "2026-W21", "2026-05-18", "2026-05-24", "w", {"2026-05-19"}, "m", 4}).ok());
  ASSERT_TRUE(repo.PutPack("2026-05-27", "p", 1, true).ok());
  ASSERT_TRUE(repo.PutPack("2026-05-28", "p", 1, true).ok());

  auto days = repo.ForgetCiting("c", "m_3", 99);
  ASSERT_TRUE(days.ok()) << days.status().ToString();
  EXPECT_THAT(*days, ElementsAre("2026-05-27"));
  EXPECT_FALSE(repo.GetLog("2026-05-27")->has_value());
  EXPECT_TRUE(repo.GetLog("2026-05-26")->has_value());
  EXPECT_TRUE(repo.GetLog("2026-05-28")->has_value()) << "m_2 of another conversation";
  EXPECT_EQ((*repo.GetItem("day:2026-05-27"))->status, NightlyStatus::kPending);
  EXPECT_EQ((*repo.GetItem("day:2026-05-26"))->status, NightlyStatus::kOk);
  EXPECT_THAT(*repo.PendingDays(), ElementsAre("2026-05-27"));
  EXPECT_EQ((*repo.LatestDigest())->text, "before");
  EXPECT_FALSE(repo.GetRollup(RollupKind::kWeek, "2026-W22")->has_value());
  EXPECT_EQ((*repo.GetItem("week:2026-W22"))->status, NightlyStatus::kPending);
  EXPECT_TRUE(repo.GetRollup(RollupKind::kWeek, "2026-W21")->has_value());
  EXPECT_TRUE(repo.GetPack("2026-05-27")->has_value()) << "shows the day before";
  EXPECT_FALSE(repo.GetPack("2026-05-28")->has_value());

  // Without a message: any message of the conversation.
  EXPECT_THAT(*repo.ForgetCiting("other", std::nullopt, 99), ElementsAre("2026-05-28"));
  EXPECT_TRUE(repo.ForgetCiting("nobody", std::nullopt, 99)->empty());
}

TEST_P(DigestRepoTest, ItemsStatePacksAndTheDaysMessages) {
  DigestRepo repo(db());
  ASSERT_TRUE(repo.PutItem({"day:2026-05-27", NightlyStatus::kFailed, 3, "bad", 9}).ok());
  EXPECT_EQ(repo.FailedItems(10)->size(), 1u);
  ASSERT_TRUE(repo.PutState("days_through", "2026-05-27").ok());
  EXPECT_EQ(*repo.GetState("days_through"), "2026-05-27");
  ASSERT_TRUE(repo.PutPack("2026-05-28", "first", 1, false).ok());
  ASSERT_TRUE(repo.PutPack("2026-05-28", "second", 2, false).ok());
  EXPECT_EQ(*repo.GetPack("2026-05-28"), "first");
  ASSERT_TRUE(repo.PutPack("2026-05-28", "refreshed", 3, true).ok());
  EXPECT_EQ(*repo.GetPack("2026-05-28"), "refreshed");
  EXPECT_EQ(*repo.DeletePacksBefore("2026-05-29"), 1);

  EXPECT_FALSE(repo.FirstMessageAt()->has_value());
  ASSERT_TRUE(db().Exec("INSERT INTO conversations(id, external_id, created_at, updated_at) VALUES (1, 'chat', 0, 0);"
                        "INSERT INTO messages(id, conversation_id, seq, caller_id, role, name, content, text, "
                        "content_hash, created_at, stored_at, source) VALUES "
                        "(1, 1, 0, 'D1:1', 'user', 'Ann', '\"a\"', 'a', 'h', 100, 0, 'api'),"
                        "(2, 1, 1, NULL, 'assistant', '', '\"b\"', 'b', 'h', 200, 0, 'api'),"
                        "(3, 1, 2, NULL, 'tool', '', '[{\"type\":\"tool_result\"}]', '', 'h', 150, 0, 'gateway')")
                  .ok());
  auto messages = repo.MessagesBetween(100, 200);
  ASSERT_EQ(messages->size(), 1u) << "the end is exclusive";
  EXPECT_EQ((*messages)[0].message_id, "D1:1");
  EXPECT_EQ((*messages)[0].name, "Ann");
  EXPECT_EQ(repo.MessagesBetween(0, 1000)->back().message_id, "m_2");
  EXPECT_EQ(repo.MessagesBetween(0, 1000)->size(), 2u) << "a message without text says nothing to log";
  EXPECT_EQ(*repo.FirstMessageAt(), 100);
}

CILIA_ON_EACH_BACKEND(DigestRepoTest);

}  // namespace
}  // namespace cilia::store
