#include "store/postgres_db.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace cilia::store {

namespace {

// Two-key advisory locks live apart from the one-key ones (migrations.cpp);
// this first key ("cili") marks a namespace's writer lock.
constexpr const char* kBeginWrite =
    "BEGIN; SELECT pg_advisory_xact_lock(1667853417, hashtext(current_setting('cilia.ns')))";

bool StartsWithWord(std::string_view sql, size_t at, std::string_view word) {
  if (at > 0 && (std::isalnum(static_cast<unsigned char>(sql[at - 1])) || sql[at - 1] == '_')) return false;
  if (sql.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(sql[at + i])) != word[i]) return false;
  }
  return true;
}

std::string Trimmed(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 0;
}

}  // namespace

std::string PostgresSql(std::string_view sql, int* params) {
  std::string out;
  out.reserve(sql.size() + 16);
  int highest = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (c == '\'' || c == '"') {  // a literal or quoted name, doubled quotes inside
      size_t end = i + 1;
      while (end < sql.size()) {
        if (sql[end] == c) {
          if (end + 1 < sql.size() && sql[end + 1] == c) {
            end += 2;
            continue;
          }
          break;
        }
        ++end;
      }
      out.append(sql.substr(i, end + 1 - i));
      i = end;
      continue;
    }
    if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      const size_t end = std::min(sql.find('\n', i), sql.size());
      out.append(sql.substr(i, end - i));
      i = end - 1;
      continue;
    }
    if (c == '?') {
      size_t j = i + 1;
      int n = 0;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) n = n * 10 + (sql[j++] - '0');
      if (j == i + 1) n = highest + 1;  // a bare `?` is the one after the highest so far, as in SQLite
      highest = std::max(highest, n);
      out += fmt::format("${}", n);
      i = j - 1;
      continue;
    }
    if ((c == 'O' || c == 'o') && StartsWithWord(sql, i, "ON CONFLICT")) {
      size_t j = i + 11;
      while (j < sql.size() && std::isspace(static_cast<unsigned char>(sql[j]))) ++j;
      if (j < sql.size() && sql[j] == '(') {
        out.append(sql.substr(i, j + 1 - i));
        out += "ns, ";
        i = j;
        continue;
      }
    }
    out += c;
  }
  if (params) *params = highest;
  return out;
}

Status PostgresStatus(const PGconn* conn, const PGresult* result, std::string_view context) {
  const char* field = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = field ? field : "";
  std::string message = Trimmed(result ? PQresultErrorMessage(result) : PQerrorMessage(conn));
  if (message.empty()) message = Trimmed(PQerrorMessage(conn));
  std::string text = fmt::format("{}: {}{}", context, state.empty() ? "" : state + " ", message);
  const auto cls = std::string_view(state).substr(0, 2);
  if (PQstatus(conn) == CONNECTION_BAD || cls == "08" || state == "57P01" || state == "57P02" || state == "57P03") {
    return Status::Busy("postgresql unreachable: " + text);
  }
  if (cls == "23") return Status::Conflict(std::move(text));
  if (state == "42501") return Status::PermissionDenied(std::move(text));  // row-level security included
  if (state == "40001" || state == "40P01" || state == "57014" || state == "55P03") return Status::Busy(std::move(text));
  if (state == "53100") return Status::DiskFull(text + "; free some space and send it again");
  return Status::IOError(std::move(text));
}

PostgresStatement::PostgresStatement(PostgresDatabase& db, std::string name, std::string sql, int params)
    : db_(db), name_(std::move(name)), sql_(std::move(sql)), params_(static_cast<size_t>(params)) {}

PostgresStatement::~PostgresStatement() { PQclear(result_); }

PostgresStatement::Param* PostgresStatement::Slot(int index) {
  if (index < 1 || index > static_cast<int>(params_.size())) {
    if (status_.ok()) {
      status_ = Status::IOError(fmt::format("bind parameter {}: out of range (the statement has {})", index,
                                            params_.size()));
    }
    return nullptr;
  }
  Param& p = params_[static_cast<size_t>(index - 1)];
  p.null = false;
  p.binary = false;
  return &p;
}

Statement& PostgresStatement::Bind(int index, int64_t value) {
  if (Param* p = Slot(index)) p->value = fmt::format("{}", value);
  return *this;
}

