// The change log of a namespace (PostgreSQL only, migration postgres/0013):
// a row per write to what the in-memory indexes are made of, appended by
// triggers, so that a gateway can re-read the rows that other gateways
// changed (memory::Namespace::CatchUp). A change names the row, not what
// became of it: the reader looks the row up and finds it there or gone.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

// How long the log keeps a change (retention trims older ones): a gateway
// that has not read it for half of that reloads a namespace instead.
inline constexpr int64_t kChangeLogKeepMs = 3'600'000;

enum class ChangeKind { kWindow, kWindowVector, kConversation, kExcerpt, kExcerptVector };

struct Change {
  int64_t seq = 0;
  ChangeKind kind = ChangeKind::kWindow;
  int64_t row = 0;     // the window, conversation or excerpt id
  std::string writer;  // the writing pool (PostgresPool::writer)
};

class ChangeLogRepo {
 public:
  explicit ChangeLogRepo(Database& db) : db_(db) {}

  // The newest seq (0: none), where a reader that has just loaded the
  // indexes starts.
  Result<int64_t> Newest();
  // Up to `limit` changes after `seq`, oldest first, those of `writer` left
  // out (its own, which it applied as it wrote them); the seq returned is the
  // last one read, left out or not, or `seq` when there were none.
  struct Page {
    std::vector<Change> changes;
    int64_t last_seq = 0;
    bool more = false;  // `limit` rows were read: ask again
  };
  Result<Page> After(int64_t seq, std::string_view writer, int limit);
  // Deletes changes older than `before_ms`; how many.
  Result<int64_t> TrimBefore(int64_t before_ms);

 private:
  Database& db_;
};

}  // namespace cilia::store
