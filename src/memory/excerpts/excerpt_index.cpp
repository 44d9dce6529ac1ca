#include "memory/excerpts/excerpt_index.h"

#include <algorithm>
#include <mutex>
#include <unordered_set>

#include "text/segmenter.h"

namespace cilia::memory {

namespace {

ExcerptMeta MetaOf(const store::ExcerptIndexEntry& e) {
  return {e.conversation_row, e.said_at, e.status == store::ExcerptStatus::kActive, e.access_count, e.valid_from.value_or(0),
          e.valid_to.value_or(0)};
}

}  // namespace

std::string ExcerptEmbeddingText(const store::ExcerptRecord& e) { return e.content + "\n" + e.quote; }

std::string ExcerptWords(std::string_view content, std::string_view quote) {
  std::string text(content);
  text += '\n';
  text += quote;
  return text::IndexText(text);
}

Status ExcerptIndex::Load(store::NamespaceStore& store, const embed::Embedder& embedder, size_t hnsw_threshold) {
  vectors_ = std::make_unique<index::VectorIndex>(embedder.dimension(), hnsw_threshold);
  std::vector<int64_t> before;
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, meta] : meta_) before.push_back(id);
  }
  return store.Read([&](store::Database& db) -> Status {
    store::ExcerptRepo repo(db);
    std::unordered_set<int64_t> seen;
    CILIA_RETURN_IF_ERROR(repo.ForEachIndexEntry([&](const store::ExcerptIndexEntry& e) {
      Put(e, nullptr);
      seen.insert(e.id);
    }));
    for (int64_t id : before)
      if (!seen.count(id)) Remove(id);
    CILIA_ASSIGN_OR_RETURN(auto vecs, repo.VectorsOf(embedder.id()));
    for (const auto& v : vecs) {
      if (static_cast<int>(v.vec.size()) != embedder.dimension() || !Meta(v.key)) continue;
      CILIA_RETURN_IF_ERROR(vectors_->Upsert(v.key, v.vec));
    }
    return Status::Ok();
  });
}

Status ExcerptIndex::Rebuild(store::NamespaceStore& store, const embed::Embedder& embedder, size_t hnsw_threshold) {
  CILIA_ASSIGN_OR_RETURN(auto missing, store.Read([&](store::Database& db) {
    return store::ExcerptRepo(db).WithoutVector(embedder.id());
  }));
  constexpr size_t kBatch = 64;
  for (size_t from = 0; from < missing.size(); from += kBatch) {
    std::vector<std::string> texts;
    for (size_t i = from; i < std::min(missing.size(), from + kBatch); ++i) texts.push_back(ExcerptEmbeddingText(missing[i]));
    CILIA_ASSIGN_OR_RETURN(auto vecs, embedder.Embed(texts, embed::Purpose::kPassage));
    CILIA_RETURN_IF_ERROR(store.Write([&](store::Database& db) -> Status {
      store::Transaction tx(db);
      CILIA_RETURN_IF_ERROR(tx.Begin());
      store::ExcerptRepo repo(db);
      for (size_t i = 0; i < vecs.size(); ++i) CILIA_RETURN_IF_ERROR(repo.PutVector(missing[from + i].id, embedder.id(), vecs[i]));
      return tx.Commit();
    }));
  }
  return Load(store, embedder, hnsw_threshold);
}

void ExcerptIndex::Put(const store::ExcerptIndexEntry& entry, const std::vector<float>* vec) {
  {
    std::unique_lock lock(mu_);
    meta_[entry.id] = MetaOf(entry);
  }
  words_.Add(entry.id, entry.words);
  if (vec) SetVector(entry.id, vec);
}

void ExcerptIndex::Remove(int64_t id) {
  {
    std::unique_lock lock(mu_);
    meta_.erase(id);
  }
  words_.Remove(id);
  vectors_->Remove(id);
}

void ExcerptIndex::SetVector(int64_t id, const std::vector<float>* vec) {
  if (vec) {
    (void)vectors_->Upsert(id, *vec);  // a vector of the wrong size stays out, as at load
  } else {
    vectors_->Remove(id);
  }
}

std::optional<ExcerptMeta> ExcerptIndex::Meta(int64_t id) const {
  std::shared_lock lock(mu_);
  auto it = meta_.find(id);
  if (it == meta_.end()) return std::nullopt;
  return it->second;
}

std::vector<int64_t> ExcerptIndex::SaidNewestFirst(const std::function<bool(const ExcerptMeta&)>& keep) const {
  std::vector<std::pair<int64_t, int64_t>> kept;  // (said_at, id)
  {
    std::shared_lock lock(mu_);
    for (const auto& [id, meta] : meta_) {
      if (keep(meta)) kept.emplace_back(meta.said_at, id);
    }
  }
  std::sort(kept.begin(), kept.end(), std::greater<>());
  std::vector<int64_t> ids;
  ids.reserve(kept.size());
  for (const auto& [said_at, id] : kept) ids.push_back(id);
  return ids;
}

void ExcerptIndex::AddAccess(int64_t id) {
  std::unique_lock lock(mu_);
  auto it = meta_.find(id);
  if (it != meta_.end()) ++it->second.access_count;
}

size_t ExcerptIndex::size() const {
  std::shared_lock lock(mu_);
  return meta_.size();
}

}  // namespace cilia::memory
