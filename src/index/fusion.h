// Fusion and ranking (DESIGN.md §5): weighted reciprocal-rank fusion of the
// vector and lexical lanes, then multipliers for recency, access and
// validity. Pure functions, so the maths can be pinned by tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cilia::index {

struct RankingOptions {
  double vector_weight = 0.3;   // tuned on bench data; see RetrievalConfig (0: no vector lane)
  double lexical_weight = 0.7;
  double rrf_k = 60;
  double recency_days = 60;        // e-folding time of the recency multiplier
  double recency_floor = 0.7;      // an old memory keeps this share of its score
  double access_weight = 0.05;
  double relative_floor = 0.15;    // results under this share of the best score are dropped
  // A hit only the vector lane found must be at least this similar (cosine):
  // a vector lane always returns neighbours, and unrelated ones are noise.
  // Lexical hits are never dropped by it. Embedder-dependent (hash: 0.1).
  double min_vector_similarity = 0.1;
  // Overlapping windows merge into one result up to this size: a 700-character
  // window and a short neighbour, not two full windows (bench/RESULTS.md).
  size_t max_merged_chars = 1000;
  double title_weight = 0.5;  // of a conversation title's BM25 in its windows' (index::TitleField)
  int per_conversation_day_cap = 2;
};

struct FusedHit {
  int64_t id = 0;
  int vector_rank = 0;   // 1-based; 0 when the lane did not find it
  int lexical_rank = 0;
  double fused = 0;      // weighted RRF, normalised so rank 1 in a lane gives that lane's weight
  double score = 0;      // fused times the multipliers
};

// `vector_ids` and `lexical_ids` are each best first. A hit found by one lane
// only still counts, so a keyword-only hit can win.
std::vector<FusedHit> FuseRanks(const std::vector<int64_t>& vector_ids, const std::vector<int64_t>& lexical_ids,
                                const RankingOptions& options);

// 0.7 + 0.3·e^(−age/60) with the defaults; a future date counts as age 0.
double RecencyMultiplier(double age_days, const RankingOptions& options);
// 1 + 0.05·ln(1 + access_count): only real recalls raise access.
double AccessMultiplier(int64_t access_count, const RankingOptions& options);
// 1 inside [valid_from, valid_to]; before it max(0.1, 1 − 0.1·days early);
// after it max(0.05, e^(−0.1·days late)). Bounds of 0 mean open.
double ValidityMultiplier(int64_t now_ms, int64_t valid_from_ms, int64_t valid_to_ms);

// Keeps hits whose score is at least options.relative_floor of the best;
// `hits` must be sorted best first.
void ApplyRelativeFloor(std::vector<FusedHit>& hits, const RankingOptions& options);

}  // namespace cilia::index
