// An in-memory BM25 index over the windows' segmented words: a cache of the
// windows table, like the vector index. SQLite's FTS5 scores every matching
// row through its auxiliary-function API, which costs ~100 ms at 100k
// windows for the common words people type; summing posting lists into a
// dense score array takes well under a millisecond for the same query.
#pragma once

#include <cstdint>
#include <functional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cilia::index {

class Bm25Index {
 public:
  struct Options {
    double k1 = 1.2;
    double b = 0.75;
  };
  Bm25Index() : Bm25Index(Options{}) {}
  explicit Bm25Index(Options options) : options_(options) {}

  // Adds (or replaces) a document; `words` are space-separated tokens.
  void Add(int64_t id, std::string_view words);
  void Remove(int64_t id);

  // Documents by BM25 over `terms` (each counted once), best first, at most
  // k, only those `allow` accepts (when given). A long query's most common
  // words add little to its ranking and most of its cost (a pasted paragraph
  // holds dozens of "的" and "the"): beyond its kRarestTermsKept rarest
  // terms, a term found in more than 1/kCommonShare of the documents is left
  // out.
  static constexpr size_t kRarestTermsKept = 12;
  static constexpr int64_t kCommonShare = 10;
  // `seeds` are documents that start with a score from another field (a
  // title's), whether or not they hold any of `terms`; ids not in the index
  // are ignored.
  std::vector<std::pair<int64_t, double>> Search(const std::vector<std::string>& terms, size_t k,
                                                 const std::function<bool(int64_t)>& allow = {},
                                                 const std::vector<std::pair<int64_t, double>>& seeds = {}) const;
  // Documents holding every one of `terms`, newest (highest id) first.
  std::vector<int64_t> ContainingAll(const std::vector<std::string>& terms, size_t k,
                                     const std::function<bool(int64_t)>& allow = {}) const;
  // In how many documents the term occurs (removed ones count until the
  // next compaction, which runs once they are a quarter of all).
  int64_t DocumentFrequency(std::string_view term) const;
  size_t size() const;

 private:
  struct Posting {
    uint32_t slot;
    uint32_t tf;
  };
  struct TermHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  const std::vector<Posting>* Find(std::string_view term) const;
  void RemoveLocked(int64_t id);
  void CompactLocked();  // drops postings of removed documents, renumbers slots

  Options options_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::vector<Posting>, TermHash, std::equal_to<>> postings_;
  std::vector<int64_t> slot_id_;      // slot -> document id
  std::vector<uint32_t> slot_len_;    // slot -> tokens
  std::vector<bool> slot_alive_;
  std::unordered_map<int64_t, uint32_t> id_slot_;
  size_t dead_ = 0;
  uint64_t total_len_ = 0;
};

}  // namespace cilia::index
