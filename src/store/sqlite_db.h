// The SQLite backend of store/db.h: one database file, statements prepared
// once per connection and kept by their text.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "store/db.h"

namespace cilia::store {

class SqliteStatement final : public Statement {
 public:
  explicit SqliteStatement(sqlite3_stmt* stmt) : stmt_(stmt) {}

  using Statement::Bind;
  Statement& Bind(int index, int64_t value) override;
  Statement& Bind(int index, double value) override;
  Statement& Bind(int index, std::string_view text) override;
  Statement& BindBlob(int index, const void* data, size_t size) override;
  Statement& BindNull(int index) override;
  bool Step() override;

  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string_view TextView(int col) const override;
  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  const void* Blob(int col) const override { return sqlite3_column_blob(stmt_, col); }
  int BlobSize(int col) const override { return sqlite3_column_bytes(stmt_, col); }

  void Reset() override;
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  // Keeps the first failure of a bind.
  Statement& Check(int rc, int index);

  sqlite3_stmt* stmt_ = nullptr;
};

class SqliteDatabase final : public Database {
 public:
  static Result<std::unique_ptr<SqliteDatabase>> Open(const std::string& path, Options options);
  ~SqliteDatabase() override;

  Dialect dialect() const override { return Dialect::kSqlite; }
  Status Exec(std::string_view sql) override;
  Result<Statement*> Prepare(std::string_view sql) override;
  int64_t Changes() const override { return sqlite3_changes(db_); }
  bool InTransaction() const override { return sqlite3_get_autocommit(db_) == 0; }
  const std::string& path() const override { return path_; }
  Status BeginWrite() override { return Exec("BEGIN IMMEDIATE"); }
  Status BeginRead() override { return Exec("BEGIN"); }
  Status Commit() override { return Exec("COMMIT"); }

  sqlite3* raw() const { return db_; }

 private:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<SqliteStatement>> cache_;
};

}  // namespace cilia::store
