// The compression cycle's summaries: when a conversation's history grows past
// the threshold, its older part is summarised and the summary is sent (the
// BP3 block) in place of those messages. Derived data: the messages stay in
// L0, and forgetting a message drops every summary that covers it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

struct ConversationSummary {
  int64_t id = 0;
  int64_t conversation_row = 0;  // cilia's row id (conversations.id)
  int64_t through_seq = 0;      // the summary covers messages with seq < through_seq
  std::string text;
  std::string model;  // "<provider>/<id>" that wrote it
  UnixMs created_at = 0;
  // Where the raw part of the history begins: the key (gateway MessageKey)
  // of the first message sent as it is after the summary.
  std::string kept_from_key;
};

class SummaryRepo {
 public:
  explicit SummaryRepo(Database& db) : db_(db) {}

  // The summary that covers the most of the conversation (the newest of
  // those, when two cover as much), or nullopt.
  Result<std::optional<ConversationSummary>> Latest(int64_t conversation_row);
  // Stores s (its id is ignored) and returns the new id.
  Result<int64_t> Add(const ConversationSummary& s);
  // Drops the summaries that cover message `seq` (through_seq > seq).
  Status ForgetFrom(int64_t conversation_row, int64_t seq);
  Status ForgetConversation(int64_t conversation_row);

 private:
  Database& db_;
};

}  // namespace cilia::store
