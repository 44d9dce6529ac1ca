// Every namespace of the store, opened on first use, with the shared
// embedder, and the background indexer that windows and embeds what ingest
// stored without ?sync. The store is the data dir's (DATA/ns/<name>, SQLite)
// or, with [store] kind = "postgres", one PostgreSQL database that this
// gateway reaches through its own pool of connections (store/postgres_pool.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/executor.h"
#include "core/status.h"
#include "core/time.h"
#include "embed/embedder.h"
#include "memory/namespace.h"

namespace cilia::memory {

class Registry {
 public:
  // `executor` (may be null) is handed to every namespace; it must outlive
  // the registry.
  static Result<std::unique_ptr<Registry>> Open(const Config& config, const Clock& clock = Clock::System(),
                                                Executor* executor = nullptr);
  ~Registry();

  // The namespace, created when missing, loaded when it is not: a use,
  // which keeps it loaded ([store] unload_idle_s).
  Result<std::shared_ptr<Namespace>> Get(const std::string& name);
  // The same for background upkeep (the indexer, the jobs), which is no use:
  // a namespace only upkeep touches still unloads when idle.
  Result<std::shared_ptr<Namespace>> GetForUpkeep(const std::string& name);
  // Runs f on the namespace's store: the loaded namespace's, else one opened
  // for the call, so that upkeep can look at a namespace without loading its
  // indexes.
  Status WithStore(const std::string& name, const std::function<Status(store::NamespaceStore&)>& f);
  // Unloads the namespaces no request has used for [store] unload_idle_s
  // and none holds now (their vector index's copy saved first); their names.
  // The background indexer calls it every 30 s.
  std::vector<std::string> UnloadIdle();
  // The namespaces loaded now, sorted.
  std::vector<std::string> LoadedNames() const;
  // Names of the namespaces that exist: folders of the data dir, or the
  // PostgreSQL database's namespace list (every gateway's). None, with a
  // warning logged, when that list cannot be read.
  std::vector<std::string> Names() const;

  // Asks the background indexer to window a conversation soon.
  void ScheduleIndexing(const std::string& ns, int64_t conversation_row);
  // Indexes every pending conversation of every namespace and embeds
  // windows that lack a vector of the current embedder, in the background,
  // on one of `executor`'s workers, which it holds until Stop(). On
  // PostgreSQL a second worker runs the change feed: woken by the change
  // log's notifications (and looking anyway every few seconds), it applies
  // other gateways' writes to the open namespaces' indexes
  // (Namespace::CatchUp), and reopens a namespace that could not catch up
  // for longer than the log keeps changes.
  Status StartBackground(Executor& executor);
  void Stop();

  const Config& config() const { return config_; }
  const TimeZone& tz() const { return tz_; }
  const Clock& clock() const { return clock_; }

 private:
  Registry(Config config, TimeZone tz, const Clock& clock, Executor* executor)
      : config_(std::move(config)), tz_(std::move(tz)), clock_(clock), executor_(executor) {}
  Result<std::shared_ptr<Namespace>> Load(const std::string& name, bool use);
  NamespaceOptions OptionsFor(const std::string& name) const;
  // Whether a namespace that is not loaded has indexing or embedding to do.
  Result<bool> NeedsIndexing(const std::string& name);
  void BackgroundLoop();
  // One pass of the indexer over every namespace; false once stopping.
  bool IndexEverything();
  void ChangeFeedLoop();
  // Catches up the open namespaces (`only`: those named); false once stopping.
  bool CatchUpOpen(const std::set<std::string>* only);
  // Waits up to `timeout` for Stop(); true when it came.
  bool StopWithin(std::chrono::milliseconds timeout);

  Config config_;
  TimeZone tz_;
  const Clock& clock_;
  Executor* executor_;
  std::shared_ptr<const embed::Embedder> embedder_;
  std::shared_ptr<store::PostgresPool> postgres_;  // null: SQLite

  struct Loaded {
    std::shared_ptr<Namespace> ns;
    UnixMs used_at = 0;  // the last Get (loading for upkeep counts as none)
  };
  mutable std::mutex mu_;
  std::map<std::string, Loaded> open_;
  // Namespaces not loaded that the indexer found nothing to do in; a Get
  // takes a namespace out (what it loads for may be new work).
  std::set<std::string> indexed_;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::pair<std::string, int64_t>> queue_;
  bool stopping_ = false;
  bool catch_up_ = false;
  std::optional<Executor::Joined<std::function<void()>>> worker_;
  std::optional<Executor::Joined<std::function<void()>>> feed_;
  bool feed_failing_ = false;  // the feed's own: warn once per outage
};

// Whether a namespace name is allowed: [a-z0-9][a-z0-9_-]{0,63}.
bool IsValidNamespaceName(std::string_view name);

}  // namespace cilia::memory
