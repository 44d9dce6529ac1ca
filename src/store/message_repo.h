// Conversations and messages (L0). Messages are written once and never
// changed; only forget removes them. A message's text is stored once: a
// content that is just the JSON string of its text is written as '' and
// rebuilt on read, byte for byte (0009_one_text.sql).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/archive_records.h"
#include "store/db.h"

namespace cilia::store {

class MessageRepo {
 public:
  explicit MessageRepo(Database& db) : db_(db) {}

  Result<std::optional<ConversationRecord>> FindConversation(std::string_view external_id);
  Result<std::optional<ConversationRecord>> GetConversation(int64_t id);
  Result<ConversationRecord> CreateConversation(std::string_view external_id, std::string_view title,
                                                int64_t created_at);
  Status SaveConversation(const ConversationRecord& c);
  // Conversations by most recent message first; `before_updated`/`before_id`
  // continue a page.
  Result<std::vector<ConversationRecord>> ListConversations(int limit,
                                                            std::optional<std::pair<int64_t, int64_t>> after);
  Result<std::vector<ConversationRecord>> AllConversations();

  Result<std::optional<MessageRecord>> FindByCallerId(int64_t conversation_row, std::string_view caller_id);
  Result<std::optional<MessageRecord>> GetMessage(int64_t id);
  // Inserts and sets m.id.
  Status Insert(MessageRecord& m);
  // Inserts m into conv and counts it there (message count, first and last
  // times); the caller saves conv.
  Status Append(ConversationRecord& conv, MessageRecord& m);
  // Messages of a conversation with seq >= from_seq, in order, at most limit (0: all).
  Result<std::vector<MessageRecord>> MessagesFrom(int64_t conversation_row, int64_t from_seq, int limit = 0);
  // The last `limit` messages of a conversation with seq < before_seq, in order.
  Result<std::vector<MessageRecord>> MessagesBefore(int64_t conversation_row, int64_t before_seq, int limit);
  // The conversation's newest message of role "system" (the client's system
  // prompt as the gateway last stored it), if any.
  Result<std::optional<MessageRecord>> LastSystemMessage(int64_t conversation_row);
  Result<int64_t> CountConversations();
  Result<int64_t> CountMessages();
  // Messages of a conversation with seq >= from_seq.
  Result<int64_t> CountMessagesFrom(int64_t conversation_row, int64_t from_seq);
  // When the newest message was stored; none without messages.
  Result<std::optional<int64_t>> NewestStoredAt();
  // The highest message id (row) there is, 0 for none: every message stored
  // so far has an id up to it, and a later one a higher id (unless the
  // newest were forgotten: SQLite then gives their ids again).
  Result<int64_t> LastMessageId();
  // Messages per quarter hour of their created_at, as (the bucket's first
  // millisecond, count), oldest first: fine enough to count them per local
  // day in any time zone (offsets are whole quarter hours).
  Result<std::vector<std::pair<int64_t, int64_t>>> CountsPerQuarterHour();
  struct ConversationSpan {
    int64_t conversation_row = 0;  // the row id
    int64_t messages = 0;
    int64_t first_seq = 0;
  };
  // The conversations with messages created in [from, to), by their first such message.
  Result<std::vector<ConversationSpan>> ConversationsBetween(int64_t from, int64_t to);

  // Registers a stored file (image bytes under files/<sha256>).
  Status PutFile(std::string_view sha256, std::string_view mime, int64_t size, int64_t at_ms);
  Result<std::vector<FileRecord>> AllFiles();
  // Forget: drops the file's row unless a message still refers to it
  // ("cilia-file:<sha256>" in its content); true when dropped. The bytes
  // under files/ are the caller's to remove.
  Result<bool> DropFileUnlessReferenced(std::string_view sha256);

  Status DeleteMessage(int64_t id);
  Status DeleteConversation(int64_t id);  // the row only; callers delete messages first

 private:
  Database& db_;
};

}  // namespace cilia::store
