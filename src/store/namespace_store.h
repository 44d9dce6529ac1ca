// The files of one namespace: DATA/ns/<namespace>/cilia.db (WAL) with one
// writer connection behind a lock and a pool of reader connections, and the
// files/ folder for stored images.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

class NamespaceStore {
 public:
  // Creates the folder and database when missing and applies migrations.
  static Result<std::unique_ptr<NamespaceStore>> Open(const std::string& dir, bool full_sync = false);

  const std::string& dir() const { return dir_; }
  std::string files_dir() const { return dir_ + "/files"; }

  // Runs f(Database&) with the one writer connection, under its lock.
  template <typename F>
  auto Write(F&& f) {
    std::lock_guard<std::mutex> lock(write_mu_);
    return f(*writer_);
  }

  // Runs f(Database&) with a reader connection of the pool.
  template <typename F>
  auto Read(F&& f) {
    auto lease = Acquire();
    if (!lease.ok()) return decltype(f(*writer_))(lease.status());
    auto out = f(*lease.value());
    Release(std::move(lease.value()));
    return out;
  }

  // Gives the free pages back to the file system (a database created with
  // auto_vacuum=INCREMENTAL; an older one keeps them, zeroed by
  // secure_delete, until a VACUUM), then moves the WAL into the database and
  // truncates it (after a forget, so deleted words leave the files and the
  // archive takes less room).
  Status Checkpoint();

 private:
  NamespaceStore(std::string dir, bool full_sync) : dir_(std::move(dir)), full_sync_(full_sync) {}
  Result<std::unique_ptr<Database>> Acquire();
  void Release(std::unique_ptr<Database> db);

  std::string dir_;
  bool full_sync_;
  std::mutex write_mu_;
  std::unique_ptr<Database> writer_;
  std::mutex pool_mu_;
  std::vector<std::unique_ptr<Database>> readers_;
};

}  // namespace cilia::store
