// The reads and small writes a chat turn makes besides storing messages:
// a conversation by its id or row, one of its messages, its running summary,
// the L2 profile and the turn log. The gateway goes through these instead of
// the store's repositories. A read that fails is an error, never "absent":
// taking a busy database for a missing conversation would start a second
// copy of it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"
#include "store/archive_records.h"
#include "store/profile_repo.h"
#include "store/summary_repo.h"
#include "store/turn_repo.h"

namespace cilia::memory {

Result<std::optional<store::ConversationRecord>> FindConversation(Namespace& ns, std::string_view external_id);
Result<std::optional<store::ConversationRecord>> ConversationByRow(Namespace& ns, int64_t conversation_row);
// The first stored message of the conversation with seq >= from_seq.
Result<std::optional<store::MessageRecord>> FirstMessageFrom(Namespace& ns, int64_t conversation_row, int64_t from_seq);
// Every stored message of the conversation, in order; empty when there is no such conversation.
Result<std::vector<store::MessageRecord>> ConversationMessages(Namespace& ns, std::string_view external_id);
Result<std::optional<store::MessageRecord>> MessageByCallerId(Namespace& ns, int64_t conversation_row,
                                                              std::string_view caller_id);

// The conversation's newest system message: the system prompt the gateway
// stored last, which a turn compares its client's with.
Result<std::optional<store::MessageRecord>> LastSystemMessage(Namespace& ns, int64_t conversation_row);
// The newest summary of the conversation, if any.
Result<std::optional<store::ConversationSummary>> LatestSummary(Namespace& ns, int64_t conversation_row);
// Adds `summary` as covering the conversation as stored now (through_seq is
// set here, in the same transaction), so that forgetting any message it
// covered drops it too.
Result<int64_t> AddSummary(Namespace& ns, store::ConversationSummary summary);

Result<std::vector<store::ProfileDocument>> ProfileDocuments(Namespace& ns);

// Appends one chat turn to the turn log (usage, timings, what was injected).
Status RecordTurn(Namespace& ns, const store::TurnRecord& record);

}  // namespace cilia::memory
