#include "store/namespace_store.h"

#include <filesystem>
#include <system_error>

#include "store/migrations.h"

namespace cilia::store {

namespace fs = std::filesystem;

Result<std::unique_ptr<NamespaceStore>> NamespaceStore::Open(const std::string& dir, bool full_sync) {
  std::error_code ec;
  fs::create_directories(dir + "/files", ec);
  if (ec) return Status::IOError("create " + dir + ": " + ec.message());
  std::unique_ptr<NamespaceStore> ns(new NamespaceStore(dir, full_sync));
  CILIA_ASSIGN_OR_RETURN(ns->writer_, Database::Open(dir + "/cilia.db", {.read_only = false, .full_sync = full_sync}));
  CILIA_RETURN_IF_ERROR(Migrate(*ns->writer_));
  return ns;
}

Result<std::unique_ptr<Database>> NamespaceStore::Acquire() {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!readers_.empty()) {
      auto db = std::move(readers_.back());
      readers_.pop_back();
      return db;
    }
  }
  // Readers open read-write so that WAL recovery and shared memory work,
  // but only ever read.
  return Database::Open(dir_ + "/cilia.db", {.read_only = false, .full_sync = full_sync_});
}

void NamespaceStore::Release(std::unique_ptr<Database> db) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (readers_.size() < 64) readers_.push_back(std::move(db));
}

Status NamespaceStore::Checkpoint() {
  return Write([](Database& db) { return db.Exec("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE)"); });
}

}  // namespace cilia::store
