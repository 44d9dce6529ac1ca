#include "index/fusion.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace cilia::index {

std::vector<FusedHit> FuseRanks(const std::vector<int64_t>& vector_ids, const std::vector<int64_t>& lexical_ids,
                                const RankingOptions& o) {
  std::unordered_map<int64_t, FusedHit> by_id;
  std::vector<int64_t> order;
  auto touch = [&](int64_t id) -> FusedHit& {
    auto [it, fresh] = by_id.try_emplace(id);
    if (fresh) {
      it->second.id = id;
      order.push_back(id);
    }
    return it->second;
  };
  for (size_t i = 0; i < vector_ids.size(); ++i) {
    FusedHit& h = touch(vector_ids[i]);
    if (!h.vector_rank) h.vector_rank = static_cast<int>(i + 1);
  }
  for (size_t i = 0; i < lexical_ids.size(); ++i) {
    FusedHit& h = touch(lexical_ids[i]);
    if (!h.lexical_rank) h.lexical_rank = static_cast<int>(i + 1);
  }
  std::vector<FusedHit> out;
  out.reserve(order.size());
  for (int64_t id : order) {
    FusedHit h = by_id[id];
    auto rrf = [&](int rank) { return rank ? (o.rrf_k + 1) / (o.rrf_k + rank) : 0.0; };
    h.fused = o.vector_weight * rrf(h.vector_rank) + o.lexical_weight * rrf(h.lexical_rank);
    h.score = h.fused;
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const FusedHit& a, const FusedHit& b) { return a.score > b.score; });
  return out;
}

double RecencyMultiplier(double age_days, const RankingOptions& o) {
  double age = std::max(0.0, age_days);
  return o.recency_floor + (1 - o.recency_floor) * std::exp(-age / o.recency_days);
}

double AccessMultiplier(int64_t access_count, const RankingOptions& o) {
  return 1 + o.access_weight * std::log1p(static_cast<double>(std::max<int64_t>(0, access_count)));
}

double ValidityMultiplier(int64_t now_ms, int64_t valid_from_ms, int64_t valid_to_ms) {
  constexpr double kMsPerDay = 86'400'000.0;
  if (valid_from_ms && now_ms < valid_from_ms) {
    double early = (valid_from_ms - now_ms) / kMsPerDay;
    return std::max(0.1, 1 - 0.1 * early);
  }
  if (valid_to_ms && now_ms > valid_to_ms) {
    double late = (now_ms - valid_to_ms) / kMsPerDay;
    return std::max(0.05, std::exp(-0.1 * late));
  }
  return 1;
}

void ApplyRelativeFloor(std::vector<FusedHit>& hits, const RankingOptions& o) {
  if (hits.empty()) return;
  double floor = hits.front().score * o.relative_floor;
  hits.erase(std::remove_if(hits.begin(), hits.end(), [&](const FusedHit& h) { return h.score < floor; }),
             hits.end());
}

}  // namespace cilia::index
