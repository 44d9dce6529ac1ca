#include "store/sqlite_db.h"

#include <fmt/format.h>

#include "core/env.h"
#include "store/cjk_tokenizer.h"
#include "store/vfs.h"

namespace cilia::store {

namespace {

// Every database failure becomes a Status here, with `message` as its text,
// and disk faults are reported.
Status SqliteStatus(int rc, std::string message) {
  int primary = rc & 0xff;
  if (primary == SQLITE_CONSTRAINT) return Status::Conflict(std::move(message));
  // PROTOCOL: a WAL lock that stayed taken through SQLite's own retries.
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_PROTOCOL) {
    return ReportDiskFault(Status::Busy(std::move(message)));
  }
  if (primary == SQLITE_FULL) return ReportDiskFault(Status::DiskFull(message + "; free some space and send it again"));
  return ReportDiskFault(Status::IOError(std::move(message)));
}

Status SqliteStatus(sqlite3* db, int rc, std::string_view context) {
  return SqliteStatus(rc, fmt::format("{}: {}", context, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

}  // namespace

Statement& SqliteStatement::Check(int rc, int index) {
  if (rc != SQLITE_OK && status_.ok()) {
    sqlite3* db = sqlite3_db_handle(stmt_);
    status_ = SqliteStatus(db, rc, fmt::format("bind parameter {}", index));
  }
  return *this;
}

Statement& SqliteStatement::Bind(int index, int64_t value) { return Check(sqlite3_bind_int64(stmt_, index, value), index); }

Statement& SqliteStatement::Bind(int index, double value) { return Check(sqlite3_bind_double(stmt_, index, value), index); }

Statement& SqliteStatement::Bind(int index, std::string_view text) {
  return Check(sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
}

Statement& SqliteStatement::BindBlob(int index, const void* data, size_t size) {
  return Check(sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT), index);
}

Statement& SqliteStatement::BindNull(int index) { return Check(sqlite3_bind_null(stmt_, index), index); }

bool SqliteStatement::Step() {
  if (!status_.ok()) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) {
    sqlite3* db = sqlite3_db_handle(stmt_);
    status_ = SqliteStatus(db, rc, sqlite3_sql(stmt_) ? std::string_view(sqlite3_sql(stmt_)).substr(0, 60) : "step");
  }
  return false;
}

std::string_view SqliteStatement::TextView(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  status_ = Status::Ok();
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path, Options options) {
  CILIA_ASSIGN_OR_RETURN(auto db, SqliteDatabase::Open(path, options));
  return std::unique_ptr<Database>(std::move(db));
}

Result<std::unique_ptr<SqliteDatabase>> SqliteDatabase::Open(const std::string& path, Options options) {
  sqlite3* db = nullptr;
  int flags = options.read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  flags |= SQLITE_OPEN_NOMUTEX;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, CiliaVfsName());
  if (rc != SQLITE_OK) {
    Status st = SqliteStatus(db, rc, "open " + path);
    sqlite3_close(db);
    return st;
  }
  std::unique_ptr<SqliteDatabase> d(new SqliteDatabase(db, path));
  sqlite3_busy_timeout(db, 5000);
  sqlite3_extended_result_codes(db, 1);
  // Before any statement touches windows_cjk, whose triggers run on every
  // insert and delete of a window.
  rc = RegisterCjkTokenizer(db);
  if (rc != SQLITE_OK) return SqliteStatus(db, rc, "register the cilia_cjk tokenizer");
  std::string pragmas = "PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON; PRAGMA temp_store=MEMORY;";
  if (!options.read_only) {
    // Takes effect only in a new database (before its first table): it can
    // then give the pages a forget frees back to the file system
    // (NamespaceStore::Checkpoint). An older one keeps auto_vacuum=NONE until
    // a VACUUM.
    pragmas += "PRAGMA auto_vacuum=INCREMENTAL;";
    pragmas += "PRAGMA journal_mode=WAL;";
    pragmas += options.full_sync ? "PRAGMA synchronous=FULL;" : "PRAGMA synchronous=NORMAL;";
  }
  CILIA_RETURN_IF_ERROR(d->Exec(pragmas));
  return d;
}

SqliteDatabase::~SqliteDatabase() {
  // Only our own statements: virtual tables (FTS5) own theirs.
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt->raw());
  cache_.clear();
  sqlite3_close_v2(db_);
}

Status SqliteDatabase::Exec(std::string_view sql) {
  std::string owned(sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db_, owned.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    return SqliteStatus(rc, fmt::format("{} ({})", msg, owned.substr(0, 80)));
  }
  return Status::Ok();
}

Result<Statement*> SqliteDatabase::Prepare(std::string_view sql) {
  std::string key(sql);
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    it->second->Reset();
    return it->second.get();
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, key.data(), static_cast<int>(key.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteStatus(db_, rc, "prepare " + key.substr(0, 80));
  auto owned = std::make_unique<SqliteStatement>(stmt);
  Statement* raw = owned.get();
  cache_.emplace(std::move(key), std::move(owned));
  return raw;
}

}  // namespace cilia::store
