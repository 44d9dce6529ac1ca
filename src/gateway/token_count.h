// POST /v1/messages/count_tokens: how many input tokens a client's Anthropic
// Messages request costs. An anthropic-kind route asks its upstream; an
// OpenAI-compatible one, or an upstream without the endpoint (404/405), gets
// cilia's own estimate (text/tokens.h). The count is of the request as the
// client sent it: the memory blocks a real turn adds are not in it
// (docs/gateway.md, "Counting tokens").
#pragma once

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/status.h"
#include "net/http_client.h"

namespace cilia::gateway {

struct TokenCount {
  nlohmann::json body;  // {"input_tokens": N}, or the upstream's answer as it came
  bool by_upstream = false;
};

// InvalidArgument naming the field unless `body` has a non-empty string
// `model` and a `messages` array of objects with a string `role`; the errors
// of ResolveModel for a model that is not routed. An upstream's error other
// than 404/405 is returned as UpstreamClient returned it (llm/upstream.h).
// `forward_headers` (the client's anthropic-beta) go to the upstream.
Result<TokenCount> CountTokens(const Config& config, nlohmann::json body, const net::Headers& forward_headers);

// cilia's estimate: EstimateTokens over the system text, each message's text,
// thinking, tool_use (name and input JSON) and tool_result content, and each
// tool's JSON, summed. Images and documents count nothing. `body` is assumed
// valid as CountTokens checks it; anything else in it is skipped.
int EstimateRequestTokens(const nlohmann::json& body);

}  // namespace cilia::gateway
