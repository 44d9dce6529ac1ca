#include "memory/namespace.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include "store/excerpt_repo.h"
#include "store/message_repo.h"
#include "store/postgres_pool.h"
#include "store/vector_table.h"
#include "store/window_repo.h"
#include "text/segmenter.h"

namespace cilia::memory {

Result<std::shared_ptr<Namespace>> Namespace::Open(const NamespaceOptions& options,
                                                   std::shared_ptr<const embed::Embedder> embedder,
                                                   const TimeZone& tz, const Clock& clock, Executor* executor) {
  std::shared_ptr<Namespace> ns(new Namespace(options, std::move(embedder), tz, clock, executor));
  CILIA_ASSIGN_OR_RETURN(ns->store_, store::NamespaceStore::Open(
                                             {options.name, options.dir, options.full_sync, options.postgres}));
  ns->vectors_ = std::make_unique<index::VectorIndex>(ns->embedder_->dimension(), options.hnsw_threshold);
  if (options.postgres) {
    // Read before the load: a change that lands during it is applied again
    // by the first CatchUp, which only re-reads rows.
    CILIA_ASSIGN_OR_RETURN(ns->applied_change_, ns->store_->Read([](store::Database& db) {
      return store::ChangeLogRepo(db).Newest();
    }));
  }
  ns->caught_up_at_ = clock.Now();
  CILIA_RETURN_IF_ERROR(ns->LoadCaches().With("namespace " + options.name));
  CILIA_RETURN_IF_ERROR(ns->excerpts_.Load(*ns->store_, *ns->embedder_, options.hnsw_threshold)
                            .With("excerpts of namespace " + options.name));
  return ns;
}

Status Namespace::LoadCaches() {
  return store_->Read([&](store::Database& db) -> Status {
    store::WindowRepo repo(db);
    {
      std::unique_lock lock(meta_mu_);
      CILIA_RETURN_IF_ERROR(repo.ForEachMeta([&](const store::WindowRepo::Meta& m, std::string_view words) {
        const WindowMeta meta{m.conversation_id, m.created_at, m.ended_at, m.access_count};
        meta_[m.id] = meta;  // ids are the table's keys: each comes once
        CountLocked(m.id, meta, +1);
        words_.Add(m.id, words);
      }));
    }
    CILIA_ASSIGN_OR_RETURN(auto conversations, store::MessageRepo(db).AllConversations());
    for (const auto& c : conversations) PutTitle(c.id, c.title);
    CILIA_ASSIGN_OR_RETURN(bool cached, LoadVectorCache(repo));
    if (cached) return Status::Ok();
    CILIA_ASSIGN_OR_RETURN(auto vecs, repo.VectorsOf(embedder_->id()));
    std::vector<int64_t> ids;
    std::vector<float> flat;
    ids.reserve(vecs.size());
    flat.reserve(vecs.size() * static_cast<size_t>(embedder_->dimension()));
    for (const auto& v : vecs) {
      if (static_cast<int>(v.vec.size()) != embedder_->dimension()) continue;  // re-embedded in the background
      ids.push_back(v.key);
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

Result<int> Namespace::CatchUp() {
  if (!options_.postgres) return 0;
  std::lock_guard<std::mutex> lock(catch_up_mu_);
  const std::string& self = options_.postgres->writer();
  int applied = 0;
  for (;;) {
    CILIA_ASSIGN_OR_RETURN(store::ChangeLogRepo::Page page,
                           store_->Read([&](store::Database& db) -> Result<store::ChangeLogRepo::Page> {
                             CILIA_ASSIGN_OR_RETURN(auto page, store::ChangeLogRepo(db).After(applied_change_, self, 500));
                             for (const store::Change& c : page.changes) CILIA_RETURN_IF_ERROR(ApplyChange(db, c));
                             return page;
                           }));
    applied_change_ = page.last_seq;
    applied += static_cast<int>(page.changes.size());
    if (!page.more) break;
  }
  caught_up_at_ = clock_.Now();
  return applied;
}

Status Namespace::ApplyChange(store::Database& db, const store::Change& change) {
  const int64_t id = change.row;
  switch (change.kind) {
    case store::ChangeKind::kWindow: {
      CILIA_ASSIGN_OR_RETURN(const bool found, store::WindowRepo(db).VisitMeta(id, [&](const store::WindowRepo::Meta& m,
                                                                                          std::string_view words) {
        PutWindowMeta(id, {m.conversation_id, m.created_at, m.ended_at, m.access_count});
        words_.Add(id, words);
      }));
      if (!found) {
        vectors_->Remove(id);
        words_.Remove(id);
        RemoveWindowMeta(id);
      }
      return Status::Ok();
    }
    case store::ChangeKind::kWindowVector: {
      if (!GetWindowMeta(id)) return Status::Ok();  // a window this gateway does not hold has no vector here
      CILIA_ASSIGN_OR_RETURN(auto vec, store::VectorTable::Windows(db).Get(id, embedder_->id()));
      if (vec && static_cast<int>(vec->size()) == embedder_->dimension()) return vectors_->Upsert(id, *vec);
      vectors_->Remove(id);
      return Status::Ok();
    }
    case store::ChangeKind::kConversation: {
      CILIA_ASSIGN_OR_RETURN(auto conversation, store::MessageRepo(db).GetConversation(id));
      PutTitle(id, conversation ? std::string_view(conversation->title) : std::string_view());
      return Status::Ok();
    }
    case store::ChangeKind::kExcerpt: {
      CILIA_ASSIGN_OR_RETURN(auto entry, store::ExcerptRepo(db).IndexEntry(id));
      if (!entry) {
        excerpts_.Remove(id);
        return Status::Ok();
      }
      excerpts_.Put(*entry, nullptr);  // its vector, when it has one, comes by its own change
      return Status::Ok();
    }
    case store::ChangeKind::kExcerptVector: {
      if (!excerpts_.Meta(id)) return Status::Ok();
      CILIA_ASSIGN_OR_RETURN(auto vec, store::VectorTable::Excerpts(db).Get(id, embedder_->id()));
      excerpts_.SetVector(id, vec ? &*vec : nullptr);
      return Status::Ok();
    }
  }
  return Status::Ok();
}

namespace {
// The UTC day of a time, also before 1970.
int64_t DayOf(int64_t ms) { return ms >= 0 ? ms / kMsPerDay : -((-ms + kMsPerDay - 1) / kMsPerDay); }
}  // namespace

void Namespace::CountLocked(int64_t id, const WindowMeta& meta, int64_t delta) {
  if (delta > 0) {
    conversation_windows_.insert({meta.conversation_row, id});
  } else {
    conversation_windows_.erase({meta.conversation_row, id});
  }
  auto bump = [delta](auto& counts, int64_t key) {
    auto it = counts.try_emplace(key, 0).first;
    it->second += delta;
    if (it->second == 0) counts.erase(it);
  };
  bump(windows_per_day_, DayOf(meta.created_at));
  bump(windows_per_conversation_, meta.conversation_row);
}

void Namespace::PutWindowMeta(int64_t id, WindowMeta meta) {
  std::unique_lock lock(meta_mu_);
  auto [it, added] = meta_.try_emplace(id, meta);
  if (!added) CountLocked(id, std::exchange(it->second, meta), -1);
  CountLocked(id, meta, +1);
}

void Namespace::RemoveWindowMeta(int64_t id) {
  std::unique_lock lock(meta_mu_);
  auto it = meta_.find(id);
  if (it == meta_.end()) return;
  CountLocked(id, it->second, -1);
  meta_.erase(it);
}

std::vector<int64_t> Namespace::WindowsOf(int64_t conversation) const {
  std::shared_lock lock(meta_mu_);
  std::vector<int64_t> out;
  for (auto it = conversation_windows_.lower_bound({conversation, INT64_MIN});
       it != conversation_windows_.end() && it->first == conversation; ++it) {
    out.push_back(it->second);
  }
  return out;
}

void Namespace::PutTitle(int64_t conversation, std::string_view title) {
  if (title.empty()) {
    titles_.Remove(conversation);
  } else {
    titles_.Add(conversation, text::IndexText(title));
  }
}

std::optional<WindowMeta> Namespace::GetWindowMeta(int64_t id) const {
  std::shared_lock lock(meta_mu_);
  auto it = meta_.find(id);
  if (it == meta_.end()) return std::nullopt;
  return it->second;
}

size_t Namespace::AllowedAtMost(const store::WindowFilter& filter) const {
  std::shared_lock lock(meta_mu_);
  int64_t most = static_cast<int64_t>(meta_.size());
  if (filter.conversation_row) {
    auto it = windows_per_conversation_.find(*filter.conversation_row);
    most = it == windows_per_conversation_.end() ? 0 : it->second;
  }
  if (filter.from_ms || filter.to_ms) {
    const int64_t first_day = filter.from_ms ? DayOf(*filter.from_ms) : INT64_MIN;
    const int64_t last_day = filter.to_ms ? DayOf(*filter.to_ms - 1) : INT64_MAX;
    int64_t in_days = 0;
    for (auto it = windows_per_day_.lower_bound(first_day); it != windows_per_day_.end() && it->first <= last_day;
         ++it) {
      in_days += it->second;
    }
    most = std::min(most, in_days);
  }
  return static_cast<size_t>(most);
}

bool Namespace::Allows(const store::WindowFilter& filter, int64_t id) const {
  std::shared_lock lock(meta_mu_);
  auto it = meta_.find(id);
  if (it == meta_.end()) return false;
  const WindowMeta& m = it->second;
  return (!filter.from_ms || m.ended_at >= *filter.from_ms) && (!filter.to_ms || m.created_at < *filter.to_ms) &&
         (!filter.conversation_row || m.conversation_row == *filter.conversation_row);
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
  // As many vectors as windows: none is missing, and the table scan that
  // would find none (a join over every vector, ~0.5 s at 231k windows, every
  // 30 s from the background loop) is skipped.
  if (vectors_->size() >= WindowCount()) return 0;
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
  CILIA_ASSIGN_OR_RETURN(auto vecs, embedder_->Embed(bodies, embed::Purpose::kPassage));
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

Result<bool> Namespace::NarrowVectors(int batch) {
  if (!narrow_.windows_after && !narrow_.excerpts_after) return false;
  CILIA_RETURN_IF_ERROR(store_->Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    const bool windows = narrow_.windows_after.has_value();
    std::optional<int64_t>& after = windows ? narrow_.windows_after : narrow_.excerpts_after;
    CILIA_ASSIGN_OR_RETURN(auto last, windows ? store::WindowRepo(db).NarrowVectors(*after, batch)
                                              : store::ExcerptRepo(db).NarrowVectors(*after, batch));
    CILIA_RETURN_IF_ERROR(tx.Commit());
    narrow_.rewrote |= last.has_value();
    after = last;
    return Status::Ok();
  }));
  if (narrow_.windows_after || narrow_.excerpts_after) return true;
  if (narrow_.rewrote) CILIA_RETURN_IF_ERROR(store_->Checkpoint());
  return false;
}

}  // namespace cilia::memory
