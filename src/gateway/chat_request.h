// What the gateway reads from a client's chat request before anything else:
// the conversation as the client holds it (for identity and storage), the
// new user message, and the request's switches. Both wire formats.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "gateway/prompt_assembler.h"

namespace cilia::gateway {

struct ClientMessage {
  std::string role;  // "user", "assistant" or "tool"
  std::string text;  // its text parts joined by "\n"
  // The storable content: the text and image parts in the ingest shape (a
  // string when the client sent a string and nothing else), then an
  // assistant's tool calls; a tool message's one tool_result part
  // (ingest/context_parts.h).
  nlohmann::json content;
};

struct ClientTurn {
  // The conversation before the new user message, in order: user and
  // assistant messages with text, images or tool calls, and a role "tool"
  // message, without text, for each tool result (an Anthropic user
  // message's results come just before the rest of it).
  std::vector<ClientMessage> history;
  // The new user message: the last message when it is the user's and holds
  // text or an image (not when the request only returns tool results).
  std::optional<ClientMessage> current;
  std::string client_user;  // OpenAI `user`, Anthropic `metadata.user_id`
  bool has_images = false;  // an image part anywhere in the messages
  bool stream = false;
  bool include_usage = false;  // OpenAI stream_options.include_usage
  // The client's system prompt as system_prompt parts, one per system
  // message or block, cache_control markers left out; null when none.
  nlohmann::json system_prompt;
};

// InvalidArgument naming the field when the body is not a request of that
// format (no messages array, a message that is not an object, ...).
Result<ClientTurn> ReadClientTurn(const nlohmann::json& body, Wire wire);

// The text of one message of either format: a string content, or its text
// parts joined by "\n".
std::string MessageText(const nlohmann::json& message);

// The text the history's recent part is queried with for the menu: the last
// `user_count` user texts (oldest first; their own words, harness text left
// out, text/harness.h) and the previous assistant reply.
struct MenuQuery {
  std::vector<std::string> user_texts;
  std::string previous_assistant;
};
MenuQuery MenuQueryOf(const ClientTurn& turn, size_t user_count = 2);

}  // namespace cilia::gateway
