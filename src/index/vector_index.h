// The in-memory vector index: a cache of the vectors table (the table is the
// truth; this can always be rebuilt from it). Vectors are expected to be
// L2-normalised, as every Embedder's are, so similarity is the dot product.
// Each value is kept as float16 would keep it (core/half.h), in float32: the
// tables store float16, so the index holds what a start loads from them, and
// a search after a restart scores exactly as before it.
//
// Below `hnsw_threshold` vectors it is an exact flat scan over one contiguous
// float array. From the threshold on it is an HNSW graph (hnswlib, inner
// product, M=32, ef_construction=100, ef_search=max(128, 2k)), approximate,
// built once from the flat contents and then grown; removals there are
// tombstones, and the graph is rebuilt when tombstones outnumber live vectors
// (back to flat when fewer than the threshold remain).
//
// In graph mode new vectors wait in the flat array (searched exactly beside
// the graph) until kFoldAt of them are there, then go into the graph
// together, on every core: one graph insert costs ~1,000 distances, which one
// by one on the ingest thread was most of what ingest spent past the
// threshold (bench/RESULTS.md).
//
// Thread-safety: any number of concurrent Search calls; writers take turns and
// block searches only while they change the structure (not while the graph is
// first built; a fold blocks them one chunk of inserts at a time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status.h"

namespace cilia::index {

class VectorIndex {
 public:
  static constexpr size_t kDefaultHnswThreshold = 50000;
  // Vectors waiting beside the graph at which they are folded into it.
  static constexpr size_t kFoldAt = 1024;

  // dimension below 1 is taken as 1.
  explicit VectorIndex(int dimension, size_t hnsw_threshold = kDefaultHnswThreshold);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // Adds or replaces the vector of `id`, its values rounded to float16.
  // InvalidArgument when the size is not dimension() or a value is not
  // finite as float16 (NaN, infinite, or beyond 65504); Internal when memory
  // runs out.
  Status Upsert(int64_t id, std::span<const float> vector);
  // The same for many: `vectors` holds ids.size() vectors back to back. Much
  // faster than one by one when it builds or grows the graph (uses all cores).
  // Nothing is changed when an argument is wrong.
  Status UpsertMany(std::span<const int64_t> ids, std::span<const float> vectors);
  // Unknown ids are ignored.
  void Remove(int64_t id);

  // Up to k (id, similarity) pairs, best first; ties go to the smaller id.
  // With `allow`, only ids it accepts: the graph is asked for more candidates
  // (4k, growing) until k pass, and when too few pass (a selective filter)
  // the allowed vectors are scanned exactly instead. An empty result when the
  // query's size is not dimension(). `allow` runs under the index's read
  // lock: it must not call Upsert or Remove of this index.
  std::vector<std::pair<int64_t, float>> Search(std::span<const float> query, size_t k,
                                                const std::function<bool(int64_t)>& allow = {}) const;
  // The same under a filter given also as the list of the ids `allow`
  // accepts (each once; ids the index does not hold are ignored). When they
  // are few (at most 1/16 of the vectors, or fewer than the flat array
  // holds) only they are scored, exactly, instead of walking the graph or
  // testing every vector; otherwise this is Search.
  std::vector<std::pair<int64_t, float>> SearchAllowed(std::span<const float> query, size_t k,
                                                       std::span<const int64_t> allowed_ids,
                                                       const std::function<bool(int64_t)>& allow) const;

  size_t size() const;
  int dimension() const { return dimension_; }
  bool uses_graph() const;  // true from the threshold on
  // In graph mode, the vectors not in the graph yet (0 in flat mode).
  size_t pending() const;
  // Puts the pending vectors into the graph now (when saving, and for tests).
  Status FoldPending();

  // A cache file of the contents, so a start need not rebuild the graph:
  // `path` holds a header (and in flat mode the ids and the vectors as
  // float16, 2 bytes a value); in graph mode the graph goes to `path` +
  // ".hnsw" beside it, in hnswlib's own format, which keeps each vector as
  // float32 beside its links (bench/RESULTS.md weighs that against rebuilding
  // the graph at load). Both are written under temporary names and renamed
  // into place. The file is for this machine (native byte order); keying it
  // to the embedder and the table's version is the caller's part. Searches
  // go on meanwhile; writers wait. Pending vectors are folded into the graph
  // first.
  Status SaveTo(const std::string& path);
  // IOError when a file is missing, cut short or not such a cache file.
  static Result<std::unique_ptr<VectorIndex>> LoadFrom(const std::string& path,
                                                       size_t hnsw_threshold = kDefaultHnswThreshold);

 private:
  struct Graph;
  using Hit = std::pair<int64_t, float>;

  Status Check(std::span<const int64_t> ids, std::span<const float> vectors) const;
  void UpsertFlat(std::span<const int64_t> ids, std::span<const float> vectors);
  // Graph mode: into the pending array (the graph's copy of an id becomes a
  // tombstone), folded when kFoldAt are waiting. The caller holds write_mutex_.
  Status UpsertPending(std::span<const int64_t> ids, std::span<const float> vectors);
  // Moves every pending vector into the graph; the caller holds write_mutex_.
  Status FoldPendingLocked();
  // Builds a graph of every live vector, without blocking searches; the
  // caller holds write_mutex_.
  Result<std::unique_ptr<Graph>> BuildGraph(size_t capacity) const;
  void ReplaceGraphWithFlat();
  void MaybeCompact();

  std::vector<Hit> ScanFlat(const float* query, size_t k, const std::function<bool(int64_t)>& allow) const;
  std::vector<Hit> ScanGraphStorage(const float* query, size_t k, const std::function<bool(int64_t)>& allow) const;
  // Scores exactly the vectors of `ids` that the index holds.
  std::vector<Hit> ScanIds(const float* query, size_t k, std::span<const int64_t> ids) const;
  // With `allowed_ids` (those `allow` accepts), the exact fallback scans
  // just them.
  std::vector<Hit> SearchGraph(const float* query, size_t k, const std::function<bool(int64_t)>& allow,
                               std::optional<std::span<const int64_t>> allowed_ids = std::nullopt) const;

  const int dimension_;
  const size_t hnsw_threshold_;

  // Searches share data_mutex_; changes take it alone. glibc's shared_mutex
  // lets a steady stream of readers starve a writer, so both pass the
  // turnstile first, which a waiting writer holds shut.
  std::shared_lock<std::shared_mutex> ReadLock() const;
  std::unique_lock<std::shared_mutex> WriteLock();

  mutable std::mutex write_mutex_;  // one writer or saver at a time, also while a graph is built
  mutable std::mutex turnstile_;
  mutable std::shared_mutex data_mutex_;

  // Slot i holds ids_[i] and floats [i*dim, (i+1)*dim) of vectors_: every
  // vector in flat mode, the pending ones in graph mode (an id is never live
  // in both).
  std::vector<float> vectors_;
  std::vector<int64_t> ids_;
  std::unordered_map<int64_t, size_t> slot_of_;

  // Graph mode.
  std::unique_ptr<Graph> graph_;
};

}  // namespace cilia::index
