// Makes the namespace's next reads of one table fail, as a database in
// trouble would, while writes still work: the reader connection on top of
// the store's pool (the one the next Read gets) refuses the table until the
// guard goes. For tests of what a caller does when a read fails.
#pragma once

#include <sqlite3.h>

#include <string>

#include "memory/namespace.h"
#include "store/sqlite_db.h"

namespace cilia::testing {

class FailingReads {
 public:
  FailingReads(memory::Namespace& ns, std::string table) : ns_(ns), table_(std::move(table)) { Set(this); }
  ~FailingReads() { Set(nullptr); }
  FailingReads(const FailingReads&) = delete;
  FailingReads& operator=(const FailingReads&) = delete;

 private:
  static int Deny(void* self, int action, const char* table, const char*, const char*, const char*) {
    const auto* reads = static_cast<const FailingReads*>(self);
    return action == SQLITE_READ && table != nullptr && reads->table_ == table ? SQLITE_DENY : SQLITE_OK;
  }
  void Set(FailingReads* self) {
    // Setting an authorizer expires the connection's prepared statements, so
    // cached ones are compiled again and asked.
    auto done = ns_.store().Read([self](store::Database& db) -> Result<bool> {
      sqlite3_set_authorizer(static_cast<store::SqliteDatabase&>(db).raw(), self ? &Deny : nullptr, self);
      return true;
    });
    (void)done;
  }

  memory::Namespace& ns_;
  std::string table_;
};

}  // namespace cilia::testing
