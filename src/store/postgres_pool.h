// A gateway's connections to its PostgreSQL database ([store] kind =
// "postgres"), shared by all its namespaces: at most `size` of them, opened
// when first needed and kept for the next lease. A lease enters the
// namespace it is for (PostgresDatabase::UseNamespace, so row-level security
// shows that namespace's rows only) and gives the connection back when it
// ends; a connection that broke meanwhile is closed instead, and the next
// lease opens a new one. The namespace list lives here too: row-level
// security hides every namespace but a connection's own, so the list is a
// table of the whole database (migration 0011).
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/thread_annotations.h"
#include "store/change_listener.h"
#include "store/postgres_db.h"

namespace cilia::store {

class PostgresPool {
 public:
  struct Options {
    int size = 8;  // connections at most ([store] pool_size)
    int statement_timeout_ms = 30'000;
    // How long a lease waits for a connection when all are leased, before
    // it fails with Busy (503) rather than hold a request for ever.
    std::chrono::milliseconds wait{5'000};
  };

  // Gives a connection back to its pool when the lease ends.
  struct Return {
    PostgresPool* pool = nullptr;
    void operator()(PostgresDatabase* db) const;
  };
  using Lease = std::unique_ptr<PostgresDatabase, Return>;

  // Connects (refusing what PostgresDatabase::Open refuses) and applies the
  // migrations, once per pool, under their advisory lock so that gateways
  // starting together migrate once. `label` names the database in messages
  // without its password (RedactedStoreUrl).
  static Result<std::shared_ptr<PostgresPool>> Open(const std::string& url, std::string label, Options options);
  ~PostgresPool();
  PostgresPool(const PostgresPool&) = delete;
  PostgresPool& operator=(const PostgresPool&) = delete;

  // A connection acting for namespace `ns`: an idle one, else a new one
  // while fewer than `size` are open, else the first given back within
  // `wait` (Busy after that). A database that cannot be reached is Busy too,
  // naming the database: the store cannot serve now, try again.
  Result<Lease> Acquire(std::string_view ns);

  // Adds `ns` to the namespace list, when it is not there yet.
  Status Register(std::string_view ns);
  // Every registered namespace, sorted.
  Result<std::vector<std::string>> Names();

  // A connection outside the pool, listening for the change log's
  // notifications (store/change_listener.h).
  Result<std::unique_ptr<ChangeListener>> OpenListener();

  const std::string& label() const { return label_; }
  // What this pool's connections write as cilia.writer: the process's
  // identity and the pool's number in it, so that a gateway (and each of
  // several pools in one test process) can tell its own changes.
  const std::string& writer() const { return writer_; }
  // Connections open now (leased or idle), for tests and metrics.
  int open_connections() const;

 private:
  PostgresPool(std::string url, std::string label, Options options);
  void GiveBack(PostgresDatabase* db);
  // A new connection for the slot the caller reserved (open_ counts it).
  Result<std::unique_ptr<PostgresDatabase>> Connect(std::string_view ns);

  const std::string url_;
  const std::string label_;
  const Options options_;
  const std::string writer_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<PostgresDatabase>> idle_ CILIA_GUARDED_BY(mu_);
  int open_ CILIA_GUARDED_BY(mu_) = 0;  // idle, leased, and being connected
};

}  // namespace cilia::store
