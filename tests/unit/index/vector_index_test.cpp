#include "index/vector_index.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <thread>

#include "core/half.h"

namespace cilia::index {
namespace {

using Hits = std::vector<std::pair<int64_t, float>>;

std::vector<float> RandomUnitVector(int dim, std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(static_cast<size_t>(dim));
  float norm = 0;
  for (float& x : v) {
    x = normal(rng);
    norm += x * x;
  }
  for (float& x : v) x /= std::sqrt(norm);
  return v;
}

// n random unit vectors with ids 0..n-1, each value a float16 as the index
// keeps it, so that the exact answers below are the index's exactly.
struct Corpus {
  Corpus(size_t n, int dim, uint32_t seed) : dim(dim) {
    std::mt19937 rng(seed);
    for (size_t i = 0; i < n; ++i) {
      ids.push_back(static_cast<int64_t>(i));
      for (float x : RandomUnitVector(dim, rng)) flat.push_back(RoundToHalf(x));
    }
  }
  std::span<const float> at(size_t i) const { return std::span<const float>(flat).subspan(i * dim, dim); }

  int dim;
  std::vector<int64_t> ids;
  std::vector<float> flat;
};

// The exact answer, computed the slow and obvious way.
Hits BruteForce(const Corpus& c, std::span<const float> query, size_t k,
                const std::function<bool(int64_t)>& allow = {}) {
  Hits all;
  for (size_t i = 0; i < c.ids.size(); ++i) {
    if (allow && !allow(c.ids[i])) continue;
    double dot = 0;
    for (int d = 0; d < c.dim; ++d) dot += static_cast<double>(c.at(i)[d]) * query[d];
    all.emplace_back(c.ids[i], static_cast<float>(dot));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  all.resize(std::min(k, all.size()));
  return all;
}

std::vector<int64_t> Ids(const Hits& hits) {
  std::vector<int64_t> ids;
  for (const auto& hit : hits) ids.push_back(hit.first);
  return ids;
}

double RecallAt(const Hits& found, const Hits& truth) {
  std::set<int64_t> expected;
  for (const auto& hit : truth) expected.insert(hit.first);
  size_t hits = 0;
  for (const auto& hit : found) hits += expected.count(hit.first);
  return truth.empty() ? 1.0 : static_cast<double>(hits) / static_cast<double>(truth.size());
}

void Load(VectorIndex& index, const Corpus& c) { ASSERT_TRUE(index.UpsertMany(c.ids, c.flat).ok()); }

// Graph mode over the corpus's first `in_graph` vectors (at least the index's
// threshold), the rest upserted one by one after, so that they wait beside the
// graph (fewer than VectorIndex::kFoldAt of them).
void LoadWithPending(VectorIndex& index, const Corpus& c, size_t in_graph) {
  const size_t dim = static_cast<size_t>(c.dim);
  ASSERT_TRUE(index.UpsertMany(std::span(c.ids).first(in_graph), std::span(c.flat).first(in_graph * dim)).ok());
  for (size_t i = in_graph; i < c.ids.size(); ++i) ASSERT_TRUE(index.Upsert(c.ids[i], c.at(i)).ok());
  ASSERT_TRUE(index.uses_graph());
  ASSERT_EQ(index.pending(), c.ids.size() - in_graph);
}

TEST(VectorIndexTest, FlatScanIsExact) {
  Corpus corpus(3000, 48, 1);
  VectorIndex index(48);
  Load(index, corpus);
  ASSERT_FALSE(index.uses_graph());
  std::mt19937 rng(2);

  for (int q = 0; q < 30; ++q) {
    const auto query = RandomUnitVector(48, rng);
    const Hits found = index.Search(query, 10);
    const Hits truth = BruteForce(corpus, query, 10);
    ASSERT_EQ(Ids(found), Ids(truth));
    for (size_t i = 0; i < found.size(); ++i) EXPECT_NEAR(found[i].second, truth[i].second, 1e-5);
  }
}

TEST(VectorIndexTest, DimensionsThatAreNotMultiplesOfTheKernelWidthScoreRight) {
  for (int dim : {2, 3, 17, 31, 257}) {
    Corpus corpus(50, dim, 3);
    VectorIndex index(dim);
    Load(index, corpus);
    const Hits found = index.Search(corpus.at(7), 1);
    ASSERT_EQ(found.size(), 1u) << dim;
    EXPECT_EQ(found[0].first, 7) << dim;
    EXPECT_NEAR(found[0].second, BruteForce(corpus, corpus.at(7), 1)[0].second, 1e-5) << dim;
  }
}

TEST(VectorIndexTest, UpsertReplacesTheVectorOfAnId) {
  VectorIndex index(2);
  ASSERT_TRUE(index.Upsert(5, std::vector<float>{1, 0}).ok());
  ASSERT_TRUE(index.Upsert(5, std::vector<float>{0, 1}).ok());

  EXPECT_EQ(index.size(), 1u);
  const Hits found = index.Search(std::vector<float>{0, 1}, 3);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].first, 5);
  EXPECT_FLOAT_EQ(found[0].second, 1.0f);
}

TEST(VectorIndexTest, UpsertManyWithARepeatedIdKeepsTheLast) {
  VectorIndex index(2);
  ASSERT_TRUE(index.UpsertMany(std::vector<int64_t>{1, 1}, std::vector<float>{1, 0, 0, 1}).ok());
  EXPECT_EQ(index.size(), 1u);
  EXPECT_FLOAT_EQ(index.Search(std::vector<float>{0, 1}, 1)[0].second, 1.0f);
}

TEST(VectorIndexTest, WrongVectorsAreRefusedAndChangeNothing) {
  VectorIndex index(3);
  EXPECT_EQ(index.Upsert(1, std::vector<float>{1, 0}).code(), Code::kInvalidArgument);
  EXPECT_EQ(index.Upsert(1, std::vector<float>{1, NAN, 0}).code(), Code::kInvalidArgument);
  EXPECT_EQ(index.Upsert(1, std::vector<float>{INFINITY, 0, 0}).code(), Code::kInvalidArgument);
  EXPECT_EQ(index.UpsertMany(std::vector<int64_t>{1, 2}, std::vector<float>{1, 0, 0}).code(), Code::kInvalidArgument);
  EXPECT_EQ(index.size(), 0u);
}

TEST(VectorIndexTest, ValuesAreKeptAsFloat16WouldKeepThem) {
  VectorIndex index(3);
  ASSERT_TRUE(index.Upsert(1, std::vector<float>{0.1f, 0.3f, 0.9f}).ok());
  const std::vector<float> unit[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  EXPECT_EQ(index.Search(unit[0], 1)[0].second, RoundToHalf(0.1f));
  EXPECT_NE(RoundToHalf(0.1f), 0.1f);
  EXPECT_EQ(index.Search(unit[1], 1)[0].second, RoundToHalf(0.3f));
  EXPECT_EQ(index.Search(unit[2], 1)[0].second, RoundToHalf(0.9f));
  // The query keeps float32.
  EXPECT_EQ(index.Search(std::vector<float>{0.1f, 0, 0}, 1)[0].second, 0.1f * RoundToHalf(0.1f));

  EXPECT_EQ(index.Upsert(2, std::vector<float>{65504, 0, 0}).code(), Code::kOk);
  EXPECT_EQ(index.Upsert(3, std::vector<float>{-70000, 0, 0}).code(), Code::kInvalidArgument) << "infinite as float16";
  EXPECT_EQ(index.size(), 2u);
}

TEST(VectorIndexTest, EdgeCasesOfKAndQuery) {
  VectorIndex index(2);
  EXPECT_TRUE(index.Search(std::vector<float>{1, 0}, 5).empty());  // empty index
  ASSERT_TRUE(index.UpsertMany(std::vector<int64_t>{1, 2}, std::vector<float>{1, 0, 0, 1}).ok());

  EXPECT_TRUE(index.Search(std::vector<float>{1, 0}, 0).empty());
  EXPECT_TRUE(index.Search(std::vector<float>{1, 0, 0}, 5).empty());  // wrong dimension
  EXPECT_EQ(Ids(index.Search(std::vector<float>{1, 0}, 100)), (std::vector<int64_t>{1, 2}));
  // The zero vector (an empty text) is similar to nothing, and to everything equally.
  const Hits zero = index.Search(std::vector<float>{0, 0}, 2);
  ASSERT_EQ(zero.size(), 2u);
  EXPECT_EQ(zero[0].second, 0.0f);
}

TEST(VectorIndexTest, EqualScoresGoToTheSmallerId) {
  VectorIndex index(2);
  for (int64_t id : {9, 3, 7, 1}) ASSERT_TRUE(index.Upsert(id, std::vector<float>{1, 0}).ok());
  EXPECT_EQ(Ids(index.Search(std::vector<float>{1, 0}, 3)), (std::vector<int64_t>{1, 3, 7}));
}

TEST(VectorIndexTest, NegativeAndHugeIdsWork) {
  VectorIndex index(2);
  const int64_t big = std::numeric_limits<int64_t>::max();
  ASSERT_TRUE(index.Upsert(-4, std::vector<float>{1, 0}).ok());
  ASSERT_TRUE(index.Upsert(big, std::vector<float>{0, 1}).ok());
  EXPECT_EQ(index.Search(std::vector<float>{1, 0}, 1)[0].first, -4);
  EXPECT_EQ(index.Search(std::vector<float>{0, 1}, 1)[0].first, big);
}

TEST(VectorIndexTest, RemoveTakesAVectorOutAndKeepsTheOthersRight) {
  Corpus corpus(100, 16, 4);
  VectorIndex index(16);
  Load(index, corpus);

  index.Remove(10);     // a slot in the middle: the last one moves into it
  index.Remove(99);     // the last slot
  index.Remove(12345);  // unknown: nothing happens

  EXPECT_EQ(index.size(), 98u);
  EXPECT_NE(index.Search(corpus.at(10), 1)[0].first, 10);
  for (size_t i : {0, 50, 98}) {
    const Hits found = index.Search(corpus.at(i), 1);
    EXPECT_EQ(found[0].first, static_cast<int64_t>(i));
    EXPECT_NEAR(found[0].second, 1.0f, 1e-3);  // a unit vector rounded to float16 has a norm of 1 within a few 1e-4
  }
  ASSERT_TRUE(index.Upsert(10, corpus.at(10)).ok());
  EXPECT_EQ(index.Search(corpus.at(10), 1)[0].first, 10);
}

TEST(VectorIndexTest, FilterKeepsOnlyAllowedIdsInExactOrder) {
  Corpus corpus(500, 16, 5);
  VectorIndex index(16);
  Load(index, corpus);
  auto odd = [](int64_t id) { return id % 2 == 1; };
  std::mt19937 rng(6);
  const auto query = RandomUnitVector(16, rng);

  EXPECT_EQ(Ids(index.Search(query, 10, odd)), Ids(BruteForce(corpus, query, 10, odd)));
  EXPECT_TRUE(index.Search(query, 10, [](int64_t) { return false; }).empty());
}

TEST(VectorIndexTest, GraphTakesOverAtTheThreshold) {
  Corpus corpus(1200, 16, 7);
  VectorIndex index(16, 1000);
  ASSERT_TRUE(index.UpsertMany(std::span(corpus.ids).first(999), std::span(corpus.flat).first(999 * 16)).ok());
  EXPECT_FALSE(index.uses_graph());

  ASSERT_TRUE(index.Upsert(999, corpus.at(999)).ok());
  EXPECT_TRUE(index.uses_graph());
  EXPECT_EQ(index.size(), 1000u);

  // It keeps growing past its first capacity.
  ASSERT_TRUE(index.UpsertMany(std::span(corpus.ids).subspan(1000), std::span(corpus.flat).subspan(1000 * 16)).ok());
  EXPECT_EQ(index.size(), 1200u);
  for (size_t i : {0, 999, 1199}) {
    const Hits found = index.Search(corpus.at(i), 1);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].first, static_cast<int64_t>(i));
    EXPECT_NEAR(found[0].second, 1.0f, 1e-3);  // a unit vector rounded to float16 has a norm of 1 within a few 1e-4
  }
}

class GraphTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    corpus_ = new Corpus(20000, 64, 8);
    index_ = new VectorIndex(64, 1000);
    ASSERT_TRUE(index_->UpsertMany(corpus_->ids, corpus_->flat).ok());
  }
  static void TearDownTestSuite() {
    delete index_;
    delete corpus_;
  }

  static Corpus* corpus_;
  static VectorIndex* index_;
};
Corpus* GraphTest::corpus_ = nullptr;
VectorIndex* GraphTest::index_ = nullptr;

TEST_F(GraphTest, RecallAt10IsAtLeast95Percent) {
  ASSERT_TRUE(index_->uses_graph());
  std::mt19937 rng(9);
  double recall = 0;
  constexpr int kQueries = 200;
  for (int q = 0; q < kQueries; ++q) {
    const auto query = RandomUnitVector(64, rng);
    recall += RecallAt(index_->Search(query, 10), BruteForce(*corpus_, query, 10));
  }
  EXPECT_GE(recall / kQueries, 0.95);
}

TEST_F(GraphTest, BroadFilterKeepsRecallAndOnlyAllowedIds) {
  auto third = [](int64_t id) { return id % 3 == 0; };
  std::mt19937 rng(10);
  double recall = 0;
  constexpr int kQueries = 100;
  for (int q = 0; q < kQueries; ++q) {
    const auto query = RandomUnitVector(64, rng);
    const Hits found = index_->Search(query, 10, third);
    ASSERT_EQ(found.size(), 10u);
    for (const auto& hit : found) ASSERT_TRUE(third(hit.first));
    recall += RecallAt(found, BruteForce(*corpus_, query, 10, third));
  }
  EXPECT_GE(recall / kQueries, 0.95);
}

