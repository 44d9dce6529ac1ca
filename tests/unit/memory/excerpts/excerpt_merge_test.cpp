#include "memory/excerpts/excerpt_merge.h"

#include <gtest/gtest.h>

#include "testing/excerpt_fixture.h"

namespace cilia::memory {
namespace {

using ExcerptMergeTest = testing::ExcerptFixture;

store::ExcerptRecord Reload(Namespace& ns, int64_t id) { return **Excerpts(ns).Get(id); }

TEST_F(ExcerptMergeTest, TheSameContentTwiceBecomesOneThatCountsBothSightings) {
  const auto first = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  // The same words in another case, with other spaces and punctuation, quoting another span.
  const auto again = Made(Item("lena lives in  chengdu", "near the university"));
  const auto other = Made(Item("Lena loves the hotpot here.", "我很喜欢这里的火锅"));

  auto outcome = MergeDuplicateExcerpts(t_.ns());
  ASSERT_TRUE(outcome.ok()) << outcome.status().ToString();
  ASSERT_EQ(outcome->merged.size(), 1u);
  EXPECT_EQ(outcome->merged[0], std::make_pair(again.id, first.id)) << "the older one stays";

  const auto kept = Reload(t_.ns(), first.id);
  EXPECT_EQ(kept.status, ExcerptStatus::kActive);
  EXPECT_EQ(kept.seen_count, 2);
  const auto merged = Reload(t_.ns(), again.id);
  EXPECT_EQ(merged.status, ExcerptStatus::kSuperseded);
  EXPECT_EQ(merged.superseded_by, first.id);
  EXPECT_EQ(Reload(t_.ns(), other.id).status, ExcerptStatus::kActive);
  const auto history = *Excerpts(t_.ns()).History(again.id);
  EXPECT_EQ(history.back().action, "merge");
  EXPECT_EQ(history.back().who, Author::kExtractor);

  // A second pass finds nothing more to do; a revive undoes the merge.
  EXPECT_TRUE(MergeDuplicateExcerpts(t_.ns())->merged.empty());
  ASSERT_TRUE(Excerpts(t_.ns()).Revive(again.id, Author::kOwner).ok());
  EXPECT_EQ(Reload(t_.ns(), again.id).status, ExcerptStatus::kActive);
}

TEST_F(ExcerptMergeTest, TheSameQuotedSpanIsTheSameExcerpt) {
  const auto first = Made(Item("Lena moved to Beijing.", "I moved to Beijing last week", "u2"));
  const auto reworded = Made(Item("Lena has moved to Beijing recently.", "I moved to Beijing last week", "u2"));
  auto outcome = MergeDuplicateExcerpts(t_.ns());
  ASSERT_EQ(outcome->merged.size(), 1u);
  EXPECT_EQ(outcome->merged[0], std::make_pair(reworded.id, first.id));
}

TEST_F(ExcerptMergeTest, PinnedAndOwnerWrittenOnesStayAndAreNeverMergedAway) {
  const auto extracted = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto owners = Made(Item("Lena lives in Chengdu", "near the university"), Author::kOwner);
  auto outcome = MergeDuplicateExcerpts(t_.ns());
  ASSERT_EQ(outcome->merged.size(), 1u);
  EXPECT_EQ(outcome->merged[0], std::make_pair(extracted.id, owners.id)) << "the owner's stays, though newer";
  EXPECT_EQ(Reload(t_.ns(), owners.id).status, ExcerptStatus::kActive);

  // Two that may not be merged away automatically are both kept.
  auto pinned = Item("Lena loves the hotpot.", "我很喜欢这里的火锅");
  pinned.pinned = true;
  Made(pinned);
  Made(Item("Lena loves the hotpot", "喜欢这里的火锅 🍲"), Author::kAgent);
  outcome = MergeDuplicateExcerpts(t_.ns());
  EXPECT_TRUE(outcome->merged.empty());
  EXPECT_EQ(outcome->kept_apart, 1);
}

TEST_F(ExcerptMergeTest, ThreeOfAKindEndInTheOneThatStays) {
  const auto a = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto b = Made(Item("LENA LIVES IN CHENGDU", "near the university"));
  // The same span as b, other words: it meets b's span, and so the one that stays.
  const auto c = Made(Item("Lena's home is Chengdu.", "near the university"));
  auto outcome = MergeDuplicateExcerpts(t_.ns());
  ASSERT_EQ(outcome->merged.size(), 2u);
  EXPECT_EQ(outcome->merged[1], std::make_pair(c.id, a.id));
  EXPECT_EQ(Reload(t_.ns(), a.id).seen_count, 3);
  EXPECT_EQ(Reload(t_.ns(), b.id).superseded_by, a.id);
}

}  // namespace
}  // namespace cilia::memory
