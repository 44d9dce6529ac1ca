#include "index/bm25_index.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cilia::index {
namespace {

TEST(Bm25Index, RanksByTheBm25Formula) {
  Bm25Index index;
  index.Add(1, "kiwi kiwi banana");
  index.Add(2, "kiwi apple apple apple apple");
  index.Add(3, "cherry");
  auto hits = index.Search({"kiwi"}, 10);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].first, 1);  // higher tf, shorter document
  // idf = ln((3 - 2 + 0.5) / (2 + 0.5) + 1); avgdl = 3; doc 1: tf 2, len 3.
  double idf = std::log(1.5 / 2.5 + 1);
  double expected = idf * 2 * 2.2 / (2 + 1.2 * (1 - 0.75 + 0.75 * 3 / 3.0));
  EXPECT_NEAR(hits[0].second, expected, 1e-5);
}

TEST(Bm25Index, RepeatedQueryTermsCountOnceAndUnknownOnesNothing) {
  Bm25Index index;
  index.Add(1, "a b");
  index.Add(2, "c");
  auto once = index.Search({"a"}, 5);
  auto twice = index.Search({"a", "a", "zzz"}, 5);
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_DOUBLE_EQ(once[0].second, twice[0].second);
  EXPECT_TRUE(index.Search({"zzz"}, 5).empty());
}

TEST(Bm25Index, RemoveAndReplace) {
  Bm25Index index;
  index.Add(1, "alpha");
  index.Add(2, "alpha beta");
  index.Remove(1);
  auto hits = index.Search({"alpha"}, 5);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].first, 2);
  index.Add(2, "gamma");  // replaces
  EXPECT_TRUE(index.Search({"alpha"}, 5).empty());
  EXPECT_EQ(index.size(), 1u);
}

TEST(Bm25Index, CompactionKeepsResultsExact) {
  Bm25Index index;
  for (int i = 0; i < 5000; ++i) index.Add(i, i % 7 ? "common word" : "common rare");
  for (int i = 0; i < 3000; ++i) index.Remove(i);  // triggers compaction
  EXPECT_EQ(index.size(), 2000u);
  auto rare = index.Search({"rare"}, 10000);
  size_t expected = 0;
  for (int i = 3000; i < 5000; ++i) expected += i % 7 == 0;
  EXPECT_EQ(rare.size(), expected);
  for (const auto& [id, score] : rare) EXPECT_GE(id, 3000);
  EXPECT_LE(index.DocumentFrequency("rare"), static_cast<int64_t>(expected) + 1000);
}

TEST(Bm25Index, FilterAndContainingAll) {
  Bm25Index index;
  index.Add(10, "wifi password kiwi 2048");
  index.Add(11, "kiwi fruit");
  index.Add(12, "password kiwi");
  auto allowed = index.Search({"kiwi"}, 10, [](int64_t id) { return id != 11; });
  ASSERT_EQ(allowed.size(), 2u);
  for (const auto& h : allowed) EXPECT_NE(h.first, 11);
  EXPECT_EQ(index.ContainingAll({"password", "kiwi"}, 10), (std::vector<int64_t>{12, 10}));  // newest first
  EXPECT_EQ(index.ContainingAll({"kiwi", "2048"}, 10), std::vector<int64_t>{10});
  EXPECT_TRUE(index.ContainingAll({"kiwi", "absent"}, 10).empty());
  EXPECT_EQ(index.ContainingAll({"kiwi"}, 1).size(), 1u);
}

}  // namespace
}  // namespace cilia::index
