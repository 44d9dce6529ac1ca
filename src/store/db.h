// A thin RAII layer over SQLite: connections, prepared statements and
// transactions, every failure turned into a Status.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace cilia::store {

class Statement {
 public:
  Statement() = default;
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}

  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, const char* text) { return Bind(index, std::string_view(text)); }
  Statement& Bind(int index, const std::string& text) { return Bind(index, std::string_view(text)); }
  Statement& BindBlob(int index, const void* data, size_t size);
  Statement& BindNull(int index);
  Statement& Bind(int index, const std::optional<int64_t>& value) {
    return value ? Bind(index, *value) : BindNull(index);
  }

  // Steps once: true while a row is available, false when done. Errors are
  // kept and returned by status().
  bool Step();
  // Steps to the end, for statements that return no rows.
  Status Run();
  const Status& status() const { return status_; }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const;
  std::string_view TextView(int col) const;
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  const void* Blob(int col) const { return sqlite3_column_blob(stmt_, col); }
  int BlobSize(int col) const { return sqlite3_column_bytes(stmt_, col); }

  void Reset();
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

// One SQLite connection. Not thread-safe: one thread uses it at a time.
class Database {
 public:
  struct Options {
    bool read_only = false;
    bool full_sync = false;  // synchronous=FULL instead of NORMAL
  };

  static Result<std::unique_ptr<Database>> Open(const std::string& path, Options options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  Status Exec(std::string_view sql);
  // A cached prepared statement, reset and with bindings cleared. The
  // reference stays valid for the connection's life.
  Result<Statement*> Prepare(std::string_view sql);
  int64_t LastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }

  Status Error(std::string_view context) const;

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back unless Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  ~Transaction();
  Status Begin();
  Status Commit();

 private:
  Database& db_;
  bool open_ = false;
};

}  // namespace cilia::store
