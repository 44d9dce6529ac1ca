#include "store/postgres_pool.h"

#include <fmt/format.h>

#include <atomic>

#include "core/process_identity.h"
#include "store/migrations.h"

namespace cilia::store {

void PostgresPool::Return::operator()(PostgresDatabase* db) const {
  if (pool) pool->GiveBack(db);
  else delete db;
}

Result<std::shared_ptr<PostgresPool>> PostgresPool::Open(const std::string& url, std::string label, Options options) {
  if (options.size < 1) return Status::InvalidArgument("store pool size must be at least 1");
  std::shared_ptr<PostgresPool> pool(new PostgresPool(url, std::move(label), options));
  {
    std::lock_guard<std::mutex> lock(pool->mu_);
    ++pool->open_;
  }
  CILIA_ASSIGN_OR_RETURN(std::unique_ptr<PostgresDatabase> first, pool->Connect(""));
  CILIA_RETURN_IF_ERROR(Migrate(*first).With("store " + pool->label_));
  std::lock_guard<std::mutex> lock(pool->mu_);
  pool->idle_.push_back(std::move(first));
  return pool;
}

PostgresPool::PostgresPool(std::string url, std::string label, Options options)
    : url_(std::move(url)), label_(std::move(label)), options_(options), writer_([] {
        static std::atomic<int> pools{0};
        return fmt::format("{}:{}", ProcessIdentity(), pools++);
      }()) {}

PostgresPool::~PostgresPool() = default;

Result<std::unique_ptr<ChangeListener>> PostgresPool::OpenListener() {
  // No statement timeout: the connection only waits.
  auto db = PostgresDatabase::Open(url_, "", {.statement_timeout_ms = 0, .writer = writer_});
  if (!db.ok()) return db.status().With("store " + label_);
  return ChangeListener::Start(std::move(*db));
}

Result<std::unique_ptr<PostgresDatabase>> PostgresPool::Connect(std::string_view ns) {
  auto db = PostgresDatabase::Open(url_, ns, {.statement_timeout_ms = options_.statement_timeout_ms, .writer = writer_});
  if (db.ok()) return std::move(*db);
  {
    std::lock_guard<std::mutex> lock(mu_);
    --open_;
  }
  freed_.notify_one();
  return db.status().With("store " + label_);
}

Result<PostgresPool::Lease> PostgresPool::Acquire(std::string_view ns) {
  for (;;) {
    std::unique_ptr<PostgresDatabase> db;
    bool fresh = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      const bool ready =
          freed_.wait_for(lock, options_.wait, [&] { return !idle_.empty() || open_ < options_.size; });
      if (!ready) {
        return Status::Busy(fmt::format("store {}: all {} connections stayed in use for {} ms ([store] pool_size)",
                                        label_, options_.size, options_.wait.count()));
      }
      if (!idle_.empty()) {
        db = std::move(idle_.back());
        idle_.pop_back();
      } else {
        ++open_;  // the slot is this lease's while it connects, outside the lock
        fresh = true;
      }
    }
    if (fresh) {
      CILIA_ASSIGN_OR_RETURN(db, Connect(ns));
    }
    Lease lease(db.release(), Return{this});
    Status entered = lease->UseNamespace(ns);
    if (entered.ok()) return lease;
    // An idle connection that broke meanwhile (the server restarted, or
    // ended it): closed as its lease ends; the next turn takes another idle
    // one or opens a new one, which tells a dead connection from a dead server.
    if (!fresh && PQstatus(lease->raw()) != CONNECTION_OK) continue;
    return entered.With("store " + label_);
  }
}

void PostgresPool::GiveBack(PostgresDatabase* raw) {
  std::unique_ptr<PostgresDatabase> db(raw);
  // A transaction left open (a caller that returned early) is rolled back,
  // so that the next lease starts clean; a connection that broke is closed.
  if (PQstatus(db->raw()) == CONNECTION_OK && db->InTransaction()) (void)db->Exec("ROLLBACK");
  const bool healthy = PQstatus(db->raw()) == CONNECTION_OK && !db->InTransaction();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (healthy) {
      idle_.push_back(std::move(db));
    } else {
      --open_;
    }
  }
  freed_.notify_one();
  // A broken connection is closed here, outside the lock.
}

Status PostgresPool::Register(std::string_view ns) {
  CILIA_ASSIGN_OR_RETURN(Lease lease, Acquire(ns));
  // The namespace list is outside row-level security and has no `ns`
  // column, so the conflict has no target (PostgresSql would put `ns` in one).
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         lease->Prepare("INSERT INTO namespaces(name, created_at) VALUES "
                                        "(?, (extract(epoch FROM now()) * 1000)::bigint) ON CONFLICT DO NOTHING"));
  return s->Bind(1, ns).Run();
}

Result<std::vector<std::string>> PostgresPool::Names() {
  CILIA_ASSIGN_OR_RETURN(Lease lease, Acquire(""));
  CILIA_ASSIGN_OR_RETURN(Statement * s, lease->Prepare("SELECT name FROM namespaces ORDER BY name"));
  return s->All([](const Statement& row) { return row.Text(0); });
}

int PostgresPool::open_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return open_;
}

}  // namespace cilia::store
