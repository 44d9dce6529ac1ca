// The L0 archive: storing messages verbatim, windowing and indexing them,
// and forgetting them with everything derived from them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ingest/ingest_request.h"
#include "memory/namespace.h"
#include "memory/public_id.h"
#include "store/archive_records.h"
#include "store/db.h"
#include "store/message_repo.h"

namespace cilia::memory {

struct IngestOutcome {
  int64_t conversation_row = 0;  // cilia's row id
  int stored = 0;
  int duplicates = 0;
};

class Archive {
 public:
  explicit Archive(Namespace& ns) : ns_(ns) {}

  // Stores the messages in one transaction, committed before this returns:
  // a caller id seen before with the same content is a duplicate; with other
  // content the whole request is a Conflict naming the id and nothing is
  // stored. Image data URLs are written to files/ first and referenced.
  Result<IngestOutcome> Store(const ingest::IngestConversation& conversation);
  // The same for several conversations in one transaction: all or nothing.
  Result<std::vector<IngestOutcome>> StoreAll(const std::vector<ingest::IngestConversation>& conversations);

  // Windows and indexes the conversation's messages not yet windowed: only
  // the tail from the last window on is re-windowed.
  Status IndexConversation(int64_t conversation_row);
  // Store, then IndexConversation, in one transaction: a request costs one
  // commit instead of two, and what it stored is searchable when this
  // returns. All or nothing, with Store's duplicate and Conflict rules; a
  // remote embedder's vectors still follow after the commit.
  Result<IngestOutcome> StoreAndIndex(const ingest::IngestConversation& conversation);
  // Indexes every conversation with unwindowed messages (after a restart).
  Status IndexPending();

  // Forget: the message (by caller id, or m_<id>) or the whole conversation,
  // with its windows, index entries and vectors, the images no other message
  // shows (row and bytes) and the logged recall queries that found it; the
  // full-text indexes are rewritten and the WAL truncated so the words leave
  // the files too.
  Status ForgetMessage(const std::string& conversation_id, const std::string& message_id);
  Status ForgetConversation(const std::string& conversation_id);

  // Drops and rebuilds every window of every conversation (derived data only).
  Status Reindex();

  // Conversations by last update, newest first; `after` is the (updated_at,
  // row id) of the last one of the page before.
  Result<std::vector<store::ConversationRecord>> Conversations(int limit,
                                                               std::optional<std::pair<int64_t, int64_t>> after);
  // Which page of a conversation's messages to read: from seq `from` on
  // (the default), the page ending just before seq `before` (INT64_MAX: the
  // last page), or the page with message `around` (its caller or m_ id) in
  // its middle.
  struct PageRequest {
    int64_t from = 0;
    std::optional<int64_t> before;
    std::string around;
    int limit = 100;
  };
  struct Page {
    std::vector<store::MessageRecord> messages;
    std::optional<int64_t> next_cursor;  // seq the next page starts at, when there is one
    std::optional<int64_t> prev_cursor;  // seq this page starts at, when earlier messages exist
  };
  // NotFound when there is no such conversation, or no such `around` message.
  Result<Page> Messages(const std::string& conversation_id, const PageRequest& request);

 private:
  // What re-windowing a conversation's tail changed, for the caches once
  // it is committed; `vectors` are those of `added` (local embedder only).
  struct TailChange {
    std::vector<int64_t> removed;
    std::vector<store::WindowRecord> added;
    std::vector<std::vector<float>> vectors;
  };

  Result<IngestOutcome> StoreOne(store::Database& db, const ingest::IngestConversation& conversation, int64_t now);
  // Inside the caller's transaction: re-windows the messages not yet
  // windowed and, with a local embedder, writes the new windows' vectors.
  Status WindowTail(store::Database& db, int64_t conversation_row, TailChange& change);
  // After the commit: the in-memory indexes, and a remote embedder's vectors.
  Status Publish(const TailChange& change);
  Status ReplaceWindowsFrom(store::Database& db, int64_t conversation_row, int64_t from_seq, int64_t from_segment,
                            std::vector<int64_t>& removed, std::vector<store::WindowRecord>& added);
  void ApplyToCaches(const std::vector<int64_t>& removed, const std::vector<store::WindowRecord>& added);
  Status EmbedWindows(const std::vector<store::WindowRecord>& windows);
  Result<std::vector<std::vector<float>>> EmbedBodies(const std::vector<store::WindowRecord>& windows) const;
  Status Purge();

  Namespace& ns_;
};

// The caller's id, or "m_<id>" (memory/public_id.h) for a message stored without one.
std::string MessagePublicId(const store::MessageRecord& m);
// The message of the conversation (a row id) that a public id names: the one
// with that caller id, else, for "m_<id>", that row when it has no caller id.
Result<std::optional<store::MessageRecord>> FindByPublicId(store::MessageRepo& repo, int64_t conversation_row,
                                                           std::string_view public_id);

}  // namespace cilia::memory
