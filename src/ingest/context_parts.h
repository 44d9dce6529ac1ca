// What a chat conversation held besides people's words, as content parts of
// the stored messages (docs/api.md "Part types"): the model's tool calls, the
// tools' results and the client's system prompt. The gateway keeps them so
// that the archive holds the whole conversation; a message made only of them
// has no text, which keeps it out of windows, the indexes, the menu, titles,
// summaries, extraction and digests.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cilia::ingest {

inline constexpr std::string_view kToolCallPart = "tool_call";
inline constexpr std::string_view kToolResultPart = "tool_result";
inline constexpr std::string_view kSystemPromptPart = "system_prompt";

// {"type": "tool_call", "id", "name", "arguments"}, in an assistant message
// after its text: `arguments` is the call's input as JSON text.
nlohmann::json ToolCallPart(std::string id, std::string name, std::string arguments);
// {"type": "tool_result", "tool_call_id", "content", "is_error"?}, the one
// part of a role "tool" message: `content` a string or an array of text and
// image parts, as the client sent it; is_error only when true.
nlohmann::json ToolResultPart(std::string tool_call_id, nlohmann::json content, bool is_error);
// {"type": "system_prompt", "text"}: one block of the client's system prompt.
nlohmann::json SystemPromptPart(std::string text);

// Whether `content` holds a part of any of these types.
bool HoldsContextParts(const nlohmann::json& content);

// What tells one stored tool call or result from another when a client
// sends its history again: the ids of the calls and results `content`
// holds, in order ("call:ID", "result:ID", joined by ","); "" when none.
std::string ContextKey(const nlohmann::json& content);

}  // namespace cilia::ingest
