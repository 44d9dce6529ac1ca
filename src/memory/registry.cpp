#include "memory/registry.h"

#include <filesystem>
#include <utility>

#include "core/log.h"
#include "embed/factory.h"
#include "memory/archive/archive.h"
#include "store/change_listener.h"
#include "store/message_repo.h"
#include "store/postgres_pool.h"
#include "store/window_repo.h"

namespace cilia::memory {

namespace fs = std::filesystem;

bool IsValidNamespaceName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name[0])) return false;
  for (char c : name) {
    if (!alnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

Result<std::unique_ptr<Registry>> Registry::Open(const Config& config, const Clock& clock, Executor* executor) {
  CILIA_ASSIGN_OR_RETURN(TimeZone tz, TimeZone::Load(config.server.time_zone));
  std::unique_ptr<Registry> r(new Registry(config, tz, clock, executor));
  CILIA_ASSIGN_OR_RETURN(r->embedder_, embed::MakeEmbedder(config));
  if (config.store.kind == StoreKind::kPostgres) {
    const StoreConfig& sc = config.store;
    CILIA_ASSIGN_OR_RETURN(r->postgres_, store::PostgresPool::Open(sc.url, RedactedStoreUrl(sc.url),
                                                                   {.size = sc.pool_size,
                                                                    .statement_timeout_ms = sc.statement_timeout_ms}));
  }
  std::error_code ec;
  fs::create_directories(fs::path(config.server.data_dir) / "ns", ec);
  if (ec) return Status::IOError("create " + config.server.data_dir + "/ns: " + ec.message());
  return r;
}

Registry::~Registry() { Stop(); }

namespace {
Status CheckNamespaceName(const std::string& name) {
  if (IsValidNamespaceName(name)) return Status::Ok();
  return Status::InvalidArgument("namespace \"" + name + "\" is not a valid name");
}
}  // namespace

NamespaceOptions Registry::OptionsFor(const std::string& name) const {
  NamespaceOptions o;
  o.name = name;
  o.dir = (fs::path(config_.server.data_dir) / "ns" / name).string();
  o.postgres = postgres_;
  o.hnsw_threshold = static_cast<size_t>(config_.index.hnsw_threshold);
  const RetrievalConfig& rc = config_.retrieval;
  o.ranking.vector_weight = rc.vector_weight;
  o.ranking.lexical_weight = rc.lexical_weight;
  o.ranking.rrf_k = rc.rrf_k;
  o.ranking.recency_days = rc.recency_days;
  o.ranking.min_vector_similarity = rc.min_vector_similarity;
  o.ranking.relative_floor = rc.relative_floor;
  o.ranking.title_weight = rc.title_weight;
  o.default_limit = rc.default_limit;
  o.max_limit = rc.max_limit;
  o.ranking.per_conversation_day_cap = rc.per_conversation_day_cap > 0 ? rc.per_conversation_day_cap : 1 << 30;
  return o;
}

Result<std::shared_ptr<Namespace>> Registry::Get(const std::string& name) { return Load(name, /*use=*/true); }

Result<std::shared_ptr<Namespace>> Registry::GetForUpkeep(const std::string& name) { return Load(name, /*use=*/false); }

Result<std::shared_ptr<Namespace>> Registry::Load(const std::string& name, bool use) {
  CILIA_RETURN_IF_ERROR(CheckNamespaceName(name));
  std::lock_guard<std::mutex> lock(mu_);
  if (use) indexed_.erase(name);
  auto it = open_.find(name);
  if (it != open_.end()) {
    if (use) it->second.used_at = clock_.Now();
    return it->second.ns;
  }
  CILIA_ASSIGN_OR_RETURN(auto ns, Namespace::Open(OptionsFor(name), embedder_, tz_, clock_, executor_));
  open_.emplace(name, Loaded{ns, clock_.Now()});
  return ns;
}

Status Registry::WithStore(const std::string& name, const std::function<Status(store::NamespaceStore&)>& f) {
  CILIA_RETURN_IF_ERROR(CheckNamespaceName(name));
  std::shared_ptr<Namespace> loaded;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = open_.find(name);
    if (it != open_.end()) loaded = it->second.ns;
  }
  if (loaded) return f(loaded->store());
  const NamespaceOptions o = OptionsFor(name);
  CILIA_ASSIGN_OR_RETURN(auto store, store::NamespaceStore::Open({o.name, o.dir, o.full_sync, o.postgres}));
  return f(*store);
}

std::vector<std::string> Registry::UnloadIdle() {
  std::vector<std::string> unloaded;
  const int64_t idle_ms = int64_t{config_.store.unload_idle_s} * 1000;
  if (idle_ms <= 0) return unloaded;
  std::vector<std::shared_ptr<Namespace>> going;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const UnixMs now = clock_.Now();
    for (auto it = open_.begin(); it != open_.end();) {
      // use_count 1: only this map holds it, and Get cannot hand it out while mu_ is held.
      if (now - it->second.used_at >= idle_ms && it->second.ns.use_count() == 1) {
        unloaded.push_back(it->first);
        going.push_back(std::move(it->second.ns));
        it = open_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& ns : going) {
    Status st = ns->SaveVectorCache();
    if (!st.ok()) LogWarn("saving the vector cache of {}: {}", ns->name(), st.ToString());
  }
  if (!unloaded.empty()) LogInfo("unloaded {} namespace(s) idle for {} s", unloaded.size(), config_.store.unload_idle_s);
  return unloaded;
}

std::vector<std::string> Registry::LoadedNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& [name, loaded] : open_) out.push_back(name);
  return out;
}

