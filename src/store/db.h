// The store's connection seam: a Database runs SQL and hands out cached
// prepared statements, every failure turned into a Status. Two backends
// implement it: SQLite (store/sqlite_db.h, the default: one file per
// namespace) and PostgreSQL (store/postgres_db.h: one schema for all
// namespaces). Repositories write one SQL text for both, with `?`
// placeholders; where the dialects really differ they ask dialect().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/status.h"

namespace cilia::store {

enum class Dialect { kSqlite, kPostgres };

class Statement {
 public:
  virtual ~Statement() = default;

  virtual Statement& Bind(int index, int64_t value) = 0;
  Statement& Bind(int index, int value) { return Bind(index, static_cast<int64_t>(value)); }
  virtual Statement& Bind(int index, double value) = 0;
  virtual Statement& Bind(int index, std::string_view text) = 0;
  Statement& Bind(int index, const char* text) { return Bind(index, std::string_view(text)); }
  Statement& Bind(int index, const std::string& text) { return Bind(index, std::string_view(text)); }
  virtual Statement& BindBlob(int index, const void* data, size_t size) = 0;
  virtual Statement& BindNull(int index) = 0;
  Statement& Bind(int index, const std::optional<int64_t>& value) {
    return value ? Bind(index, *value) : BindNull(index);
  }

  // Steps once: true while a row is available, false when done. Errors (a
  // failed bind included: the statement then never runs) are kept and
  // returned by status().
  virtual bool Step() = 0;
  // Steps to the end, for statements that return no rows.
  Status Run() {
    while (Step()) {
    }
    return status_;
  }
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

  virtual int64_t Int(int col) const = 0;
  virtual double Double(int col) const = 0;
  std::string Text(int col) const { return std::string(TextView(col)); }
  virtual std::string_view TextView(int col) const = 0;
  virtual bool IsNull(int col) const = 0;
  std::optional<int64_t> OptionalInt(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<int64_t>(Int(col));
  }
  std::optional<std::string> OptionalText(int col) const {
    return IsNull(col) ? std::nullopt : std::optional<std::string>(Text(col));
  }
  virtual const void* Blob(int col) const = 0;
  virtual int BlobSize(int col) const = 0;

  // Back to before the first step, bindings cleared.
  virtual void Reset() = 0;

 protected:
  template <typename T>
  Result<T> Finish(T value) {
    Status st = std::move(status_);
    Reset();
    if (!st.ok()) return st;
    return value;
  }

  Status status_;
};

// A reader for Statement::All/One: the first column as an integer.
inline int64_t FirstInt(const Statement& row) { return row.Int(0); }

// One connection. Not thread-safe: one thread uses it at a time.
class Database {
 public:
  struct Options {
    bool read_only = false;
    bool full_sync = false;  // synchronous=FULL instead of NORMAL
  };

  // A SQLite database file (store/sqlite_db.cpp).
  static Result<std::unique_ptr<Database>> Open(const std::string& path, Options options);

  Database() = default;
  virtual ~Database() = default;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  virtual Dialect dialect() const = 0;
  // One or more statements without parameters.
  virtual Status Exec(std::string_view sql) = 0;
  // A cached prepared statement, reset and with bindings cleared. The
  // reference stays valid for the connection's life.
  virtual Result<Statement*> Prepare(std::string_view sql) = 0;
  // Rows the last finished INSERT, UPDATE or DELETE changed.
  virtual int64_t Changes() const = 0;
  virtual bool InTransaction() const = 0;
  // The file, or the PostgreSQL database and namespace, for messages.
  virtual const std::string& path() const = 0;

  // What Transaction and ReadSnapshot run (see there).
  virtual Status BeginWrite() = 0;
  virtual Status BeginRead() = 0;
  virtual Status Commit() = 0;
};

// A write transaction, rolled back unless Commit() succeeded. SQLite: BEGIN
// IMMEDIATE (the database's one writer). PostgreSQL: BEGIN and the
// namespace's advisory lock, so that the writers of one namespace take turns
// across gateways just as SQLite's do (repositories read, then write).
class Transaction {
 public:
  explicit Transaction(Database& db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  Status Begin();
  Status Commit();

 private:
  Database& db_;
  bool open_ = false;
};

// A read transaction: everything read between Begin() and the end of the
// scope is one consistent snapshot (SQLite's WAL, PostgreSQL's REPEATABLE
// READ), however many writes land meanwhile.
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
