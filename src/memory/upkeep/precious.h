// Pinning a precious passage (POST /v1/precious, MCP memory_pin): the words
// must be verbatim from the cited messages. Append-only: there is no edit.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"
#include "store/precious_repo.h"

namespace cilia::memory {

struct PinRequest {
  std::string conversation_id;           // external id
  std::vector<std::string> message_ids;  // public ids, in the conversation's order or not
  std::string content;                   // "": the cited messages' texts, joined by blank lines
  store::Author author = store::Author::kOwner;  // the owner or an agent
};

// Checks and stores the passage. NotFound for a conversation or message that
// does not exist; InvalidArgument when no message is cited, the author is
// unknown, or the content (compared with whitespace removed) is not found in
// the cited messages' texts joined in their order; TooLarge past
// store::kMaxPreciousBytes.
Result<store::PreciousPassage> Pin(Namespace& ns, const PinRequest& request, UnixMs now);

// Every pinned passage, oldest first.
Result<std::vector<store::PreciousPassage>> ListPrecious(Namespace& ns);

// A passage as the prompt's cached prefix shows it, dated by the first message
// it cites: when the words were said, which is what the model can use.
struct PassageInPrompt {
  store::PreciousPassage passage;
  UnixMs said_at = 0;
};

// The passages the gateway puts in the cached prefix (docs/prompt-assembly.md):
// the newest pinned first, each whole, while their texts' EstimateTokens stay
// within token_budget. One that does not fit is left out, never cut; older
// ones that still fit go in. Returned in the order they were said (ties by
// id): the same store gives the same list, so the prefix stays byte-stable.
Result<std::vector<PassageInPrompt>> PreciousForPrompt(Namespace& ns, int token_budget);

}  // namespace cilia::memory