TEST_F(GraphTest, SelectiveFilterIsAnsweredExactly) {
  auto rare = [](int64_t id) { return id % 997 == 0; };  // 21 of 20000
  std::mt19937 rng(11);
  const auto query = RandomUnitVector(64, rng);
  EXPECT_EQ(Ids(index_->Search(query, 10, rare)), Ids(BruteForce(*corpus_, query, 10, rare)));
  EXPECT_EQ(index_->Search(query, 50, rare).size(), 21u);
}

// A filter as SearchAllowed takes it: the ids, and the test accepting just them.
struct Allowed {
  explicit Allowed(std::vector<int64_t> list) : ids(std::move(list)), set(ids.begin(), ids.end()) {}
  bool operator()(int64_t id) const { return set.count(id) > 0; }
  std::vector<int64_t> ids;
  std::set<int64_t> set;
};

Hits SearchAllowed(const VectorIndex& index, std::span<const float> query, size_t k, const Allowed& allowed) {
  return index.SearchAllowed(query, k, allowed.ids, [&allowed](int64_t id) { return allowed(id); });
}

TEST_F(GraphTest, FewAllowedIdsAreScoredExactlyAndManyGoThroughTheGraph) {
  std::vector<int64_t> list = {-1, 50000};  // ids the index does not hold count for nothing
  for (int64_t id = 5; id < 20000; id += 1500) list.push_back(id);
  const Allowed few(list);
  std::mt19937 rng(19);
  const auto query = RandomUnitVector(64, rng);
  EXPECT_EQ(Ids(SearchAllowed(*index_, query, 10, few)), Ids(BruteForce(*corpus_, query, 10, few)));
  EXPECT_EQ(SearchAllowed(*index_, query, 50, few).size(), 14u);

  std::vector<int64_t> every_third;
  for (int64_t id = 0; id < 20000; id += 3) every_third.push_back(id);
  const Allowed third(every_third);
  EXPECT_EQ(SearchAllowed(*index_, query, 10, third), index_->Search(query, 10, third));
}

