// The PostgreSQL backend of store/db.h, over libpq: one schema for all
// namespaces, each table's rows told apart by a leading `ns` column that
// row-level security filters by the connection's `cilia.ns` setting
// (docs/scaling.md). Repositories write SQLite's text; PostgresSql() turns
// it into PostgreSQL's.
#pragma once

#include <libpq-fe.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "store/db.h"

namespace cilia::store {

// The statement text PostgreSQL runs for one written for both backends:
// `?` and `?N` placeholders become `$n` (outside string literals, quoted
// names and comments), and every `ON CONFLICT (` target gets `ns, ` first,
// since every unique key leads with the namespace. `params` is set to the
// number of parameters.
std::string PostgresSql(std::string_view sql, int* params);

// A libpq error as a Status: the SQLSTATE and message, with `context`.
// A lost or refused connection is Busy ("postgresql unreachable": the store
// cannot serve now, 503; not Unavailable, which is an upstream model's 502
// and retried as one), a constraint or row-level security violation Conflict
// or PermissionDenied, a serialisation failure, deadlock or statement
// timeout Busy.
Status PostgresStatus(const PGconn* conn, const PGresult* result, std::string_view context);

class PostgresDatabase;

class PostgresStatement final : public Statement {
 public:
  PostgresStatement(PostgresDatabase& db, std::string name, std::string sql, int params);
  ~PostgresStatement() override;

  using Statement::Bind;
  Statement& Bind(int index, int64_t value) override;
  Statement& Bind(int index, double value) override;
  Statement& Bind(int index, std::string_view text) override;
  Statement& BindBlob(int index, const void* data, size_t size) override;
  Statement& BindNull(int index) override;
  bool Step() override;

  int64_t Int(int col) const override;
  double Double(int col) const override;
  std::string_view TextView(int col) const override;
  bool IsNull(int col) const override { return PQgetisnull(result_, row_, col) != 0; }
  const void* Blob(int col) const override;
  int BlobSize(int col) const override;

  void Reset() override;

 private:
  // The slot for parameter `index` (1-based), or null after recording why not.
  struct Param {
    std::string value;
    bool null = true;
    bool binary = false;
  };
  Param* Slot(int index);
  const std::string& Decoded(int col) const;

  PostgresDatabase& db_;
  std::string name_;
  std::string sql_;
  std::vector<Param> params_;
  PGresult* result_ = nullptr;
  bool ran_ = false;
  int row_ = -1;
  int rows_ = 0;
  // bytea arrives hex-encoded: the last column decoded, per row.
  mutable int decoded_col_ = -1;
  mutable int decoded_row_ = -1;
  mutable std::string decoded_;
};

class PostgresDatabase final : public Database {
 public:
  struct Options {
    int statement_timeout_ms = 30'000;
    // Who writes, as the change log records it (cilia.writer): a gateway's
    // pool, so that it can skip its own changes (store/change_log_repo.h).
    std::string writer;
  };
  // Connects to `url` (a libpq connection string or postgresql:// URL) and
  // enters namespace `ns`. Refuses a superuser or BYPASSRLS role: row-level
  // security, which keeps namespaces apart, does not apply to them.
  static Result<std::unique_ptr<PostgresDatabase>> Open(const std::string& url, std::string_view ns,
                                                        Options options);
  static Result<std::unique_ptr<PostgresDatabase>> Open(const std::string& url, std::string_view ns) {
    return Open(url, ns, Options{});
  }
  ~PostgresDatabase() override;

  Dialect dialect() const override { return Dialect::kPostgres; }
  Status Exec(std::string_view sql) override;
  Result<Statement*> Prepare(std::string_view sql) override;
  int64_t Changes() const override { return changes_; }
  bool InTransaction() const override;
  const std::string& path() const override { return label_; }
  Status BeginWrite() override;
  Status BeginRead() override;
  Status Commit() override;

  // Makes the connection act for namespace `ns` (what its rows default to
  // and what row-level security shows). Always one round trip, so that a
  // pool's lease finds a connection that broke while idle.
  Status UseNamespace(std::string_view ns);
  const std::string& ns() const { return ns_; }

  PGconn* raw() const { return conn_; }

 private:
  friend class PostgresStatement;
  explicit PostgresDatabase(PGconn* conn) : conn_(conn) {}
  // A result of the connection as a Status (and the changed rows counted).
  Status Check(PGresult* result, std::string_view context);

  PGconn* conn_;
  std::string ns_;
  std::string label_;
  int64_t changes_ = 0;
  int next_name_ = 0;
  std::unordered_map<std::string, std::unique_ptr<PostgresStatement>> cache_;
};

}  // namespace cilia::store
