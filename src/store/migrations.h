// Numbered schema migrations, compiled into the binary from
// src/store/migrations/NNNN_name.sql and, for PostgreSQL, the same numbers in
// src/store/migrations/postgres/ (see cmake/embed.cmake).
#pragma once

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

extern const Migration kMigrations[];
extern const int kMigrationCount;
extern const Migration kPostgresMigrations[];
extern const int kPostgresMigrationCount;

// Applies every migration newer than the database's schema version (SQLite's
// user_version; PostgreSQL's schema_version table, under an advisory lock so
// that gateways starting together migrate once), each in its own
// transaction. A database newer than this binary is refused.
Status Migrate(Database& db);

int LatestSchemaVersion();

}  // namespace cilia::store
