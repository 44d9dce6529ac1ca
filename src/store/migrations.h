// Numbered schema migrations, compiled into the binary from
// src/store/migrations/NNNN_name.sql (see cmake/gen_migrations.cmake).
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

// Applies every migration newer than the database's user_version, each in
// its own transaction. A database newer than this binary is refused.
Status Migrate(Database& db);

int LatestSchemaVersion();

}  // namespace cilia::store
