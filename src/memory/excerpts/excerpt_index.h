// The in-memory indexes of one namespace's L1 excerpts, beside the windows'
// (memory/namespace.h): a BM25 index over their segmented content and quote,
// a vector index of their own (excerpt ids and window ids are separate id
// spaces, so the two never collide), and a catalogue of what recall filters
// and ranks by. Caches of the excerpts tables, rebuilt at open.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "embed/embedder.h"
#include "index/bm25_index.h"
#include "index/vector_index.h"
#include "store/excerpt_repo.h"
#include "store/namespace_store.h"

namespace cilia::memory {

struct ExcerptMeta {
  int64_t conversation_row = 0;
  int64_t said_at = 0;  // when the quoted message was written
  bool active = true;
  int64_t access_count = 0;
  int64_t valid_from = 0;  // 0: open
  int64_t valid_to = 0;
};

class ExcerptIndex {
 public:
  // Loads every excerpt's entry and the vectors of `embedder`.
  Status Load(store::NamespaceStore& store, const embed::Embedder& embedder, size_t hnsw_threshold);

  // Embeds the excerpts that lack a vector of `embedder`, then Load: after
  // an import, an embedder change, or a reindex (derived data only).
  Status Rebuild(store::NamespaceStore& store, const embed::Embedder& embedder, size_t hnsw_threshold);

  // Adds or replaces an excerpt; `vec` (when given) is its vector.
  void Put(const store::ExcerptIndexEntry& entry, const std::vector<float>* vec);
  void Remove(int64_t id);
  // Sets (null: removes) the vector of an excerpt the index holds.
  void SetVector(int64_t id, const std::vector<float>* vec);
  std::optional<ExcerptMeta> Meta(int64_t id) const;
  // The excerpts `keep` accepts, newest said first (ties: higher id first).
  std::vector<int64_t> SaidNewestFirst(const std::function<bool(const ExcerptMeta&)>& keep) const;
  void AddAccess(int64_t id);
  size_t size() const;

  const index::Bm25Index& words() const { return words_; }
  const index::VectorIndex& vectors() const { return *vectors_; }

 private:
  index::Bm25Index words_;
  std::unique_ptr<index::VectorIndex> vectors_ = std::make_unique<index::VectorIndex>(1);
  mutable std::shared_mutex mu_;
  std::unordered_map<int64_t, ExcerptMeta> meta_;
};

// What an excerpt's vector is made from, and its BM25 words.
std::string ExcerptEmbeddingText(const store::ExcerptRecord& e);
std::string ExcerptWords(std::string_view content, std::string_view quote);

}  // namespace cilia::memory