Statement& PostgresStatement::Bind(int index, double value) {
  if (Param* p = Slot(index)) p->value = fmt::format("{}", value);  // shortest text that reads back the same
  return *this;
}

Statement& PostgresStatement::Bind(int index, std::string_view text) {
  if (Param* p = Slot(index)) p->value.assign(text);
  return *this;
}

Statement& PostgresStatement::BindBlob(int index, const void* data, size_t size) {
  if (Param* p = Slot(index)) {
    p->value.assign(static_cast<const char*>(data), size);
    p->binary = true;
  }
  return *this;
}

Statement& PostgresStatement::BindNull(int index) {
  if (Param* p = Slot(index)) p->null = true;
  return *this;
}

bool PostgresStatement::Step() {
  if (!status_.ok()) return false;
  if (!ran_) {
    ran_ = true;
    const size_t n = params_.size();
    std::vector<const char*> values(n);
    std::vector<int> lengths(n), formats(n);
    for (size_t i = 0; i < n; ++i) {
      values[i] = params_[i].null ? nullptr : params_[i].value.c_str();
      lengths[i] = static_cast<int>(params_[i].value.size());
      formats[i] = params_[i].binary ? 1 : 0;
    }
    result_ = PQexecPrepared(db_.conn_, name_.c_str(), static_cast<int>(n), values.data(), lengths.data(),
                             formats.data(), 0);
    Status st = db_.Check(result_, std::string_view(sql_).substr(0, 60));
    if (!st.ok()) {
      status_ = std::move(st);
      return false;
    }
    rows_ = PQntuples(result_);
    row_ = -1;
  }
  if (row_ + 1 < rows_) {
    ++row_;
    return true;
  }
  return false;
}

int64_t PostgresStatement::Int(int col) const {
  const char* v = PQgetvalue(result_, row_, col);
  if (v[0] == 't' && v[1] == '\0') return 1;  // a boolean, as SQLite's comparisons give 1 and 0
  if (v[0] == 'f' && v[1] == '\0') return 0;
  return std::strtoll(v, nullptr, 10);
}

double PostgresStatement::Double(int col) const { return std::strtod(PQgetvalue(result_, row_, col), nullptr); }

std::string_view PostgresStatement::TextView(int col) const {
  return {PQgetvalue(result_, row_, col), static_cast<size_t>(PQgetlength(result_, row_, col))};
}

const std::string& PostgresStatement::Decoded(int col) const {
  if (decoded_col_ != col || decoded_row_ != row_) {
    std::string_view hex = TextView(col);
    decoded_.clear();
    if (hex.size() >= 2 && hex[0] == '\\' && hex[1] == 'x') {
      decoded_.reserve((hex.size() - 2) / 2);
      for (size_t i = 2; i + 1 < hex.size(); i += 2) {
        decoded_ += static_cast<char>(HexValue(hex[i]) << 4 | HexValue(hex[i + 1]));
      }
    } else {
      decoded_.assign(hex);  // not bytea: its text, as SQLite gives a text column's bytes
    }
    decoded_col_ = col;
    decoded_row_ = row_;
  }
  return decoded_;
}

const void* PostgresStatement::Blob(int col) const { return Decoded(col).data(); }

int PostgresStatement::BlobSize(int col) const { return static_cast<int>(Decoded(col).size()); }

void PostgresStatement::Reset() {
  PQclear(result_);
  result_ = nullptr;
  ran_ = false;
  row_ = -1;
  rows_ = 0;
  decoded_col_ = decoded_row_ = -1;
  for (Param& p : params_) {
    p.null = true;
    p.binary = false;
    p.value.clear();
  }
  status_ = Status::Ok();
}

