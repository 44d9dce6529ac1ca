#include "store/migrations.h"

#include <fmt/format.h>

namespace cilia::store {

namespace {

// The one-key advisory lock of migrations ("cilimigr").
constexpr const char* kMigrationLock = "7163375882372474738";

Status Refuse(const Database& db, int64_t current) {
  return Status::InvalidArgument(fmt::format("{} has schema version {}, newer than this cilia ({}); upgrade cilia",
                                             db.path(), current, LatestSchemaVersion()));
}

Status MigrateSqlite(Database& db) {
  CILIA_ASSIGN_OR_RETURN(Statement * get, db.Prepare("PRAGMA user_version"));
  CILIA_ASSIGN_OR_RETURN(const int64_t current, get->OneInt());
  if (current > LatestSchemaVersion()) return Refuse(db, current);
  for (int i = 0; i < kMigrationCount; ++i) {
    const Migration& m = kMigrations[i];
    if (m.version <= current) continue;
    Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_RETURN_IF_ERROR(db.Exec(m.sql).With(fmt::format("migration {}", m.name)));
    CILIA_RETURN_IF_ERROR(db.Exec(fmt::format("PRAGMA user_version={}", m.version)));
    CILIA_RETURN_IF_ERROR(tx.Commit());
  }
  return Status::Ok();
}

Status MigratePostgresLocked(Database& db) {
  // One row for the whole database: the schema is the same for every namespace.
  CILIA_RETURN_IF_ERROR(db.Exec("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL)"));
  CILIA_ASSIGN_OR_RETURN(Statement * get, db.Prepare("SELECT max(version) FROM schema_version"));
  CILIA_ASSIGN_OR_RETURN(const int64_t current, get->OneInt());
  if (current > LatestSchemaVersion()) return Refuse(db, current);
  for (int i = 0; i < kPostgresMigrationCount; ++i) {
    const Migration& m = kPostgresMigrations[i];
    if (m.version <= current) continue;
    CILIA_RETURN_IF_ERROR(db.Exec("BEGIN"));
    Status st = db.Exec(m.sql).With(fmt::format("migration postgres/{}", m.name));
    if (st.ok()) st = db.Exec(fmt::format("DELETE FROM schema_version; INSERT INTO schema_version VALUES ({})", m.version));
    if (st.ok()) st = db.Commit();
    if (!st.ok()) {
      (void)db.Exec("ROLLBACK");
      return st;
    }
  }
  return Status::Ok();
}

Status MigratePostgres(Database& db) {
  CILIA_RETURN_IF_ERROR(db.Exec(fmt::format("SELECT pg_advisory_lock({})", kMigrationLock)));
  Status st = MigratePostgresLocked(db);
  Status unlocked = db.Exec(fmt::format("SELECT pg_advisory_unlock({})", kMigrationLock));
  return st.ok() ? unlocked : st;
}

}  // namespace

int LatestSchemaVersion() {
  int latest = 0;
  for (int i = 0; i < kMigrationCount; ++i) latest = std::max(latest, kMigrations[i].version);
  return latest;
}

Status Migrate(Database& db) {
  return db.dialect() == Dialect::kPostgres ? MigratePostgres(db) : MigrateSqlite(db);
}

}  // namespace cilia::store
