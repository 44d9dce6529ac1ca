#include "memory/namespace.h"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "store/window_repo.h"

namespace cilia::memory {

Result<std::shared_ptr<Namespace>> Namespace::Open(const NamespaceOptions& options,
                                                   std::shared_ptr<const embed::Embedder> embedder,
                                                   const TimeZone& tz, const Clock& clock) {
  std::shared_ptr<Namespace> ns(new Namespace(options, std::move(embedder), tz, clock));
  CILIA_ASSIGN_OR_RETURN(ns->store_, store::NamespaceStore::Open(options.dir, options.full_sync));
  ns->vectors_ = std::make_unique<index::VectorIndex>(ns->embedder_->dimension(), options.hnsw_threshold);
  CILIA_RETURN_IF_ERROR(ns->LoadCaches().With("namespace " + options.name));
  return ns;
}

Status Namespace::LoadCaches() {
  return store_->Read([&](store::Database& db) -> Status {
    store::WindowRepo repo(db);
    {
      std::unique_lock lock(meta_mu_);
      CILIA_RETURN_IF_ERROR(repo.ForEachMeta([&](const store::WindowRepo::Meta& m, std::string_view words) {
        meta_[m.id] = {m.conversation_id, m.created_at, m.ended_at, m.access_count};
        words_.Add(m.id, words);
      }));
    }
    CILIA_ASSIGN_OR_RETURN(bool cached, LoadVectorCache(repo));
    if (cached) return Status::Ok();
    CILIA_ASSIGN_OR_RETURN(auto vecs, repo.VectorsOf(embedder_->id()));
    std::vector<int64_t> ids;
    std::vector<float> flat;
    ids.reserve(vecs.size());
    flat.reserve(vecs.size() * static_cast<size_t>(embedder_->dimension()));
    for (const auto& v : vecs) {
      if (static_cast<int>(v.vec.size()) != embedder_->dimension()) continue;  // re-embedded in the background
      ids.push_back(v.window_id);
      flat.insert(flat.end(), v.vec.begin(), v.vec.end());
    }
    return vectors_->UpsertMany(ids, flat);
  });
}

namespace {
std::string CacheKey(const std::string& embedder, std::pair<int64_t, int64_t> stats) {
  return embedder + "\n" + std::to_string(stats.first) + "\n" + std::to_string(stats.second) + "\n";
}
}  // namespace

Result<bool> Namespace::LoadVectorCache(store::WindowRepo& repo) {
  const std::string key_path = VectorCachePath() + ".key";
  std::ifstream key_in(key_path);
  if (!key_in) return false;
  std::string saved((std::istreambuf_iterator<char>(key_in)), std::istreambuf_iterator<char>());
  key_in.close();
  std::filesystem::remove(key_path);  // one use only: a crash after this start must not reuse it
  CILIA_ASSIGN_OR_RETURN(auto stats, repo.VectorStats(embedder_->id()));
  if (saved != CacheKey(embedder_->id(), stats)) return false;
  auto loaded = index::VectorIndex::LoadFrom(VectorCachePath(), options_.hnsw_threshold);
  if (!loaded.ok() || (*loaded)->dimension() != embedder_->dimension() ||
      static_cast<int64_t>((*loaded)->size()) != stats.first) {
    return false;
  }
  vectors_ = std::move(*loaded);
  return true;
}

Status Namespace::SaveVectorCache() {
  CILIA_ASSIGN_OR_RETURN(auto stats, store_->Read([&](store::Database& db) {
    return store::WindowRepo(db).VectorStats(embedder_->id());
  }));
  if (static_cast<int64_t>(vectors_->size()) != stats.first) return Status::Ok();  // not in step: rebuild next time
  CILIA_RETURN_IF_ERROR(vectors_->SaveTo(VectorCachePath()));
  std::ofstream out(VectorCachePath() + ".key", std::ios::trunc);
  out << CacheKey(embedder_->id(), stats);
  return out ? Status::Ok() : Status::IOError("write " + VectorCachePath() + ".key");
}

void Namespace::PutWindowMeta(int64_t id, WindowMeta meta) {
  std::unique_lock lock(meta_mu_);
  meta_[id] = meta;
}

void Namespace::RemoveWindowMeta(int64_t id) {
  std::unique_lock lock(meta_mu_);
  meta_.erase(id);
}

std::optional<WindowMeta> Namespace::GetWindowMeta(int64_t id) const {
  std::shared_lock lock(meta_mu_);
  auto it = meta_.find(id);
  if (it == meta_.end()) return std::nullopt;
  return it->second;
}

void Namespace::AddAccess(int64_t id) {
  std::unique_lock lock(meta_mu_);
  auto it = meta_.find(id);
  if (it != meta_.end()) ++it->second.access_count;
}

size_t Namespace::WindowCount() const {
  std::shared_lock lock(meta_mu_);
  return meta_.size();
}

Result<int> Namespace::EmbedMissing(int batch) {
  CILIA_ASSIGN_OR_RETURN(auto ids, store_->Read([&](store::Database& db) {
    return store::WindowRepo(db).MissingVectors(embedder_->id(), batch);
  }));
  if (ids.empty()) return 0;
  std::vector<std::string> bodies;
  std::vector<int64_t> present;
  CILIA_RETURN_IF_ERROR(store_->Read([&](store::Database& db) -> Status {
    store::WindowRepo repo(db);
    for (int64_t id : ids) {
      CILIA_ASSIGN_OR_RETURN(auto w, repo.Get(id));
      if (!w) continue;
      bodies.push_back(w->body);
      present.push_back(id);
    }
    return Status::Ok();
  }));
  CILIA_ASSIGN_OR_RETURN(auto vecs, embedder_->Embed(bodies));
  CILIA_RETURN_IF_ERROR(store_->Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::WindowRepo repo(db);
    for (size_t i = 0; i < present.size(); ++i) {
      CILIA_ASSIGN_OR_RETURN(auto still, repo.Get(present[i]));
      if (still) CILIA_RETURN_IF_ERROR(repo.PutVector(present[i], embedder_->id(), vecs[i]));
    }
    return tx.Commit();
  }));
  for (size_t i = 0; i < present.size(); ++i) {
    if (GetWindowMeta(present[i])) CILIA_RETURN_IF_ERROR(vectors_->Upsert(present[i], vecs[i]));
  }
  return static_cast<int>(present.size());
}

}  // namespace cilia::memory
