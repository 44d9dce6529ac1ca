#include "index/bm25_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

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

TEST(Bm25Index, SeedsStartDocumentsWithAScoreOfAnotherField) {
  Bm25Index index;
  index.Add(1, "kiwi banana");
  index.Add(2, "cherry plum");
  index.Add(3, "kiwi apple");
  // Document 2 holds no term but has a seed; 3's seed adds to its own score; 9 is not indexed.
  auto hits = index.Search({"kiwi"}, 10, {}, {{2, 0.1}, {3, 0.25}, {9, 5.0}});
  ASSERT_EQ(hits.size(), 3u);
  const double kiwi = index.Search({"kiwi"}, 10)[0].second;
  EXPECT_EQ(hits[0].first, 3);
  EXPECT_NEAR(hits[0].second, kiwi + 0.25, 1e-5);
  EXPECT_EQ(hits[1].first, 1);
  EXPECT_EQ(hits[2].first, 2);
  EXPECT_NEAR(hits[2].second, 0.1, 1e-6);
  // With no terms at all, the seeds alone rank.
  auto seeded = index.Search({}, 10, {}, {{2, 0.5}});
  ASSERT_EQ(seeded.size(), 1u);
  EXPECT_EQ(seeded[0].first, 2);
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

// A corpus kept beside the index, to score the slow and obvious way.
class Mirror {
 public:
  void Add(Bm25Index& index, int64_t id, const std::vector<std::string>& tokens) {
    std::string words;
    for (const auto& t : tokens) words += t + (t.size() % 3 ? " " : "  ");  // runs of spaces are no tokens
    index.Add(id, words);
    Doc& doc = docs_[id];
    doc = {static_cast<uint32_t>(tokens.size()), {}};
    for (const auto& t : tokens) ++doc.tf[t];
  }
  void Remove(Bm25Index& index, int64_t id) {
    index.Remove(id);
    docs_.erase(id);
  }
  size_t size() const { return docs_.size(); }

  // Every allowed document holding a term, scored by the BM25 formula with
  // each distinct term's share added as a float in query order (what the
  // index promises), ranked by score, then higher id.
  std::vector<std::pair<int64_t, double>> Rank(const Bm25Index& index, const std::vector<std::string>& terms,
                                               const std::function<bool(int64_t)>& allow) const {
    const double k1 = 1.2, b = 0.75;
    const double live = static_cast<double>(docs_.size());
    uint64_t total = 0;
    for (const auto& [id, doc] : docs_) total += doc.length;
    const double avg_len = static_cast<double>(total) / live;
    std::vector<std::string> distinct;
    for (const auto& t : terms) {
      if (std::find(distinct.begin(), distinct.end(), t) == distinct.end()) distinct.push_back(t);
    }
    std::vector<std::pair<int64_t, float>> all;
    for (const auto& [id, doc] : docs_) {
      if (allow && !allow(id)) continue;
      float score = 0;
      bool matched = false;
      for (const auto& term : distinct) {
        auto it = doc.tf.find(term);
        if (it == doc.tf.end()) continue;
        const double tf = it->second;
        // Removed documents count in df until compaction, as documented.
        const double df = static_cast<double>(index.DocumentFrequency(term));
        const double idf = std::log((live - df + 0.5) / (df + 0.5) + 1.0);
        const double norm = k1 * (1 - b + b * doc.length / avg_len);
        score += static_cast<float>(idf * tf * (k1 + 1) / (tf + norm));
        matched = true;
      }
      if (matched) all.emplace_back(id, score);
    }
    std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second > y.second : x.first > y.first;
    });
    return {all.begin(), all.end()};
  }

 private:
  struct Doc {
    uint32_t length;
    std::map<std::string, uint32_t> tf;
  };
  std::map<int64_t, Doc> docs_;
};

TEST(Bm25Index, ALongQueryLeavesOutItsCommonWordsAShortOneKeepsThem) {
  Bm25Index index;
  for (int id = 1; id <= 100; ++id) index.Add(id, "的 common filler");
  for (int r = 0; r < 13; ++r) index.Add(1000 + r, "rare" + std::to_string(r) + " 的");
  std::vector<std::string> long_query = {"的"};
  for (int r = 0; r < 13; ++r) long_query.push_back("rare" + std::to_string(r));
  // 14 distinct terms: "的" (in 113 of 113 documents) is past the 12 rarest
  // and common, so it scores nothing, and only the rare words' documents match.
  auto hits = index.Search(long_query, 200);
  ASSERT_EQ(hits.size(), 13u);
  for (const auto& [id, score] : hits) EXPECT_GE(id, 1000);
  // A short query keeps its common word: every document matches.
  EXPECT_EQ(index.Search({"的", "rare0"}, 200).size(), 113u);
  EXPECT_EQ(index.Search({"的"}, 200).size(), 113u);
}

// Random corpora over small vocabularies (so scores tie often), with
// replaced and removed documents (enough to compact), queried with repeated
// and unknown terms, every k and several filters: the ranking must be the
// brute-force one exactly, scores and the order of ties included.
TEST(Bm25Index, SearchIsExactlyTheBruteForceRanking) {
  std::mt19937 rng(42);
  auto pick = [&rng](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  for (const size_t vocabulary : {3, 12, 200}) {
    std::vector<std::string> words;
    for (size_t w = 0; w < vocabulary; ++w) words.push_back((w % 5 ? "w" : "词") + std::to_string(w));
    Bm25Index index;
    Mirror mirror;
    std::vector<int64_t> ids;
    for (int round = 0; round < 6; ++round) {
      for (int i = 0; i < 700; ++i) {
        std::vector<std::string> tokens(1 + pick(vocabulary < 10 ? 4 : 30));
        // Skewed: low word numbers are common, high ones rare.
        for (auto& t : tokens) t = words[std::min(pick(vocabulary), pick(vocabulary))];
        const int64_t id = static_cast<int64_t>(pick(5000)) - 100;  // some come again: a replacement
        mirror.Add(index, id, tokens);
        ids.push_back(id);
      }
      for (int i = 0; i < (round % 2 ? 500 : 60); ++i) mirror.Remove(index, ids[pick(ids.size())]);
      ASSERT_EQ(index.size(), mirror.size());

      const std::set<int64_t> few = {ids[pick(ids.size())], ids[pick(ids.size())], ids[pick(ids.size())]};
      const std::vector<std::function<bool(int64_t)>> filters = {
          {},
          [](int64_t id) { return id % 3 == 0; },
          [&few](int64_t id) { return few.count(id) > 0; },
          [](int64_t) { return false; },
      };
      for (int q = 0; q < 40; ++q) {
        std::vector<std::string> terms(1 + pick(5));
        for (auto& t : terms) t = pick(8) == 0 ? "absent" : words[pick(vocabulary)];
        if (q % 4 == 0) terms.push_back(terms.front());
        for (size_t f = 0; f < filters.size(); ++f) {
          const auto ranking = mirror.Rank(index, terms, filters[f]);
          for (const size_t k : {1, 2, 10, 30, 100000}) {
            const std::vector<std::pair<int64_t, double>> expected(
                ranking.begin(), ranking.begin() + static_cast<ptrdiff_t>(std::min(k, ranking.size())));
            ASSERT_EQ(index.Search(terms, k, filters[f]), expected)
                << "vocabulary " << vocabulary << ", round " << round << ", query " << q << ", k " << k << ", filter "
                << f;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace cilia::index
