#include "store/namespace_store.h"

#include <filesystem>
#include <system_error>

#include "store/migrations.h"
#include "store/postgres_pool.h"

namespace cilia::store {

namespace fs = std::filesystem;

NamespaceStore::NamespaceStore(Options options)
    : options_(std::move(options)),
      files_(options_.postgres ? FileStore::Table() : FileStore::Directory(options_.dir + "/files")) {}

NamespaceStore::~NamespaceStore() = default;

Result<std::unique_ptr<NamespaceStore>> NamespaceStore::Open(Options options) {
  const bool postgres = options.postgres != nullptr;
  const std::string dir = options.dir;
  std::error_code ec;
  fs::create_directories(postgres ? dir : dir + "/files", ec);
  if (ec) return Status::IOError("create " + dir + ": " + ec.message());
  std::unique_ptr<NamespaceStore> ns(new NamespaceStore(std::move(options)));
  if (postgres) {
    CILIA_RETURN_IF_ERROR(ns->options_.postgres->Register(ns->options_.name));
    return ns;
  }
  CILIA_ASSIGN_OR_RETURN(ns->writer_,
                         Database::Open(dir + "/cilia.db", {.read_only = false, .full_sync = ns->options_.full_sync}));
  CILIA_RETURN_IF_ERROR(Migrate(*ns->writer_));
  return ns;
}

Result<NamespaceStore::Connection> NamespaceStore::Connect(bool write) {
  if (const std::shared_ptr<PostgresPool>& pool = options_.postgres) {
    CILIA_ASSIGN_OR_RETURN(PostgresPool::Lease lease, pool->Acquire(options_.name));
    return Connection(lease.release(), [pool](Database* db) {
      PostgresPool::Return{pool.get()}(static_cast<PostgresDatabase*>(db));
    });
  }
  if (write) return Connection(writer_.get(), [](Database*) {});
  std::unique_ptr<Database> reader;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!readers_.empty()) {
      reader = std::move(readers_.back());
      readers_.pop_back();
    }
  }
  if (!reader) {
    // Readers open read-write so that WAL recovery and shared memory work,
    // but only ever read.
    CILIA_ASSIGN_OR_RETURN(reader, Database::Open(options_.dir + "/cilia.db",
                                                  {.read_only = false, .full_sync = options_.full_sync}));
  }
  return Connection(reader.release(), [this](Database* db) { Release(std::unique_ptr<Database>(db)); });
}

void NamespaceStore::Release(std::unique_ptr<Database> db) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  if (readers_.size() < 64) readers_.push_back(std::move(db));
}

Status NamespaceStore::Checkpoint() {
  if (options_.postgres) return Status::Ok();
  return Write([](Database& db) { return db.Exec("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE)"); });
}

}  // namespace cilia::store
