// The OpenAI Responses API (POST /v1/responses) against Chat Completions, as
// pure functions on JSON. cilia runs every turn in the Chat Completions
// shape inside (memory, `recall` rounds, the Anthropic conversion), so a
// Responses client is converted at the edge, both ways, and so is an
// upstream that speaks Responses. What each direction keeps, changes and
// refuses is listed in docs/upstreams.md ("The Responses API").
//
// Request conversions refuse (InvalidArgument naming the field) what the
// other side cannot express — built-in tools, background mode, items by
// reference — rather than dropping it silently; reasoning items (and their
// encrypted content) have no Chat Completions form and are left out. A
// Responses client on an upstream that speaks Responses is not converted:
// its body goes up as it is, with cilia's memory added (the pass-through
// helpers at the end).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/status.h"
#include "llm/chat_format.h"

namespace cilia::llm {

// ---- a Responses client ------------------------------------------------------

// `input` (a string, or an array of items) as Chat Completions messages:
// messages keep their role (developer becomes system, which every server
// knows), function_call
// items become the tool_calls of an assistant message, function_call_output
// items tool messages, input_image parts image_url parts.
// With `upstream_only` set, what only an upstream that speaks Responses can
// take (built-in tools and a tool_choice of one, items of other types, item
// references, file inputs, text formats Chat lacks) is left out instead of
// refused, and the first such refusal is written there: the body is then
// only read, for the memory, and the client's own goes upstream.
Result<nlohmann::json> ResponsesInputToChatMessages(const nlohmann::json& input, Status* upstream_only = nullptr);

// The whole request in the Chat Completions shape: the instructions as the
// first system message, then `history` (the chat messages of the response
// the request continues, previous_response_id; an array), then the input.
// tools (function tools only), tool_choice, max_output_tokens,
// reasoning.effort, text.format, temperature, top_p, parallel_tool_calls,
// user and stream carry over; a stream always asks for its usage.
// `upstream_only` as for ResponsesInputToChatMessages.
Result<nlohmann::json> ResponsesRequestToChat(const nlohmann::json& body, const nlohmann::json& history,
                                              Status* upstream_only = nullptr);

// What a Response object says about itself besides its output.
struct ResponseHeader {
  std::string id;          // "resp_..."; the output items' ids derive from it
  int64_t created_at = 0;  // Unix seconds
  std::string model;       // the name the client asked for
};

// What the ids of a response's output items are made of: the response id
// without its "resp_".
std::string ItemIdSuffix(std::string_view response_id);

// The client's request fields a Response object repeats (instructions,
// metadata, tools, tool_choice, ...), with the API's defaults.
nlohmann::json ResponseSkeleton(const nlohmann::json& request, const ResponseHeader& header);

// An answer in the neutral shape as Response output items: a reasoning item
// (its text as the summary), the message, the function calls.
nlohmann::json ResponseOutputItems(const AssistantTurn& turn, const std::string& response_id);

// A chat completion as the Response object for `request`.
nlohmann::json ChatResponseToResponses(const nlohmann::json& chat_response, const nlohmann::json& request,
                                       const ResponseHeader& header);

// {input_tokens, input_tokens_details.cached_tokens, output_tokens,
//  output_tokens_details.reasoning_tokens, total_tokens}
nlohmann::json UsageToResponses(const Usage& usage);
Usage UsageFromResponses(const nlohmann::json& usage);

// A Response's output items as Chat Completions messages (an assistant
// message with its text and tool calls), for the chain kept after the turn.
nlohmann::json ResponseOutputToChatMessages(const nlohmann::json& output);

// ---- an upstream that speaks Responses ---------------------------------------

// A Chat Completions request as a Responses request: messages in order as
// input items (system and developer messages stay where they are, so the
// cached prefix stays first), tools flattened, max_tokens as
// max_output_tokens, reasoning_effort as reasoning.effort, store false.
// Content parts without a Responses form go as they are, for the upstream
// to judge.
nlohmann::json ChatRequestToResponses(const nlohmann::json& chat_body);

// A Response object as a chat completion.
nlohmann::json ResponsesResponseToChat(const nlohmann::json& response);

// ---- a Responses client on an upstream that speaks Responses ------------------

// A Response object in the neutral shape, its output items kept as `items`.
AssistantTurn TurnFromResponsesResponse(const nlohmann::json& response);

// `output` without the function_call items calling `tool` (cilia's recall).
nlohmann::json WithoutCallsTo(const nlohmann::json& output, std::string_view tool);

// `input` as an array of items: a string is one user message.
nlohmann::json InputItems(const nlohmann::json& input);

// The upstream's Response object as the client sees it: cilia's id, the
// model the client asked for, and the request fields cilia changed
// (instructions and tools with the memory added, tool_choice, the
// previous_response_id cilia resolved itself) as the client sent them;
// fields the upstream left out as ResponseSkeleton has them.
nlohmann::json AsClientResponse(nlohmann::json response, const nlohmann::json& request, const ResponseHeader& header);

}  // namespace cilia::llm
