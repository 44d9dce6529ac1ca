// Calls to a chat provider: the request for its kind (URL, auth headers,
// stream options), retries before anything reached the caller, and its
// errors read into a Status the gateway can answer with.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/status.h"
#include "llm/chat_format.h"
#include "llm/routing.h"
#include "net/http_client.h"

namespace cilia::llm {

// What an upstream said when it refused or failed a call.
struct UpstreamError {
  int http_status = 0;  // the upstream's, or 502/504 when it could not be reached in time
  std::string type;     // e.g. "rate_limit_error", "invalid_request_error", "timeout"
  std::string message;
};

// The error a Status from UpstreamClient stands for. An upstream's HTTP error
// keeps its status, type and message; a transport failure becomes 504 (a
// timeout) or 502 (anything else); any other Status maps by its code.
UpstreamError UpstreamErrorOf(const Status& status);
// True when the Status is an upstream's HTTP error reply or a failure to
// reach it, as opposed to an error of cilia's own.
bool IsUpstreamFailure(const Status& status);
// {"error":{"message","type","code"}} and {"type":"error","error":{"type","message"}}.
nlohmann::json OpenAIErrorBody(const UpstreamError& error);
nlohmann::json AnthropicErrorBody(const UpstreamError& error);

// wire_api = "responses" on an OpenAI-kind provider.
bool SpeaksResponses(const ProviderConfig& provider);

class UpstreamClient {
 public:
  // `provider` must outlive the client (it lives in the Config).
  // `responses_body`: for a provider with wire_api = "responses", the bodies
  // given are already Responses requests (a Responses client's, passed
  // through) and go as they are, and answers come back as the upstream sent
  // them (a Response object, its events) rather than converted.
  explicit UpstreamClient(const ProviderConfig& provider, bool responses_body = false)
      : provider_(provider), responses_body_(responses_body && SpeaksResponses(provider)) {}

  // The HTTP request for `body` (already in the provider's format): POST
  // {base_url}/chat/completions with a bearer key, {base_url}/responses (the
  // Chat Completions body converted, or as it is with responses_body) for wire_api = "responses", or
  // {base_url}/messages with x-api-key and anthropic-version (an anthropic
  // base_url without a final /v1 gets one). For OpenAI streams it sets
  // stream_options.include_usage, so usage can be logged. `extra_headers`
  // (e.g. anthropic-beta from the client) are sent as well.
  net::HttpRequest BuildRequest(nlohmann::json body, bool stream, const net::Headers& extra_headers = {}) const;

  // A whole answer: the parsed body of a 2xx reply.
  Result<nlohmann::json> Complete(const nlohmann::json& body, const net::Headers& extra_headers = {}) const;

  // Anthropic's token count for a Messages request: POST
  // {base_url}/messages/count_tokens with the headers of a messages call and
  // `body` as given (no `stream` added). The parsed reply, which holds an
  // integer `input_tokens` (Unavailable when it does not). Errors as for
  // Complete; InvalidArgument for a provider that is not anthropic-kind.
  Result<nlohmann::json> CountTokens(const nlohmann::json& body, const net::Headers& extra_headers = {}) const;

  // A streamed answer: the bytes of a 2xx reply go to `on_data` as they come;
  // on_data returning false (the client went away) cuts the transfer, and the
  // result says cancelled. An error reply is read whole and returned as a
  // Status (see UpstreamErrorOf); no byte of it reaches on_data.
  Result<net::StreamResult> Stream(const nlohmann::json& body, const net::DataCallback& on_data,
                                   const net::Headers& extra_headers = {}) const;

  const ProviderConfig& provider() const { return provider_; }

 private:
  // The request to {base_url}{path}: the provider's auth headers (bearer, or
  // x-api-key and anthropic-version), `extra_headers` over them, the body and
  // the provider's timeouts. BuildRequest and CountTokens build on it.
  net::HttpRequest RequestTo(std::string_view path, const nlohmann::json& body,
                             const net::Headers& extra_headers) const;
  // Sends a whole request with the retries, and parses a 2xx reply.
  Result<nlohmann::json> SendWhole(const net::HttpRequest& request) const;

  const ProviderConfig& provider_;
  const bool responses_body_;  // bodies in and answers out stay Responses
};

// One whole answer from the route's provider to a request written in the
// OpenAI shape (converted for an Anthropic provider, model set to the
// route's): the one way cilia's own calls (summaries, extraction, digests,
// image descriptions) reach a model.
Result<AssistantTurn> CompleteOpenAIShaped(const Route& route, nlohmann::json openai_body);

// The outermost {...} of a model's reply that may wrap it in a code fence or
// words; nullopt when there is none or it is not a JSON object.
std::optional<nlohmann::json> JsonObjectIn(std::string_view reply);

// Attempts after the first when the upstream could not be reached or answered
// 429 / 5xx, and nothing had reached the caller yet.
inline constexpr int kUpstreamRetries = 2;

}  // namespace cilia::llm
