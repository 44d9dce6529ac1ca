// How a chat turn finds its conversation (DESIGN.md §6 step 2): by the
// X-Cilia-Conversation header, else by the history the client sends, else a
// new one; what of the request the archive has not seen yet (tool calls and
// results too, and the system prompt when it changed: docs/gateway.md "What
// the archive keeps"); and storing it.
//
// A failed read is Busy: a conversation that could not be read is never
// taken for one that does not exist, which would start a second copy of it
// (the chat service then answers the turn without memory).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"
#include "gateway/chat_request.h"
#include "ingest/ingest_request.h"
#include "llm/chat_format.h"
#include "memory/namespace.h"
#include "memory/recall/recall.h"

namespace cilia::gateway {

// Where the turn lives in the archive.
struct TurnIdentity {
  std::string conversation_id;   // the external id
  int64_t conversation_row = 0;  // 0 until a new conversation is stored
  int64_t reply_anchor = -1;     // seq the stored answer follows
  int64_t visible_from_seq = 0;  // stored messages from here on are in what the client sends
  UnixMs visible_from_ms = 0;    // ... and the time of the first of them

  // Whether a recall result is text the client sends in this very request.
  bool ClientSends(const memory::RecallResult& r) const {
    return r.conversation_id == conversation_id && r.created_at >= visible_from_ms;
  }
};

// What a turn adds to the archive, decided before anything is written.
struct TurnStorage {
  // The client's system prompt when it changed, the missing history
  // messages, then the new user message.
  ingest::IngestConversation ingest;
  // The id of the message the answer follows: the new user message, else
  // the last history message added (a tool result a client returns); ""
  // when none. A retry then finds the same anchor in what it matched.
  std::string anchor_id;
  bool created = false;  // the conversation is new: tag it with the client's user
};

struct FoundConversation {
  TurnIdentity identity;
  TurnStorage storage;
};

// The conversation `client` continues (`header`: X-Cilia-Conversation, ""
// when absent) at time `now`, and what of it to store.
Result<FoundConversation> FindTurnConversation(memory::Namespace& ns, const ClientTurn& client, std::string_view header,
                                               UnixMs now);

// Stores `storage` (nothing when it is empty) and returns `known` with the
// conversation's row and the seq the answer follows.
Result<TurnIdentity> StoreTurn(memory::Namespace& ns, const TurnStorage& storage, std::string_view client_user,
                               TurnIdentity known);

// The answer to store after the turn: its text, then its tool calls except
// those to `own_tool` (cilia's recall, run in process: "" when not offered),
// with an id that makes a retried turn store nothing twice. No message when
// the answer has neither.
ingest::IngestConversation AnswerStorage(const TurnIdentity& identity, const llm::AssistantTurn& answer,
                                         std::string_view own_tool);

}  // namespace cilia::gateway
