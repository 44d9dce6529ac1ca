#include "index/fusion.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cilia::index {
namespace {

TEST(FuseRanks, RankOneInBothLanesScoresOne) {
  RankingOptions o;
  auto hits = FuseRanks({7, 8}, {7, 9}, o);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].id, 7);
  EXPECT_DOUBLE_EQ(hits[0].fused, 1.0);
  EXPECT_EQ(hits[0].vector_rank, 1);
  EXPECT_EQ(hits[0].lexical_rank, 1);
}

TEST(FuseRanks, FollowsTheWeightedRrfFormula) {
  RankingOptions o;
  o.vector_weight = 0.7;
  o.lexical_weight = 0.3;
  auto hits = FuseRanks({1, 2, 3}, {3}, o);
  // id 3: vector rank 3, lexical rank 1.
  const FusedHit* three = nullptr;
  for (const auto& h : hits) if (h.id == 3) three = &h;
  ASSERT_NE(three, nullptr);
  EXPECT_NEAR(three->fused, 0.7 * 61.0 / 63.0 + 0.3 * 1.0, 1e-12);
  EXPECT_EQ(hits[0].id, 3);  // found by both lanes, it beats vector rank 1 alone
}

TEST(FuseRanks, KeywordOnlyHitCanWinWhenVectorLaneIsWeak) {
  RankingOptions o;  // the defaults weigh the lexical lane more
  auto hits = FuseRanks({1}, {2}, o);
  EXPECT_EQ(hits[0].id, 2);
  EXPECT_EQ(hits[0].vector_rank, 0);
}

TEST(FuseRanks, DuplicateIdsInALaneKeepTheirFirstRank) {
  auto hits = FuseRanks({5, 5, 6}, {}, RankingOptions{});
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].vector_rank, 1);
  EXPECT_EQ(hits[1].vector_rank, 3);
}

TEST(Multipliers, RecencyDecaysTowardsItsFloor) {
  RankingOptions o;
  EXPECT_DOUBLE_EQ(RecencyMultiplier(0, o), 1.0);
  EXPECT_NEAR(RecencyMultiplier(60, o), 0.7 + 0.3 / M_E, 1e-12);
  EXPECT_NEAR(RecencyMultiplier(1e6, o), 0.7, 1e-9);
  EXPECT_DOUBLE_EQ(RecencyMultiplier(-5, o), 1.0);  // a future date counts as new
}

TEST(Multipliers, AccessGrowsLogarithmically) {
  RankingOptions o;
  EXPECT_DOUBLE_EQ(AccessMultiplier(0, o), 1.0);
  EXPECT_NEAR(AccessMultiplier(1, o), 1 + 0.05 * std::log(2.0), 1e-12);
  EXPECT_NEAR(AccessMultiplier(100, o), 1.2308, 1e-4);
}

TEST(Multipliers, ValidityInsideBeforeAndAfterTheWindow) {
  const int64_t day = 86'400'000;
  EXPECT_DOUBLE_EQ(ValidityMultiplier(10 * day, 0, 0), 1.0);
  EXPECT_DOUBLE_EQ(ValidityMultiplier(10 * day, 5 * day, 20 * day), 1.0);
  EXPECT_NEAR(ValidityMultiplier(10 * day, 13 * day, 0), 0.7, 1e-12);
  EXPECT_DOUBLE_EQ(ValidityMultiplier(0, 100 * day, 0), 0.1);
  EXPECT_NEAR(ValidityMultiplier(12 * day, 0, 10 * day), std::exp(-0.2), 1e-12);
  EXPECT_DOUBLE_EQ(ValidityMultiplier(1000 * day, 0, 10 * day), 0.05);
}

TEST(ApplyRelativeFloor, DropsHitsFarBelowTheBest) {
  RankingOptions o;
  o.relative_floor = 0.5;
  std::vector<FusedHit> hits = {{1, 1, 0, 1, 1.0}, {2, 2, 0, 0.6, 0.6}, {3, 3, 0, 0.4, 0.4}};
  ApplyRelativeFloor(hits, o);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[1].id, 2);
}

}  // namespace
}  // namespace cilia::index