TEST(VectorIndexTest, AllowedIdsAreAnsweredExactlyInFlatAndGraphMode) {
  Corpus corpus(600, 16, 20);
  VectorIndex flat(16);
  Load(flat, corpus);
  VectorIndex graph(16, 500);
  Load(graph, corpus);
  ASSERT_TRUE(graph.uses_graph());
  // Id 7 is removed; id 8 comes back with the vector of 9.
  Corpus changed = corpus;
  std::copy_n(corpus.at(9).begin(), 16, changed.flat.begin() + 8 * 16);
  for (VectorIndex* index : {&flat, &graph}) {
    index->Remove(7);
    index->Remove(8);
    ASSERT_TRUE(index->Upsert(8, corpus.at(9)).ok());
  }
  std::mt19937 rng(21);
  for (const Allowed& allowed : {Allowed({}), Allowed({7}), Allowed({3, 7, 8, 11, 599, 600, -4}),
                                 Allowed({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})}) {
    auto live = [&allowed](int64_t id) { return id != 7 && allowed(id); };
    for (size_t k : {1, 4, 10}) {
      const auto query = RandomUnitVector(16, rng);
      const Hits truth = BruteForce(changed, query, k, live);
      const Hits from_flat = SearchAllowed(flat, query, k, allowed);
      EXPECT_EQ(Ids(from_flat), Ids(truth)) << "flat, k " << k << ", " << allowed.ids.size() << " allowed";
      EXPECT_EQ(from_flat, flat.Search(query, k, allowed)) << "the same scores as with the test alone";
      EXPECT_EQ(Ids(SearchAllowed(graph, query, k, allowed)), Ids(truth)) << "graph, k " << k;
    }
  }
  const Hits eight = SearchAllowed(graph, corpus.at(9), 1, Allowed({8, 100}));
  ASSERT_EQ(eight.size(), 1u);
  EXPECT_EQ(eight[0].first, 8);
  EXPECT_NEAR(eight[0].second, 1.0f, 1e-3);  // as above
}

