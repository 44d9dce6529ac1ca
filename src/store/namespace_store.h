// One namespace's store, the one seam the memory layer reaches the database
// through. SQLite (the default): DATA/ns/<namespace>/cilia.db (WAL) with one
// writer connection behind a lock and a pool of reader connections, and the
// files/ folder for stored images. PostgreSQL ([store] kind = "postgres"):
// connections leased from the gateway's PostgresPool for each Read or Write,
// the namespace's writes still taking turns behind an in-process lock (and,
// across gateways, Transaction's advisory lock). On both, DATA/ns/<namespace>/
// holds this gateway's local caches (the vector index's copy).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "store/db.h"
#include "store/file_store.h"

namespace cilia::store {

class PostgresPool;

class NamespaceStore {
 public:
  struct Options {
    std::string name;  // the namespace
    std::string dir;   // DATA/ns/<name>
    bool full_sync = false;  // SQLite's synchronous=FULL
    // Set: the namespace's rows live in that PostgreSQL database.
    std::shared_ptr<PostgresPool> postgres;
  };
  // Creates the folder (and SQLite's database) when missing, applies
  // SQLite's migrations (PostgreSQL's ran when its pool opened) and, on
  // PostgreSQL, adds the namespace to the database's namespace list.
  static Result<std::unique_ptr<NamespaceStore>> Open(Options options);
  ~NamespaceStore();

  const std::string& dir() const { return options_.dir; }
  // Where stored images keep their bytes.
  const FileStore& files() const { return files_; }

  // Runs f(Database&) with the namespace's writer connection, under its lock.
  template <typename F>
  auto Write(F&& f) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return Run(Connect(/*write=*/true), f);
  }

  // Runs f(Database&) with a reader connection of the pool.
  template <typename F>
  auto Read(F&& f) {
    return Run(Connect(/*write=*/false), f);
  }

  // SQLite: gives the free pages back to the file system (a database
  // created with auto_vacuum=INCREMENTAL; an older one keeps them, zeroed by
  // secure_delete, until a VACUUM), then moves the WAL into the database and
  // truncates it (after a forget, so deleted words leave the files and the
  // archive takes less room). PostgreSQL: nothing (autovacuum's work).
  Status Checkpoint();

 private:
  // A connection for one Read or Write; its deleter gives it back.
  using Connection = std::unique_ptr<Database, std::function<void(Database*)>>;

  explicit NamespaceStore(Options options);
  Result<Connection> Connect(bool write);
  template <typename F>
  static auto Run(Result<Connection> connection, F& f) -> decltype(f(std::declval<Database&>())) {
    if (!connection.ok()) return connection.status();
    return f(**connection);
  }
  void Release(std::unique_ptr<Database> db);

  Options options_;
  FileStore files_;
  std::mutex write_mu_;
  std::unique_ptr<Database> writer_;  // SQLite's
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Database>> readers_;  // SQLite's
};

}  // namespace cilia::store