Result<bool> Registry::NeedsIndexing(const std::string& name) {
  bool needs = false;
  CILIA_RETURN_IF_ERROR(WithStore(name, [&](store::NamespaceStore& store) {
    return store.Read([&](store::Database& db) -> Status {
      CILIA_ASSIGN_OR_RETURN(auto conversations, store::MessageRepo(db).AllConversations());
      for (const auto& c : conversations) needs = needs || c.indexed_seq < c.next_seq;
      if (needs) return Status::Ok();
      CILIA_ASSIGN_OR_RETURN(auto missing, store::WindowRepo(db).MissingVectors(embedder_->id(), 1));
      needs = !missing.empty();
      return Status::Ok();
    });
  }));
  return needs;
}

std::vector<std::string> Registry::Names() const {
  if (postgres_) {
    auto names = postgres_->Names();
    if (names.ok()) return std::move(*names);
    LogWarn("listing the namespaces: {}", names.status().ToString());
    return {};
  }
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(config_.server.data_dir) / "ns", ec)) {
    std::string name = e.path().filename().string();
    if (e.is_directory() && IsValidNamespaceName(name)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void Registry::ScheduleIndexing(const std::string& ns, int64_t conversation_row) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    queue_.emplace_back(ns, conversation_row);
  }
  queue_cv_.notify_one();
}

Status Registry::StartBackground(Executor& executor) {
  if (worker_) return Status::Ok();
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = false;
    catch_up_ = true;
  }
  auto started = executor.TryBeside(std::function<void()>([this] { BackgroundLoop(); }));
  if (!started) return Status::Busy("no worker free for the background indexer");
  worker_.emplace(std::move(*started));
  if (postgres_) {
    auto feed = executor.TryBeside(std::function<void()>([this] { ChangeFeedLoop(); }));
    if (!feed) {
      Stop();
      return Status::Busy("no worker free for the change feed");
    }
    feed_.emplace(std::move(*feed));
  }
  return Status::Ok();
}

void Registry::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (worker_) {
    worker_->get();
    worker_.reset();
  }
  if (feed_) {
    feed_->get();
    feed_.reset();
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [name, loaded] : open_) {
    Status st = loaded.ns->SaveVectorCache();
    if (!st.ok()) LogWarn("saving the vector cache of {}: {}", name, st.ToString());
  }
}

void Registry::BackgroundLoop() {
  for (;;) {
    std::pair<std::string, int64_t> job;
    bool catch_up = false;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait_for(lock, std::chrono::seconds(30), [&] { return stopping_ || catch_up_ || !queue_.empty(); });
      if (stopping_) return;
      if (catch_up_) {
        catch_up = true;
        catch_up_ = false;
      } else if (!queue_.empty()) {
        job = std::move(queue_.front());
        queue_.pop_front();
      } else {
        catch_up = true;  // periodic: retry what failed before (a remote embedder that was down)
      }
    }
    if (catch_up) {
      UnloadIdle();
      if (!IndexEverything()) return;
      continue;
    }
    auto ns = GetForUpkeep(job.first);
    if (!ns.ok()) continue;
    Status st = Archive(**ns).IndexConversation(job.second);
    if (!st.ok()) LogWarn("indexing {}: {}", job.first, st.ToString());
  }
}

}  // namespace cilia::memory