TEST(VectorIndexTest, RemovedIdsLeaveTheGraphAndCanComeBack) {
  Corpus corpus(3000, 16, 12);
  VectorIndex index(16, 1000);
  Load(index, corpus);
  ASSERT_TRUE(index.uses_graph());

  for (int64_t id = 0; id < 100; ++id) index.Remove(id);
  index.Remove(0);  // twice: nothing more happens

  EXPECT_EQ(index.size(), 2900u);
  for (int64_t id = 0; id < 100; ++id) {
    for (const auto& hit : index.Search(corpus.at(static_cast<size_t>(id)), 5)) ASSERT_GE(hit.first, 100);
  }
  ASSERT_TRUE(index.Upsert(42, corpus.at(42)).ok());
  EXPECT_EQ(index.Search(corpus.at(42), 1)[0].first, 42);
  EXPECT_EQ(index.size(), 2901u);
}

TEST(VectorIndexTest, GraphWithMostlyTombstonesFallsBackToFlat) {
  Corpus corpus(2000, 16, 13);
  VectorIndex index(16, 1000);
  Load(index, corpus);
  ASSERT_TRUE(index.uses_graph());

  for (int64_t id = 0; id < 1200; ++id) index.Remove(id);

  EXPECT_FALSE(index.uses_graph());
  EXPECT_EQ(index.size(), 800u);
  EXPECT_EQ(index.Search(corpus.at(1500), 1)[0].first, 1500);
  EXPECT_NE(index.Search(corpus.at(5), 1)[0].first, 5);
}

TEST(VectorIndexTest, GraphWithManyTombstonesIsRebuiltAboveTheThreshold) {
  Corpus corpus(3000, 16, 14);
  VectorIndex index(16, 1000);
  Load(index, corpus);

  for (int64_t id = 0; id < 1600; ++id) index.Remove(id);

  EXPECT_TRUE(index.uses_graph());
  EXPECT_EQ(index.size(), 1400u);
  EXPECT_EQ(index.Search(corpus.at(2500), 1)[0].first, 2500);
}

