#include "memory/excerpts/candidates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/excerpt_fixture.h"

namespace cilia::memory {
namespace {

using ::testing::HasSubstr;

class CandidatesTest : public testing::ExcerptFixture {
 protected:
  store::CandidateRecord Queued(const std::string& content, const std::string& quote, const std::string& message,
                                std::optional<int64_t> target = std::nullopt, std::optional<std::string> key = std::nullopt) {
    NewExcerpt item = Item(content, quote, message);
    auto checked = Excerpts(t_.ns()).CheckQuote(item);
    EXPECT_TRUE(checked.ok());
    Excerpts::Draft draft;
    draft.content = content;
    draft.quote = *checked;
    draft.fact_key = key;
    draft.confidence = 0.6;
    auto c = Candidates(t_.ns()).Queue(draft, "2026-05-20", "low_confidence", target);
    EXPECT_TRUE(c.ok());
    return *c;
  }
};

TEST_F(CandidatesTest, QueueingTheSameItemTwiceKeepsOne) {
  const auto a = Queued("Lena lives in Beijing.", "I moved to Beijing", "u2");
  const auto b = Queued("Lena lives in Beijing.", "I moved to Beijing", "u2");
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.status, store::CandidateStatus::kPending);
}

TEST_F(CandidatesTest, ApproveMakesAnExcerptAndSupersedesTheFactKeysHolder) {
  NewExcerpt old_item = Item("Lena lives in Chengdu.", "I live in Chengdu");
  old_item.fact_key = "home_city";
  const auto old = Made(old_item);
  const auto c = Queued("Lena lives in Beijing.", "I moved to Beijing", "u2", std::nullopt, "home_city");
  auto approved = Candidates(t_.ns()).Approve(c.id, Author::kOwner);
  ASSERT_TRUE(approved.ok()) << approved.status().ToString();
  EXPECT_EQ(approved->content, "Lena lives in Beijing.");
  EXPECT_EQ(approved->status, ExcerptStatus::kActive);
  EXPECT_EQ((*Excerpts(t_.ns()).Get(old.id))->superseded_by, approved->id);
  auto decided = *Candidates(t_.ns()).Get(c.id);
  EXPECT_EQ(decided->status, store::CandidateStatus::kApproved);
  EXPECT_EQ(decided->result_id, approved->id);
  EXPECT_EQ(decided->decided_by, Author::kOwner);
  EXPECT_EQ(Candidates(t_.ns()).Approve(c.id, Author::kOwner).status().code(), Code::kConflict) << "decided once";
}

TEST_F(CandidatesTest, ApprovingOverAnOwnerWrittenExcerptIsAConflictWithAReason) {
  const auto owners = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"), Author::kOwner);
  const auto c = Queued("Lena lives in Beijing.", "I moved to Beijing", "u2", owners.id);
  auto refused = Candidates(t_.ns()).Approve(c.id, Author::kOwner);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kConflict);
  EXPECT_THAT(refused.status().message(), HasSubstr("which the owner wrote"));
  EXPECT_EQ((*Candidates(t_.ns()).Get(c.id))->status, store::CandidateStatus::kPending);
  auto explicitly = Candidates(t_.ns()).Supersede(c.id, owners.id, Author::kOwner);
  ASSERT_TRUE(explicitly.ok());
  EXPECT_EQ((*Excerpts(t_.ns()).Get(owners.id))->status, ExcerptStatus::kSuperseded);
}

TEST_F(CandidatesTest, MergeCountsTheTargetSeenAgainAndDiscardDecidesNothingElse) {
  const auto target = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto c = Queued("Lena is in Chengdu.", "near the university", "u1");
  auto merged = Candidates(t_.ns()).Merge(c.id, target.id, Author::kOwner);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->seen_count, 2);
  EXPECT_EQ((*Candidates(t_.ns()).Get(c.id))->status, store::CandidateStatus::kMerged);
  const auto d = Queued("Lena moved.", "I moved to Beijing", "u2");
  ASSERT_TRUE(Candidates(t_.ns()).Discard(d.id, Author::kOwner).ok());
  EXPECT_EQ((*Candidates(t_.ns()).Get(d.id))->status, store::CandidateStatus::kDiscarded);
  EXPECT_EQ(Candidates(t_.ns()).Discard(999, Author::kOwner).code(), Code::kNotFound);
}

}  // namespace
}  // namespace cilia::memory
