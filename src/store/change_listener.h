// A connection of its own that LISTENs on the change log's channel
// (`cilia_changes`, migration postgres/0013): at the commit of a write to
// what the in-memory indexes are made of, PostgreSQL notifies it with the
// namespace, so that a gateway re-reads another's writes within moments
// rather than at its next poll (memory/registry.h's change feed).
#pragma once

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include "core/status.h"
#include "store/postgres_db.h"

namespace cilia::store {

inline constexpr char kChangeChannel[] = "cilia_changes";

class ChangeListener {
 public:
  // Takes a connection (PostgresPool::OpenListener) and LISTENs on it.
  static Result<std::unique_ptr<ChangeListener>> Start(std::unique_ptr<PostgresDatabase> db);

  // The namespaces notified within `timeout` (none when it passed quietly);
  // returns as soon as one notification is in. An error is a lost
  // connection: open a new listener.
  Result<std::set<std::string>> Wait(std::chrono::milliseconds timeout);

 private:
  explicit ChangeListener(std::unique_ptr<PostgresDatabase> db) : db_(std::move(db)) {}
  std::set<std::string> Drain();

  std::unique_ptr<PostgresDatabase> db_;
};

}  // namespace cilia::store