// Past the threshold, new vectors wait beside the graph and are found exactly
// until kFoldAt of them go into the graph together.
TEST(VectorIndexTest, NewVectorsInGraphModeAreFoundAtOnceAndFoldedInBatches) {
  constexpr size_t kGraph = 1000;
  Corpus corpus(kGraph + VectorIndex::kFoldAt + 10, 16, 15);
  VectorIndex index(16, kGraph);
  ASSERT_TRUE(index.UpsertMany(std::span(corpus.ids).first(kGraph), std::span(corpus.flat).first(kGraph * 16)).ok());
  ASSERT_TRUE(index.uses_graph());
  EXPECT_EQ(index.pending(), 0u);

  for (size_t i = kGraph; i < kGraph + VectorIndex::kFoldAt - 1; ++i) {
    ASSERT_TRUE(index.Upsert(static_cast<int64_t>(i), corpus.at(i)).ok());
  }
  EXPECT_EQ(index.pending(), VectorIndex::kFoldAt - 1);
  EXPECT_EQ(index.size(), kGraph + VectorIndex::kFoldAt - 1);
  for (size_t i : {size_t{0}, kGraph, kGraph + VectorIndex::kFoldAt - 2}) {
    const Hits found = index.Search(corpus.at(i), 1);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].first, static_cast<int64_t>(i));
    EXPECT_NEAR(found[0].second, 1.0f, 1e-3);
  }
  // Among the ten best, every id once, and the truth of the whole corpus so far.
  const Corpus& c = corpus;
  const size_t held = kGraph + VectorIndex::kFoldAt - 1;
  const Hits top = index.Search(corpus.at(kGraph + 3), 10, [](int64_t) { return true; });
  const std::vector<int64_t> top_ids = Ids(top);
  EXPECT_EQ(std::set<int64_t>(top_ids.begin(), top_ids.end()).size(), top.size());
  EXPECT_EQ(top[0].first, static_cast<int64_t>(kGraph + 3));
  EXPECT_GE(RecallAt(top, BruteForce(c, corpus.at(kGraph + 3), 10, [&](int64_t id) {
              return static_cast<size_t>(id) < held;
            })),
            0.9);

  ASSERT_TRUE(index.Upsert(static_cast<int64_t>(held), corpus.at(held)).ok());  // the kFoldAt-th
  EXPECT_EQ(index.pending(), 0u);
  EXPECT_EQ(index.size(), held + 1);
  for (size_t i : {kGraph, held}) EXPECT_EQ(index.Search(corpus.at(i), 1)[0].first, static_cast<int64_t>(i));
}

TEST(VectorIndexTest, APendingVectorReplacesTheGraphsAndCanBeRemoved) {
  Corpus corpus(1200, 16, 16);
  VectorIndex index(16, 1000);
  Load(index, corpus);
  ASSERT_TRUE(index.uses_graph());
  ASSERT_EQ(index.pending(), 0u);

  ASSERT_TRUE(index.Upsert(7, corpus.at(900)).ok());  // id 7 now holds 900's vector
  EXPECT_EQ(index.pending(), 1u);
  EXPECT_EQ(index.size(), 1200u);
  const Hits near_900 = index.Search(corpus.at(900), 2);
  ASSERT_EQ(near_900.size(), 2u);
  EXPECT_EQ(std::set<int64_t>({near_900[0].first, near_900[1].first}), std::set<int64_t>({7, 900}));
  for (const auto& hit : index.Search(corpus.at(7), 5)) EXPECT_NE(hit.first, 7) << "the old vector of 7 is gone";
  // The exact path over listed ids sees the pending copy too.
  const std::vector<int64_t> listed = {7, 8};
  const Hits exact = index.SearchAllowed(corpus.at(900), 1, listed, [](int64_t id) { return id == 7 || id == 8; });
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_EQ(exact[0].first, 7);

  index.Remove(7);
  EXPECT_EQ(index.pending(), 0u);
  EXPECT_EQ(index.size(), 1199u);
  for (const auto& hit : index.Search(corpus.at(900), 5)) EXPECT_NE(hit.first, 7);
  ASSERT_TRUE(index.FoldPending().ok());  // nothing to fold: a no-op
  EXPECT_EQ(index.size(), 1199u);
}

