#include "store/summary_repo.h"

#include <gtest/gtest.h>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

class SummaryRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
    MessageRepo messages(*db_);
    trip_ = messages.CreateConversation("trip", "", 0)->id;
    other_ = messages.CreateConversation("other", "", 0)->id;
  }
  int64_t Add(int64_t conversation, int64_t through_seq, std::string text, UnixMs at = 5000) {
    auto id = SummaryRepo(*db_).Add({0, conversation, through_seq, std::move(text), "main/cheap", at});
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : 0;
  }
  std::optional<ConversationSummary> Latest(int64_t conversation) {
    auto latest = SummaryRepo(*db_).Latest(conversation);
    EXPECT_TRUE(latest.ok()) << latest.status().ToString();
    return latest.ok() ? *latest : std::nullopt;
  }

  int64_t trip_ = 0, other_ = 0;
};

TEST_P(SummaryRepoTest, AConversationWithoutSummaryHasNone) { EXPECT_FALSE(Latest(trip_).has_value()); }

TEST_P(SummaryRepoTest, TheLatestIsTheOneCoveringTheMostAndComesBackWhole) {
  Add(trip_, 40, "first forty");
  int64_t widest = Add(trip_, 120, "她说周末去爬山 🏔️\n第二段", 9000);
  Add(trip_, 80, "written later, covers less");
  Add(other_, 500, "another conversation");
  auto latest = Latest(trip_);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->id, widest);
  EXPECT_EQ(latest->conversation_row, trip_);
  EXPECT_EQ(latest->through_seq, 120);
  EXPECT_EQ(latest->text, "她说周末去爬山 🏔️\n第二段");
  EXPECT_EQ(latest->model, "main/cheap");
  EXPECT_EQ(latest->created_at, 9000);
}

TEST_P(SummaryRepoTest, OfTwoCoveringAsMuchTheNewerWins) {
  Add(trip_, 60, "old");
  int64_t newer = Add(trip_, 60, "rewritten");
  EXPECT_EQ(Latest(trip_)->id, newer);
}

TEST_P(SummaryRepoTest, ForgettingAMessageDropsTheSummariesThatCoverIt) {
  int64_t before = Add(trip_, 10, "covers 0..9");
  Add(trip_, 11, "covers 0..10");
  Add(trip_, 50, "covers 0..49");
  Add(other_, 50, "other conversation");
  ASSERT_TRUE(SummaryRepo(*db_).ForgetFrom(trip_, 10).ok());
  EXPECT_EQ(Latest(trip_)->id, before);
  EXPECT_EQ(Latest(other_)->through_seq, 50);
  ASSERT_TRUE(SummaryRepo(*db_).ForgetFrom(trip_, 0).ok());
  EXPECT_FALSE(Latest(trip_).has_value());
}

TEST_P(SummaryRepoTest, ForgettingAConversationDropsAllItsSummaries) {
  Add(trip_, 10, "a");
  Add(trip_, 20, "b");
  Add(other_, 20, "c");
  ASSERT_TRUE(SummaryRepo(*db_).ForgetConversation(trip_).ok());
  EXPECT_FALSE(Latest(trip_).has_value());
  EXPECT_TRUE(Latest(other_).has_value());
}

TEST_P(SummaryRepoTest, DeletingTheConversationRowTakesItsSummariesAlong) {
  Add(trip_, 10, "a");
  ASSERT_TRUE(MessageRepo(*db_).DeleteConversation(trip_).ok());
  EXPECT_FALSE(Latest(trip_).has_value());
}

TEST_P(SummaryRepoTest, ASummaryNeedsAnExistingConversation) {
  auto id = SummaryRepo(*db_).Add({0, 9999, 10, "orphan", "main/cheap", 1});
  EXPECT_EQ(id.status().code(), Code::kConflict);
}

CILIA_ON_EACH_BACKEND(SummaryRepoTest);

}  // namespace
}  // namespace cilia::store