namespace cilia::memory {

bool Registry::IndexEverything() {
  for (const std::string& name : Names()) {
    bool loaded = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (indexed_.count(name)) continue;
      loaded = open_.count(name) > 0;
    }
    if (!loaded) {
      // Load it only when it has work, so that idle namespaces stay unloaded.
      auto needs = NeedsIndexing(name);
      if (!needs.ok()) {
        LogWarn("namespace {}: {}", name, needs.status().ToString());
        continue;
      }
      if (!*needs) {
        std::lock_guard<std::mutex> lock(mu_);
        indexed_.insert(name);
        continue;
      }
    }
    auto ns = GetForUpkeep(name);
    if (!ns.ok()) {
      LogWarn("namespace {}: {}", name, ns.status().ToString());
      continue;
    }
    Status st = Archive(**ns).IndexPending();
    if (!st.ok()) LogWarn("indexing {}: {}", name, st.ToString());
    // Each step does one batch; between batches a Stop() is heeded. False: stopping.
    auto drain = [&](std::string_view what, const std::function<Result<bool>()>& step) {
      for (;;) {
        auto more = step();
        if (!more.ok()) {
          LogWarn("{} {}: {}", what, name, more.status().ToString());
          return true;
        }
        if (!*more) return true;
        std::lock_guard<std::mutex> lock(queue_mu_);
        if (stopping_) return false;
      }
    };
    if (!drain("embedding", [&]() -> Result<bool> {
          CILIA_ASSIGN_OR_RETURN(int embedded, (*ns)->EmbedMissing(256));
          return embedded > 0;
        })) {
      return false;
    }
    // Archives from before float16 vectors: 1,000 rows a transaction,
    // so ingest waits for the writer at most one batch.
    if (!drain("rewriting as float16 the vectors of", [&] { return (*ns)->NarrowVectors(1000); })) return false;
  }
  return true;
}

namespace {
// How long the feed waits for a notification before it looks at every open
// namespace anyway (a notification lost with its connection), and how often
// it tries again without a listener.
constexpr auto kFeedLook = std::chrono::seconds(5);
constexpr auto kFeedRetry = std::chrono::seconds(1);
}  // namespace

bool Registry::StopWithin(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(queue_mu_);
  return queue_cv_.wait_for(lock, timeout, [&] { return stopping_; });
}

bool Registry::CatchUpOpen(const std::set<std::string>* only) {
  std::vector<std::shared_ptr<Namespace>> open;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [name, loaded] : open_) {
      if (!only || only->count(name)) open.push_back(loaded.ns);
    }
  }
  for (const auto& ns : open) {
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      if (stopping_) return false;
    }
    // Changes older than the log keeps may be gone: this gateway's copy
    // cannot be mended, only made again (at the next use).
    if (clock_.Now() - ns->caught_up_at() > store::kChangeLogKeepMs / 2) {
      LogWarn("namespace {}: behind the change log for too long; reloading it at its next use", ns->name());
      std::lock_guard<std::mutex> lock(mu_);
      auto it = open_.find(ns->name());
      if (it != open_.end() && it->second.ns == ns) open_.erase(it);
      continue;
    }
    auto applied = ns->CatchUp();
    if (!applied.ok()) {
      if (!std::exchange(feed_failing_, true)) {
        LogWarn("the change feed: namespace {}: {}", ns->name(), applied.status().ToString());
      }
      continue;
    }
    feed_failing_ = false;
  }
  return true;
}

void Registry::ChangeFeedLoop() {
  std::unique_ptr<store::ChangeListener> listener;
  auto quiet_since = std::chrono::steady_clock::now();
  for (;;) {
    if (!listener) {
      auto opened = postgres_->OpenListener();
      if (opened.ok()) {
        listener = std::move(*opened);
        if (!CatchUpOpen(nullptr)) return;  // what came while none listened
        quiet_since = std::chrono::steady_clock::now();
      } else {
        if (!std::exchange(feed_failing_, true)) LogWarn("the change feed: {}", opened.status().ToString());
        if (StopWithin(kFeedRetry)) return;
        continue;
      }
    }
    auto woken = listener->Wait(kFeedRetry);
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      if (stopping_) return;
    }
    if (!woken.ok()) {
      listener.reset();
      continue;
    }
    const bool look_at_all = std::chrono::steady_clock::now() - quiet_since >= kFeedLook;
    if (woken->empty() && !look_at_all) continue;
    if (!CatchUpOpen(look_at_all ? nullptr : &*woken)) return;
    if (look_at_all) quiet_since = std::chrono::steady_clock::now();
  }
}

}  // namespace cilia::memory