TEST(VectorIndexTest, FallingBackToFlatKeepsThePendingVectors) {
  Corpus corpus(1600, 16, 17);
  VectorIndex index(16, 1000);
  LoadWithPending(index, corpus, 1500);

  // The 751st removal leaves more tombstones than live vectors in the graph,
  // and fewer than the threshold live ones with the pending.
  for (int64_t id = 0; id <= 750; ++id) index.Remove(id);

  EXPECT_FALSE(index.uses_graph());
  EXPECT_EQ(index.pending(), 0u);
  EXPECT_EQ(index.size(), 849u);
  for (size_t i : {751, 1499, 1500, 1599}) EXPECT_EQ(index.Search(corpus.at(i), 1)[0].first, static_cast<int64_t>(i));
}

TEST(VectorIndexTest, SearchesRunWhileAWriterChangesTheIndex) {
  constexpr int kDim = 16;
  Corpus corpus(3000, kDim, 15);
  VectorIndex index(kDim, 1500);  // the writer crosses the threshold mid-way
  Load(index, Corpus(500, kDim, 16));

  std::atomic<bool> done{false};
  std::atomic<int> bad_results{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      while (!done) {
        const auto query = RandomUnitVector(kDim, rng);
        const Hits hits = index.Search(
            query, 10, t == 0 ? std::function<bool(int64_t)>() : [](int64_t id) { return id % 2 == 0; });
        for (size_t i = 1; i < hits.size(); ++i) {
          if (hits[i - 1].second < hits[i].second) ++bad_results;
        }
      }
    });
  }
  for (size_t i = 0; i < corpus.ids.size(); ++i) {
    ASSERT_TRUE(index.Upsert(static_cast<int64_t>(1000 + i), corpus.at(i)).ok());
    if (i % 7 == 0) index.Remove(static_cast<int64_t>(1000 + i / 2));
  }
  done = true;
  for (auto& reader : readers) reader.join();

  EXPECT_EQ(bad_results.load(), 0);
  EXPECT_TRUE(index.uses_graph());
  EXPECT_EQ(index.Search(corpus.at(2999), 1)[0].first, 1000 + 2999);
}

class VectorIndexFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::path(::testing::TempDir()) / ("vector_index_" + std::to_string(::getpid()) + "_" +
                                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "vectors.cache").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static void ExpectSameAnswers(const VectorIndex& a, const VectorIndex& b, int dim) {
    std::mt19937 rng(20);
    for (int q = 0; q < 20; ++q) {
      const auto query = RandomUnitVector(dim, rng);
      EXPECT_EQ(Ids(a.Search(query, 10)), Ids(b.Search(query, 10)));
    }
  }

  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(VectorIndexFileTest, FlatIndexRoundTrips) {
  Corpus corpus(300, 24, 21);
  VectorIndex index(24);
  Load(index, corpus);
  index.Remove(17);

  ASSERT_TRUE(index.SaveTo(path_).ok());
  auto loaded = VectorIndex::LoadFrom(path_);

  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->dimension(), 24);
  EXPECT_EQ((*loaded)->size(), 299u);
  EXPECT_FALSE((*loaded)->uses_graph());
  EXPECT_FALSE(std::filesystem::exists(path_ + ".hnsw"));
  // A 32-byte header, then per vector its id and 24 float16 values.
  EXPECT_EQ(std::filesystem::file_size(path_), 32u + 299u * (8 + 24 * 2));
  ExpectSameAnswers(index, **loaded, 24);
  std::mt19937 rng(25);
  const auto query = RandomUnitVector(24, rng);
  EXPECT_EQ(index.Search(query, 300), (*loaded)->Search(query, 300)) << "float16 on disk loses nothing the index held";
}

