// Which stored conversation a chat request continues, when the client sends
// its history but no conversation id (DESIGN.md §6 step 2). Chat clients
// resend the whole history, or only its last messages, on every turn; the
// stored conversation is the one that holds most of them in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"

namespace cilia::memory {

struct ChatHistoryMessage {
  std::string role;  // "user", "assistant" or "tool"
  std::string text;  // the plain text, as ContentText gives it
  // The ids of the tool calls or results it holds (ingest::ContextKey), ""
  // for none: such a message is matched by them as well as by its text,
  // which a tool result lacks and some clients drop beside tool calls.
  std::string context_key;
};

struct ConversationMatch {
  std::string conversation_id;     // the external id
  int64_t conversation_row = 0;    // conversations.id
  int matched = 0;                 // history messages found in the conversation, in order
  int64_t first_matched_seq = -1;  // seq of the stored copy of the first matched history message
  int64_t last_matched_seq = -1;   // seq of the stored copy of the last matched history message
  int last_matched_index = -1;     // index into the history of that message
  // Indexes into the history of the messages after the first matched one
  // that were not found, ascending. Those after last_matched_index are new;
  // those before it were edited by the client, or forgotten here.
  std::vector<size_t> unmatched;
};

// The conversation tagged `client_user` ("" is a tag too) in which the most
// history messages are found in order, as a subsequence of its stored
// messages that may start anywhere: a client that sends only its last
// messages still matches, and a regenerated reply or an edited message in
// between does not break the match. Messages are compared by role and by
// text trimmed of ASCII whitespace at both ends, or by role and context key
// when they hold tool calls or results (either one matching is enough). Ties go to the most recently
// updated conversation. nullopt when the history is empty or no conversation
// holds any of its messages.
//
// Looks up a few history messages (the first and the last non-empty ones)
// through an index, then reads only the stretch of each candidate that can
// hold the history: cheap enough for every turn.
Result<std::optional<ConversationMatch>> FindContinuedConversation(Namespace& ns, std::string_view client_user,
                                                                   const std::vector<ChatHistoryMessage>& history);

// Tags a conversation as belonging to `client_user`, so that later requests
// of that user can continue it. The gateway calls it when it creates one.
Status TagConversationUser(Namespace& ns, int64_t conversation_row, std::string_view client_user);

}  // namespace cilia::memory
