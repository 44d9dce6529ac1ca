// A thin RAII layer over SQLite: connections, prepared statements and
// transactions, every failure turned into a Status.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
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

  // Steps once: true while a row is available, false when done. Errors (a
  // failed bind included: the statement then never runs) are kept and
  // returned by status().
  bool Step();
  // Steps to the end, for statements that return no rows.
  Status Run();
  const Status& status() const { return status_; }

  // The ways to read rows; each reads, then resets the statement so it holds
  // no read lock. `read` turns the statement at a row into a value.
  template <typename Read>
  auto All(Read read) -> Result<std::vector<std::decay_t<std::invoke_result_t<Read&, const Statement&>>>> {
    std::vector<std::decay_t<std::invoke_result_t<Read&, const Statement&>>> out;
    while (Step()) out.push_back(read(*this));
    return Finish(std::move(out));
  }
  // The first row, or none.
  template <typename Read>
  auto One(Read read) -> Result<std::optional<std::decay_t<std::invoke_result_t<Read&, const Statement&>>>> {
    std::optional<std::decay_t<std::invoke_result_t<Read&, const Statement&>>> out;
    if (Step()) out = read(*this);
    return Finish(std::move(out));
  }
  // visit(*this) at every row.
  template <typename Visit>
  Status Each(Visit visit) {
    while (Step()) visit(static_cast<const Statement&>(*this));
    return Finish(true).status();
  }
  // The first column of the first row; `when_none` without a row or for NULL.
  Result<int64_t> OneInt(int64_t when_none = 0) {
    std::optional<int64_t> out;
    if (Step() && !IsNull(0)) out = Int(0);
    return Finish(out.value_or(when_none));
  }
  // Whether there is a row.
  Result<bool> Exists() {
    const bool found = Step();
    return Finish(found);
  }

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string Text(int col) const;
  std::string_view TextView(int col) const;
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::optional<int64_t> OptionalInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::optional<std::string> OptionalText(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<std::string>(Text(col));
  }
  const void* Blob(int col) const { return sqlite3_column_blob(stmt_, col); }
  int BlobSize(int col) const { return sqlite3_column_bytes(stmt_, col); }

  void Reset();
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  // Keeps the first failure of a bind.
  Statement& Check(int rc, int index);
  template <typename T>
  Result<T> Finish(T value) {
    Status st = std::move(status_);
    Reset();
    if (!st.ok()) return st;
    return value;
  }

  sqlite3_stmt* stmt_ = nullptr;
  Status status_;
};

// A reader for Statement::All/One: the first column as an integer.
inline int64_t FirstInt(const Statement& row) { return row.Int(0); }

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

// A read transaction: everything read between Begin() and the end of the
// scope is one consistent snapshot (WAL), however many writes land meanwhile.
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Database& db) : db_(db) {}
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;
  Status Begin();

 private:
  Database& db_;
  bool open_ = false;
};

}  // namespace cilia::store