TEST_F(VectorIndexFileTest, CacheOfTheFloat32FormatIsRefused) {
  // Version 1 held the flat vectors as float32: a complete, consistent file
  // of it must not be read as float16.
  struct {
    char magic[8] = {'C', 'I', 'L', 'I', 'A', 'V', 'E', 'C'};
    uint32_t version = 1;
    int32_t dimension = 4;
    uint64_t count = 2;
    uint64_t graph_bytes = 0;
  } header;
  static_assert(sizeof(header) == 32);
  const int64_t ids[2] = {1, 2};
  const float vectors[8] = {1, 0, 0, 0, 0, 1, 0, 0};
  {
    std::ofstream out(path_, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    out.write(reinterpret_cast<const char*>(ids), sizeof(ids));
    out.write(reinterpret_cast<const char*>(vectors), sizeof(vectors));
  }
  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);
}

TEST_F(VectorIndexFileTest, GraphRoundTripsAndKeepsGrowing) {
  Corpus corpus(2500, 24, 22);
  VectorIndex index(24, 1000);
  ASSERT_TRUE(index.UpsertMany(std::span(corpus.ids).first(2000), std::span(corpus.flat).first(2000 * 24)).ok());
  index.Remove(5);

  ASSERT_TRUE(index.SaveTo(path_).ok());
  auto loaded = VectorIndex::LoadFrom(path_, 1000);

  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  VectorIndex& copy = **loaded;
  EXPECT_TRUE(copy.uses_graph());
  EXPECT_EQ(copy.size(), 1999u);
  ExpectSameAnswers(index, copy, 24);

  ASSERT_TRUE(copy.UpsertMany(std::span(corpus.ids).subspan(2000), std::span(corpus.flat).subspan(2000 * 24)).ok());
  copy.Remove(6);
  EXPECT_EQ(copy.size(), 2498u);
  EXPECT_EQ(copy.Search(corpus.at(2400), 1)[0].first, 2400);
  EXPECT_NE(copy.Search(corpus.at(5), 1)[0].first, 5);
}

TEST_F(VectorIndexFileTest, SavingFoldsThePendingVectorsIntoTheSavedGraph) {
  Corpus corpus(1100, 24, 23);
  VectorIndex index(24, 1000);
  LoadWithPending(index, corpus, 1000);

  ASSERT_TRUE(index.SaveTo(path_).ok());
  EXPECT_EQ(index.pending(), 0u);
  auto loaded = VectorIndex::LoadFrom(path_, 1000);

  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 1100u);
  EXPECT_EQ((*loaded)->Search(corpus.at(1050), 1)[0].first, 1050);
  ExpectSameAnswers(index, **loaded, 24);
}

TEST_F(VectorIndexFileTest, EmptyIndexRoundTrips) {
  VectorIndex index(8);
  ASSERT_TRUE(index.SaveTo(path_).ok());
  auto loaded = VectorIndex::LoadFrom(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 0u);
  EXPECT_EQ((*loaded)->dimension(), 8);
}

TEST_F(VectorIndexFileTest, MissingOrForeignFilesAreIoErrors) {
  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);

  std::ofstream(path_) << "not a cache file at all, but long enough to hold a header";
  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);
}

TEST_F(VectorIndexFileTest, FlatFileCutShortIsAnIoError) {
  Corpus corpus(50, 8, 23);
  VectorIndex index(8);
  Load(index, corpus);
  ASSERT_TRUE(index.SaveTo(path_).ok());
  std::filesystem::resize_file(path_, std::filesystem::file_size(path_) - 4);

  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);
}

TEST_F(VectorIndexFileTest, GraphFileMissingOrFromAnotherSaveIsAnIoError) {
  Corpus corpus(1500, 8, 24);
  VectorIndex index(8, 1000);
  Load(index, corpus);
  ASSERT_TRUE(index.SaveTo(path_).ok());
  const std::string graph = path_ + ".hnsw";

  std::filesystem::resize_file(graph, std::filesystem::file_size(graph) + 8);
  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);

  std::filesystem::remove(graph);
  EXPECT_EQ(VectorIndex::LoadFrom(path_).status().code(), Code::kIOError);
}

}  // namespace
}  // namespace cilia::index
