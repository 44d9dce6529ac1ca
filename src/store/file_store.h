// Where a namespace's stored images keep their bytes (their rows are
// `files`, MessageRepo::PutFile): SQLite's namespace in files/<sha256> beside
// its database; PostgreSQL's in the file_bytes table, so that every gateway
// sharing the database serves and exports the same images, and an image
// written in an ingest's transaction goes with it on a rollback. Archive and
// export use this and never ask which.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

class FileStore {
 public:
  // The folder of a SQLite namespace (created by NamespaceStore::Open).
  static FileStore Directory(std::string dir) { return FileStore(std::move(dir)); }
  // The file_bytes table of the connection's namespace.
  static FileStore Table() { return FileStore(""); }

  // Stores `bytes` as `sha256` unless they are there already. `db` is the
  // writer connection of the caller's transaction.
  Status Put(Database& db, std::string_view sha256, std::string_view bytes) const;
  Result<std::string> Get(Database& db, std::string_view sha256) const;
  // Removes every stored file without a row in `files` (forgotten images,
  // and the leftovers of a write that failed or was killed). Under the
  // writer lock, so that no ingest is between storing bytes and committing
  // their row.
  Status RemoveUnlisted(Database& db) const;

 private:
  explicit FileStore(std::string dir) : dir_(std::move(dir)) {}
  bool in_table() const { return dir_.empty(); }

  std::string dir_;  // empty: the table
};

}  // namespace cilia::store
