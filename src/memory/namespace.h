// One namespace's memory: its store, the in-memory vector index and window
// catalogue (caches of tables, rebuilt at open), the shared embedder, and the
// owner's time zone. Archive and recall work on this.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "embed/embedder.h"
#include "index/bm25_index.h"
#include "index/fusion.h"
#include "index/vector_index.h"
#include "memory/excerpts/excerpt_index.h"
#include "store/change_log_repo.h"
#include "store/namespace_store.h"
#include "store/window_repo.h"

namespace cilia {
class Executor;
}

namespace cilia::memory {

struct NamespaceOptions {
  std::string name;
  std::string dir;  // DATA/ns/<name>
  bool full_sync = false;
  std::shared_ptr<store::PostgresPool> postgres;  // set: the rows live there (the registry's pool)
  size_t hnsw_threshold = 50000;
  index::RankingOptions ranking;
  int default_limit = 10;  // recall results when a request gives no limit
  int max_limit = 100;
};

// What recall needs to know of a window without reading it.
struct WindowMeta {
  int64_t conversation_row = 0;
  int64_t created_at = 0;
  int64_t ended_at = 0;
  int64_t access_count = 0;
};

class Namespace {
 public:
  // `executor` (may be null: work then runs on the caller's thread) runs
  // recall's lanes beside each other; it must outlive the namespace.
  static Result<std::shared_ptr<Namespace>> Open(const NamespaceOptions& options,
                                                 std::shared_ptr<const embed::Embedder> embedder,
                                                 const TimeZone& tz, const Clock& clock,
                                                 Executor* executor = nullptr);

  const std::string& name() const { return options_.name; }
  const NamespaceOptions& options() const { return options_; }
  store::NamespaceStore& store() { return *store_; }
  const embed::Embedder& embedder() const { return *embedder_; }
  index::VectorIndex& vectors() { return *vectors_; }
  index::Bm25Index& words() { return words_; }
  // The conversations' titles for the lexical lane's title field, by
  // conversation row (index::TitleField).
  const index::Bm25Index& titles() const { return titles_; }
  // Sets (an empty title: removes) a conversation's indexed title.
  void PutTitle(int64_t conversation, std::string_view title);
  void RemoveTitle(int64_t conversation) { titles_.Remove(conversation); }
  // The L1 excerpts' indexes (their own id space).
  ExcerptIndex& excerpts() { return excerpts_; }
  const TimeZone& tz() const { return tz_; }
  const Clock& clock() const { return clock_; }
  Executor* executor() const { return executor_; }

  // The window catalogue.
  void PutWindowMeta(int64_t id, WindowMeta meta);
  void RemoveWindowMeta(int64_t id);
  std::optional<WindowMeta> GetWindowMeta(int64_t id) const;
  // The ids of a conversation's windows, oldest first.
  std::vector<int64_t> WindowsOf(int64_t conversation) const;
  void AddAccess(int64_t id);
  size_t WindowCount() const;
  // At least as many windows as `filter` allows, from counts per UTC day
  // and per conversation (exact when its times fall on day boundaries, but
  // for a window reaching into the span from a day before it, which is
  // rare): whether listing the allowed windows is cheap, without listing them.
  size_t AllowedAtMost(const store::WindowFilter& filter) const;
  // Whether the catalogue's entry of window `id` passes `filter`.
  bool Allows(const store::WindowFilter& filter, int64_t id) const;

  // Saves the in-memory vector index beside the database, keyed to the
  // embedder and the vectors table, so the next start need not rebuild HNSW.
  // The key is removed when the copy is loaded: after a crash, the next
  // start rebuilds from the table.
  Status SaveVectorCache();

  // Embeds windows that have no vector of the current embedder (after an
  // embedder change, or a remote embedder that failed); up to `batch` at a
  // time. Returns how many were embedded.
  Result<int> EmbedMissing(int batch);

  // PostgreSQL: applies to the in-memory indexes what other gateways wrote
  // since the last call (or the open), from the change log
  // (store/change_log_repo.h), re-reading each row it names: a new or
  // changed window, vector, title or excerpt is put, a deleted one removed.
  // Returns how many changes it applied; SQLite: none, ever (one process
  // holds the data dir). Calls take turns.
  Result<int> CatchUp();
  // When CatchUp last read the log to its end (at the open, at first).
  UnixMs caught_up_at() const { return caught_up_at_.load(); }

  // Rewrites up to `batch` vectors stored as float32 (archives written before
  // float16, store/vector_table.h) as float16, windows first, then excerpts,
  // in one transaction; true while some may be left. One pass over the keys
  // per process: new rows are float16 already. After the pass that rewrote
  // any, a checkpoint gives the freed pages back (incremental_vacuum). For
  // one caller at a time (the registry's background loop).
  Result<bool> NarrowVectors(int batch);

 private:
  Namespace(NamespaceOptions options, std::shared_ptr<const embed::Embedder> embedder, const TimeZone& tz,
            const Clock& clock, Executor* executor)
      : options_(std::move(options)), embedder_(std::move(embedder)), tz_(tz), clock_(clock), executor_(executor) {}
  Status LoadCaches();
  Status ApplyChange(store::Database& db, const store::Change& change);
  Result<bool> LoadVectorCache(store::WindowRepo& repo);
  std::string VectorCachePath() const { return options_.dir + "/vectors.cache"; }
  // Keeps the window counts and conversation_windows_ in step with meta_;
  // the caller holds meta_mu_.
  void CountLocked(int64_t id, const WindowMeta& meta, int64_t delta);

  NamespaceOptions options_;
  std::shared_ptr<const embed::Embedder> embedder_;
  TimeZone tz_;
  const Clock& clock_;
  Executor* executor_;
  std::unique_ptr<store::NamespaceStore> store_;
  std::unique_ptr<index::VectorIndex> vectors_;
  index::Bm25Index words_;
  index::Bm25Index titles_;
  ExcerptIndex excerpts_;
  mutable std::shared_mutex meta_mu_;
  std::unordered_map<int64_t, WindowMeta> meta_;
  std::map<int64_t, int64_t> windows_per_day_;  // UTC day number -> windows created that day
  std::unordered_map<int64_t, int64_t> windows_per_conversation_;
  std::set<std::pair<int64_t, int64_t>> conversation_windows_;  // (conversation, window id)
  // NarrowVectors' pass: the last key each table was rewritten up to (none:
  // that table is done), and whether it rewrote anything.
  struct NarrowPass {
    std::optional<int64_t> windows_after = 0;
    std::optional<int64_t> excerpts_after = 0;
    bool rewrote = false;
  };
  NarrowPass narrow_;
  std::mutex catch_up_mu_;
  int64_t applied_change_ = 0;  // the last change log seq read (PostgreSQL), under catch_up_mu_
  std::atomic<UnixMs> caught_up_at_{0};
};

}  // namespace cilia::memory
