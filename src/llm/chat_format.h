// The two chat wire formats — OpenAI Chat Completions and Anthropic Messages —
// and the conversions between them, as pure functions on JSON. What each
// direction keeps, changes and drops is listed in docs/upstreams.md.
//
// Request conversions refuse (InvalidArgument) what the other side cannot
// express rather than dropping it silently; response conversions never fail.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::llm {

// Token counts of one upstream call. `input` counts every prompt token, cached
// or not (Anthropic's input_tokens + cache_read + cache_creation; OpenAI's
// prompt_tokens), so cache_read / input is the share served from cache.
struct Usage {
  int64_t input = 0, output = 0, cache_read = 0, cache_write = 0;
  int64_t reasoning = 0;  // the part of `output` the model spent thinking (OpenAI, Responses; Anthropic has none)

  bool operator==(const Usage&) const = default;
};

// From an OpenAI `usage` object: prompt_tokens_details.cached_tokens, or
// DeepSeek's prompt_cache_hit_tokens, is the cache read;
// completion_tokens_details.reasoning_tokens the reasoning. Null or junk: zeros.
Usage UsageFromOpenAI(const nlohmann::json& usage);
// From an Anthropic `usage` object (a message's, or message_delta's).
Usage UsageFromAnthropic(const nlohmann::json& usage);
// {prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details.cached_tokens,
//  completion_tokens_details.reasoning_tokens (when there were any)}
nlohmann::json UsageToOpenAI(const Usage& usage);
// {input_tokens (the uncached part), output_tokens, cache_creation_input_tokens, cache_read_input_tokens}
nlohmann::json UsageToAnthropic(const Usage& usage);

// Why the model stopped, in both vocabularies.
enum class FinishReason { kNone, kStop, kStopSequence, kLength, kToolCalls, kContentFilter };

// stop, length, tool_calls (function_call too), content_filter; else kNone.
FinishReason FinishFromOpenAI(std::string_view finish_reason);
// end_turn, stop_sequence, max_tokens, tool_use, refusal; pause_turn reads as kStop.
FinishReason FinishFromAnthropic(std::string_view stop_reason);
// "" for kNone (the wire then carries null).
std::string OpenAIFinishName(FinishReason reason);
std::string AnthropicStopName(FinishReason reason);

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text, as the model wrote it

  bool operator==(const ToolCall&) const = default;
};

// An Anthropic thinking block (or DeepSeek reasoning_content, which has no
// signature). `redacted` holds a redacted_thinking block's data instead.
struct ThinkingBlock {
  std::string thinking;
  std::string signature;
  std::string redacted;

  bool operator==(const ThinkingBlock&) const = default;
};

// One assistant answer in a neutral shape: what the gateway stores, logs and
// sends back in a tool-loop continuation.
struct AssistantTurn {
  std::string id;     // the upstream's message or completion id
  std::string model;  // as the upstream named it
  std::vector<ThinkingBlock> thinking;
  std::string text;
  std::vector<ToolCall> tool_calls;
  FinishReason finish = FinishReason::kNone;
  Usage usage;
  // A Responses upstream's output items as it sent them (null otherwise):
  // what a recall round sends back, encrypted reasoning included.
  nlohmann::json items;

  // The thinking text of every block, joined.
  std::string ReasoningText() const;
  bool CalledTool(std::string_view name) const;
};

// Non-streaming answers read into the neutral shape.
AssistantTurn TurnFromOpenAIResponse(const nlohmann::json& response);
AssistantTurn TurnFromAnthropicResponse(const nlohmann::json& response);

// The turn as an OpenAI assistant message: content (null when empty),
// reasoning_content when there was thinking, tool_calls when there were any.
nlohmann::json OpenAIAssistantMessage(const AssistantTurn& turn);
// The turn as Anthropic content blocks: thinking (signatures kept), text,
// tool_use (input parsed from the arguments; {} when they are not an object).
nlohmann::json AnthropicAssistantContent(const AssistantTurn& turn);

// Requests. Message order and tool-call ids are kept as they are.
Result<nlohmann::json> OpenAIRequestToAnthropic(const nlohmann::json& openai_body);
Result<nlohmann::json> AnthropicRequestToOpenAI(const nlohmann::json& anthropic_body);

// Responses. `model` is the name the client should see.
nlohmann::json AnthropicResponseToOpenAI(const nlohmann::json& anthropic_response, const std::string& model);
nlohmann::json OpenAIResponseToAnthropic(const nlohmann::json& openai_response, const std::string& model);

// Anthropic's default when an OpenAI-shaped request gives no max_tokens (the
// Messages API requires one).
inline constexpr int64_t kDefaultAnthropicMaxTokens = 4096;

}  // namespace cilia::llm
