#include "store/migrations.h"

#include <fmt/format.h>

namespace cilia::store {

int LatestSchemaVersion() {
  int latest = 0;
  for (int i = 0; i < kMigrationCount; ++i) latest = std::max(latest, kMigrations[i].version);
  return latest;
}

Status Migrate(Database& db) {
  CILIA_ASSIGN_OR_RETURN(Statement * get, db.Prepare("PRAGMA user_version"));
  CILIA_ASSIGN_OR_RETURN(const int64_t current, get->OneInt());
  if (current > LatestSchemaVersion()) {
    return Status::InvalidArgument(fmt::format(
        "{} has schema version {}, newer than this cilia ({}); upgrade cilia", db.path(), current,
        LatestSchemaVersion()));
  }
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

}  // namespace cilia::store
