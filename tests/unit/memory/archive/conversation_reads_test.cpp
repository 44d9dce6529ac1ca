#include "memory/archive/conversation_reads.h"

#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "store/profile_repo.h"
#include "store/turn_repo.h"
#include "testing/failing_reads.h"
#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

class ConversationReadsTest : public ::testing::Test {
 protected:
  ConversationReadsTest() {
    ingest::IngestConversation c;
    c.conversation_id = "c1";
    c.messages.push_back({"u1", "user", "", "first", 1000});
    c.messages.push_back({"a1", "assistant", "", "second", 2000});
    auto stored = Archive(space_.ns()).Store(c);
    EXPECT_TRUE(stored.ok());
    row_ = stored->conversation_row;
  }
  Namespace& ns() { return space_.ns(); }

  testing::TestNamespace space_;
  int64_t row_ = 0;
};

TEST_F(ConversationReadsTest, AConversationIsFoundByItsIdOrRowAndAbsentIsNotAnError) {
  auto by_id = FindConversation(ns(), "c1");
  ASSERT_TRUE(by_id.ok());
  ASSERT_TRUE(by_id->has_value());
  EXPECT_EQ((*by_id)->id, row_);
  EXPECT_EQ((*by_id)->next_seq, 2);
  auto by_row = ConversationByRow(ns(), row_);
  ASSERT_TRUE(by_row.ok() && by_row->has_value());
  EXPECT_EQ((*by_row)->external_id, "c1");
  auto missing = FindConversation(ns(), "nope");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_F(ConversationReadsTest, AFailedReadIsAnErrorNotAbsent) {
  testing::FailingReads failing(ns(), "conversations");
  auto found = FindConversation(ns(), "c1");
  EXPECT_FALSE(found.ok());
}

TEST_F(ConversationReadsTest, MessagesByPositionAndByCallerId) {
  auto first = FirstMessageFrom(ns(), row_, 1);
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->text, "second");
  auto past = FirstMessageFrom(ns(), row_, 5);
  ASSERT_TRUE(past.ok());
  EXPECT_FALSE(past->has_value());
  auto named = MessageByCallerId(ns(), row_, "u1");
  ASSERT_TRUE(named.ok() && named->has_value());
  EXPECT_EQ((*named)->seq, 0);
}

TEST_F(ConversationReadsTest, ASummaryCoversTheConversationAsStoredWhenItIsAdded) {
  auto none = LatestSummary(ns(), row_);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  store::ConversationSummary summary;
  summary.conversation_row = row_;
  summary.text = "they said two things";
  summary.kept_from_key = "k";
  summary.through_seq = 99;  // set by AddSummary, whatever the caller says
  ASSERT_TRUE(AddSummary(ns(), summary).ok());
  auto latest = LatestSummary(ns(), row_);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->text, "they said two things");
  EXPECT_EQ((*latest)->through_seq, 2);
}

TEST_F(ConversationReadsTest, TheProfileAndTheTurnLog) {
  ASSERT_TRUE(ns().store().Write([](store::Database& db) { return store::ProfileRepo(db).Put("persona", "kind", 1); }).ok());
  auto profile = ProfileDocuments(ns());
  ASSERT_TRUE(profile.ok());
  ASSERT_EQ(profile->size(), 1u);
  EXPECT_EQ((*profile)[0].name, "persona");
  store::TurnRecord record;
  record.conversation_id = "c1";
  record.endpoint = "responses";
  record.http_status = 200;
  ASSERT_TRUE(RecordTurn(ns(), record).ok());
  auto turns = ns().store().Read([](store::Database& db) { return store::TurnRepo(db).List(std::nullopt, std::nullopt, 10); });
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 1u);
  EXPECT_EQ((*turns)[0].endpoint, "responses");
}

}  // namespace
}  // namespace cilia::memory