Result<std::unique_ptr<PostgresDatabase>> PostgresDatabase::Open(const std::string& url, std::string_view ns,
                                                                 Options options) {
  PGconn* conn = PQconnectdb(url.c_str());
  if (conn == nullptr) return Status::Busy("connect to postgresql: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    Status st = Status::Busy("postgresql unreachable: " + Trimmed(PQerrorMessage(conn)));
    PQfinish(conn);
    return st;
  }
  // Notices ("extension already exists, skipping") are not errors; without
  // this libpq prints them on stderr.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  std::unique_ptr<PostgresDatabase> db(new PostgresDatabase(conn));
  db->label_ = fmt::format("postgresql database {}", PQdb(conn));
  {
    PGresult* role = PQexec(conn, "SELECT current_user, rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user");
    Status st = db->Check(role, "read the role");
    const bool bypasses = st.ok() && PQntuples(role) == 1 && PQgetvalue(role, 0, 1)[0] == 't';
    const std::string name = st.ok() && PQntuples(role) == 1 ? PQgetvalue(role, 0, 0) : "";
    PQclear(role);
    CILIA_RETURN_IF_ERROR(st);
    if (bypasses) {
      return Status::InvalidArgument(fmt::format(
          "postgresql role \"{}\" is a superuser or has BYPASSRLS: row-level security, which keeps namespaces "
          "apart, would not apply to it; connect as an ordinary role (docs/scaling.md)",
          name));
    }
  }
  CILIA_RETURN_IF_ERROR(db->Exec(fmt::format("SET statement_timeout = {}; SET client_encoding = 'UTF8'",
                                             options.statement_timeout_ms)));
  {
    const char* values[] = {options.writer.c_str()};
    PGresult* set = PQexecParams(conn, "SELECT set_config('cilia.writer', $1, false)", 1, nullptr, values, nullptr,
                                 nullptr, 0);
    Status st = db->Check(set, "set the writer");
    PQclear(set);
    CILIA_RETURN_IF_ERROR(st);
  }
  CILIA_RETURN_IF_ERROR(db->UseNamespace(ns));
  return db;
}

PostgresDatabase::~PostgresDatabase() {
  cache_.clear();
  PQfinish(conn_);
}

Status PostgresDatabase::Check(PGresult* result, std::string_view context) {
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) return PostgresStatus(conn_, result, context);
  const char* command = PQcmdStatus(result);
  if (std::strncmp(command, "INSERT", 6) == 0 || std::strncmp(command, "UPDATE", 6) == 0 ||
      std::strncmp(command, "DELETE", 6) == 0) {
    changes_ = std::strtoll(PQcmdTuples(result), nullptr, 10);
  }
  return Status::Ok();
}

Status PostgresDatabase::Exec(std::string_view sql) {
  const std::string owned(sql);
  PGresult* result = PQexec(conn_, owned.c_str());
  Status st = Check(result, owned.substr(0, 80));
  PQclear(result);
  return st;
}

Result<Statement*> PostgresDatabase::Prepare(std::string_view sql) {
  std::string key(sql);
  auto it = cache_.find(key);
  if (it != cache_.end()) {
    it->second->Reset();
    return it->second.get();
  }
  int params = 0;
  const std::string text = PostgresSql(sql, &params);
  std::string name = fmt::format("s{}", ++next_name_);
  PGresult* result = PQprepare(conn_, name.c_str(), text.c_str(), 0, nullptr);
  Status st = Check(result, "prepare " + key.substr(0, 80));
  PQclear(result);
  CILIA_RETURN_IF_ERROR(st);
  auto owned = std::make_unique<PostgresStatement>(*this, std::move(name), key, params);
  Statement* raw = owned.get();
  cache_.emplace(std::move(key), std::move(owned));
  return raw;
}

bool PostgresDatabase::InTransaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }

Status PostgresDatabase::BeginWrite() { return Exec(kBeginWrite); }

Status PostgresDatabase::BeginRead() { return Exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"); }

Status PostgresDatabase::Commit() {
  PGresult* result = PQexec(conn_, "COMMIT");
  Status st = Check(result, "commit");
  // COMMIT of a transaction a failed statement ended rolls back instead.
  if (st.ok() && std::strcmp(PQcmdStatus(result), "ROLLBACK") == 0) {
    st = Status::IOError("commit: the transaction had failed and was rolled back");
  }
  PQclear(result);
  return st;
}

Status PostgresDatabase::UseNamespace(std::string_view ns) {
  const std::string value(ns);
  const char* values[] = {value.c_str()};
  PGresult* result =
      PQexecParams(conn_, "SELECT set_config('cilia.ns', $1, false)", 1, nullptr, values, nullptr, nullptr, 0);
  Status st = Check(result, "set the namespace");
  PQclear(result);
  CILIA_RETURN_IF_ERROR(st);
  ns_ = value;
  label_ = fmt::format("postgresql database {} namespace {}", PQdb(conn_), ns_);
  return Status::Ok();
}

}  // namespace cilia::store
