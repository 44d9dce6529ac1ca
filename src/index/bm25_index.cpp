#include "index/bm25_index.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_set>

namespace cilia::index {

namespace {

// Splits space-separated tokens and counts each.
std::vector<std::pair<std::string_view, uint32_t>> CountTokens(std::string_view words, uint32_t* total) {
  std::unordered_map<std::string_view, uint32_t> counts;
  *total = 0;
  size_t i = 0;
  while (i < words.size()) {
    while (i < words.size() && words[i] == ' ') ++i;
    size_t j = words.find(' ', i);
    if (j == std::string_view::npos) j = words.size();
    if (j > i) {
      ++counts[words.substr(i, j - i)];
      ++*total;
    }
    i = j;
  }
  return {counts.begin(), counts.end()};
}

}  // namespace

const std::vector<Bm25Index::Posting>* Bm25Index::Find(std::string_view term) const {
  auto it = postings_.find(term);
  return it == postings_.end() ? nullptr : &it->second;
}

void Bm25Index::Add(int64_t id, std::string_view words) {
  uint32_t total = 0;
  auto counts = CountTokens(words, &total);
  std::unique_lock lock(mu_);
  RemoveLocked(id);
  uint32_t slot = static_cast<uint32_t>(slot_id_.size());
  slot_id_.push_back(id);
  slot_len_.push_back(total);
  slot_alive_.push_back(true);
  id_slot_[id] = slot;
  total_len_ += total;
  for (const auto& [term, tf] : counts) {
    auto it = postings_.find(term);
    if (it == postings_.end()) it = postings_.emplace(std::string(term), std::vector<Posting>{}).first;
    it->second.push_back({slot, tf});
  }
}

void Bm25Index::Remove(int64_t id) {
  std::unique_lock lock(mu_);
  RemoveLocked(id);
}

void Bm25Index::RemoveLocked(int64_t id) {
  auto it = id_slot_.find(id);
  if (it == id_slot_.end()) return;
  uint32_t slot = it->second;
  id_slot_.erase(it);
  slot_alive_[slot] = false;
  total_len_ -= slot_len_[slot];
  ++dead_;
  if (dead_ > 1000 && dead_ * 4 > slot_id_.size()) CompactLocked();
}

void Bm25Index::CompactLocked() {
  std::vector<uint32_t> renumber(slot_id_.size(), UINT32_MAX);
  std::vector<int64_t> ids;
  std::vector<uint32_t> lens;
  ids.reserve(id_slot_.size());
  lens.reserve(id_slot_.size());
  for (uint32_t s = 0; s < slot_id_.size(); ++s) {
    if (!slot_alive_[s]) continue;
    renumber[s] = static_cast<uint32_t>(ids.size());
    ids.push_back(slot_id_[s]);
    lens.push_back(slot_len_[s]);
  }
  for (auto it = postings_.begin(); it != postings_.end();) {
    auto& list = it->second;
    size_t out = 0;
    for (const Posting& p : list) {
      if (renumber[p.slot] != UINT32_MAX) list[out++] = {renumber[p.slot], p.tf};
    }
    list.resize(out);
    if (list.empty()) {
      it = postings_.erase(it);
    } else {
      list.shrink_to_fit();
      ++it;
    }
  }
  slot_id_ = std::move(ids);
  slot_len_ = std::move(lens);
  slot_alive_.assign(slot_id_.size(), true);
  for (uint32_t s = 0; s < slot_id_.size(); ++s) id_slot_[slot_id_[s]] = s;
  dead_ = 0;
}

std::vector<std::pair<int64_t, double>> Bm25Index::Search(const std::vector<std::string>& terms, size_t k,
                                                         const std::function<bool(int64_t)>& allow,
                                                         const std::vector<std::pair<int64_t, double>>& seeds) const {
  std::shared_lock lock(mu_);
  std::vector<std::pair<int64_t, double>> out;
  const size_t live = id_slot_.size();
  if (live == 0 || k == 0) return out;
  const double avg_len = static_cast<double>(total_len_) / static_cast<double>(live);
  // Scores live in a per-thread dense array; only touched slots are reset.
  thread_local std::vector<float> scores;
  thread_local std::vector<uint32_t> touched;
  if (scores.size() < slot_id_.size()) scores.resize(slot_id_.size(), 0.f);
  touched.clear();
  for (const auto& [id, score] : seeds) {
    auto slot = id_slot_.find(id);
    if (slot == id_slot_.end() || score <= 0) continue;
    if (scores[slot->second] == 0.f) touched.push_back(slot->second);
    scores[slot->second] += static_cast<float>(score);
  }
  std::unordered_set<std::string_view> seen;
  std::vector<const std::vector<Posting>*> lists;
  for (const std::string& term : terms) {
    if (!seen.insert(term).second) continue;
    if (const auto* list = Find(term)) lists.push_back(list);
  }
  if (lists.size() > kRarestTermsKept) {
    std::sort(lists.begin(), lists.end(), [](const auto* a, const auto* b) { return a->size() < b->size(); });
    const size_t common = std::max<size_t>(1, live / kCommonShare);
    size_t kept = kRarestTermsKept;
    while (kept < lists.size() && lists[kept]->size() <= common) ++kept;
    lists.resize(kept);
  }
  for (const auto* list : lists) {
    const double df = static_cast<double>(list->size());
    const double idf = std::log((static_cast<double>(live) - df + 0.5) / (df + 0.5) + 1.0);
    for (const Posting& p : *list) {
      if (!slot_alive_[p.slot]) continue;
      const double tf = p.tf;
      const double norm = options_.k1 * (1 - options_.b + options_.b * slot_len_[p.slot] / avg_len);
      if (scores[p.slot] == 0.f) touched.push_back(p.slot);
      scores[p.slot] += static_cast<float>(idf * tf * (options_.k1 + 1) / (tf + norm));
    }
  }
  // The k best that `allow` accepts, in a bounded heap whose front is the
  // worst kept: sorting every matching document took a fifth of all search
  // time at 231k windows, and `allow` runs only for documents that would enter.
  auto better = [&](const std::pair<float, uint32_t>& a, const std::pair<float, uint32_t>& b) {
    return a.first != b.first ? a.first > b.first : slot_id_[a.second] > slot_id_[b.second];
  };
  std::vector<std::pair<float, uint32_t>> best;
  best.reserve(std::min(k, touched.size()));
  for (uint32_t slot : touched) {
    const std::pair<float, uint32_t> hit{scores[slot], slot};
    scores[slot] = 0.f;
    if (best.size() == k && !better(hit, best.front())) continue;
    if (allow && !allow(slot_id_[slot])) continue;
    if (best.size() == k) {
      std::pop_heap(best.begin(), best.end(), better);
      best.back() = hit;
    } else {
      best.push_back(hit);
    }
    std::push_heap(best.begin(), best.end(), better);
  }
  std::sort_heap(best.begin(), best.end(), better);
  out.reserve(best.size());
  for (const auto& [score, slot] : best) out.emplace_back(slot_id_[slot], score);
  return out;
}

std::vector<int64_t> Bm25Index::ContainingAll(const std::vector<std::string>& terms, size_t k,
                                              const std::function<bool(int64_t)>& allow) const {
  std::shared_lock lock(mu_);
  std::vector<int64_t> out;
  if (terms.empty()) return out;
  std::vector<const std::vector<Posting>*> lists;
  for (const auto& t : terms) {
    const auto* list = Find(t);
    if (!list) return out;
    lists.push_back(list);
  }
  std::sort(lists.begin(), lists.end(), [](auto* a, auto* b) { return a->size() < b->size(); });
  // Postings are in slot order; walk the rarest list from its newest end.
  const auto& rarest = *lists.front();
  for (auto it = rarest.rbegin(); it != rarest.rend() && out.size() < k; ++it) {
    uint32_t slot = it->slot;
    if (!slot_alive_[slot]) continue;
    bool everywhere = true;
    for (size_t i = 1; i < lists.size() && everywhere; ++i) {
      everywhere = std::binary_search(lists[i]->begin(), lists[i]->end(), Posting{slot, 0},
                                      [](const Posting& a, const Posting& b) { return a.slot < b.slot; });
    }
    if (!everywhere) continue;
    int64_t id = slot_id_[slot];
    if (allow && !allow(id)) continue;
    out.push_back(id);
  }
  return out;
}

int64_t Bm25Index::DocumentFrequency(std::string_view term) const {
  std::shared_lock lock(mu_);
  const auto* list = Find(term);
  return list ? static_cast<int64_t>(list->size()) : 0;
}

size_t Bm25Index::size() const {
  std::shared_lock lock(mu_);
  return id_slot_.size();
}

}  // namespace cilia::index
