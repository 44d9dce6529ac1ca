// A memory written in its writer's own words (CONTRACT.md "Memories":
// POST /v1/memories or MCP memory_upsert without a quote). The text is first
// stored verbatim as a message of its own in the namespace's "notes"
// conversation, and the excerpt then quotes that message whole: every
// excerpt still rests on a stored message, and forgetting the message takes
// the excerpt with it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "core/status.h"
#include "memory/excerpts/excerpts.h"
#include "memory/namespace.h"

namespace cilia::memory {

inline constexpr const char* kNotesConversation = "notes";

// Whether a POST /v1/memories body gives no quote (absent or null).
bool IsInOwnWords(const nlohmann::json& body);

// Who stores the note: its message's source ("owner", "mcp", ...) and speaker.
struct NoteWriter {
  std::string source;
  std::string speaker;
};

// Stores body["content"] as a message of "notes" (role user for the owner,
// assistant for an agent), its caller id derived from the text so the same
// words written twice are one message, then upserts the excerpt as
// Excerpts::Upsert does, quoting it. The other fields are those of
// ParseNewExcerpt; conversation_id and message_id belong to a quote and are
// refused here. When the upsert is refused, a message it alone stored is
// forgotten again: a refused write leaves nothing behind.
Result<Excerpts::Upserted> UpsertInOwnWords(Namespace& ns, const nlohmann::json& body, Author who,
                                             const NoteWriter& writer);

}  // namespace cilia::memory
