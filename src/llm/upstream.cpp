#include "llm/upstream.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <thread>

#include "llm/json_access.h"
#include "llm/responses_format.h"
#include "llm/responses_stream.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;
using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{250};  // then ×4 per attempt
constexpr milliseconds kLongestRetryAfter{10000};  // a longer Retry-After is answered, not waited for
constexpr size_t kErrorBodyLimit = 64 * 1024;
constexpr size_t kErrorMessageLimit = 1000;
constexpr std::string_view kHttpPrefix = "HTTP ";

bool SameName(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool IsSuccess(long status) { return status >= 200 && status < 300; }
bool WorthRetrying(long status) { return status == 429 || status >= 500; }

Code CodeForHttp(long status) {
  switch (status) {
    case 400:
    case 422: return Code::kInvalidArgument;
    case 401: return Code::kUnauthenticated;
    case 403: return Code::kPermissionDenied;
    case 404: return Code::kNotFound;
    case 409: return Code::kConflict;
    case 413: return Code::kTooLarge;
    case 429: return Code::kBusy;
    case 408:
    case 504: return Code::kTimeout;
    default: return Code::kUnavailable;
  }
}

std::string DefaultType(long status) {
  switch (status) {
    case 400:
    case 422: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 529: return "overloaded_error";
    default: return "api_error";
  }
}

// An error reply as a Status: "HTTP <status> <type>: <message>", which
// UpstreamErrorOf reads back. Both providers' error shapes are understood;
// the key is masked should a server echo it.
Status HttpError(long status, const std::string& body, const std::string& api_key) {
  std::string type = DefaultType(status);
  std::string message = body;
  const json parsed = json::parse(body, nullptr, false);
  if (const json* error = Member(parsed, "error")) {
    if (error->is_string()) {
      message = error->get<std::string>();
    } else {
      type = StringOr(*error, "type", type);
      message = StringOr(*error, "message", message);
    }
  }
  if (message.empty()) message = fmt::format("the upstream answered HTTP {}", status);
  if (!api_key.empty()) {
    for (size_t at = message.find(api_key); at != std::string::npos; at = message.find(api_key, at)) {
      message.replace(at, api_key.size(), "***");
    }
  }
  if (message.size() > kErrorMessageLimit) message = message.substr(0, kErrorMessageLimit) + "…";
  for (char& c : type) {
    if (c == ':' || c == ' ') c = '_';  // keeps the encoding readable back
  }
  return Status(CodeForHttp(status), fmt::format("{}{} {}: {}", kHttpPrefix, status, type, message));
}

// How long to wait before the next attempt, or nullopt for "do not retry".
std::optional<milliseconds> RetryDelay(const net::Headers& headers, int attempt) {
  for (const auto& [name, value] : headers) {
    if (!SameName(name, "retry-after")) continue;
    char* end = nullptr;
    const long seconds = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || seconds < 0) break;
    const milliseconds wait(seconds * 1000);
    if (wait > kLongestRetryAfter) return std::nullopt;
    return wait;
  }
  return kFirstBackoff * (1 << (2 * attempt));
}

// Whether an attempt's outcome is worth another try, and after how long.
std::optional<milliseconds> NextAttempt(const Status& transport, long http_status, const net::Headers& headers,
                                        bool delivered, int attempt) {
  if (delivered || attempt >= kUpstreamRetries) return std::nullopt;
  if (!transport.ok()) {
    // Unreachable or reset; a timeout is not retried, it would only double the wait.
    if (transport.code() != Code::kUnavailable) return std::nullopt;
    return kFirstBackoff * (1 << (2 * attempt));
  }
  if (!WorthRetrying(http_status)) return std::nullopt;
  return RetryDelay(headers, attempt);
}

}  // namespace

bool IsUpstreamFailure(const Status& status) {
  return status.message().rfind(kHttpPrefix, 0) == 0 || status.code() == Code::kUnavailable ||
         status.code() == Code::kTimeout;
}

UpstreamError UpstreamErrorOf(const Status& status) {
  const std::string& m = status.message();
  if (m.rfind(kHttpPrefix, 0) == 0) {
    char* end = nullptr;
    const long http = std::strtol(m.c_str() + kHttpPrefix.size(), &end, 10);
    const size_t type_begin = static_cast<size_t>(end - m.c_str()) + 1;
    const size_t colon = m.find(": ", type_begin);
    if (http >= 100 && http < 600 && *end == ' ' && colon != std::string::npos) {
      return {static_cast<int>(http), m.substr(type_begin, colon - type_begin), m.substr(colon + 2)};
    }
  }
  switch (status.code()) {
    case Code::kTimeout: return {504, "timeout_error", m};
    case Code::kUnavailable: return {502, "api_error", m};
    case Code::kInvalidArgument: return {400, "invalid_request_error", m};
    default: return {500, "api_error", m};
  }
}

json OpenAIErrorBody(const UpstreamError& error) {
  return {{"error", {{"message", error.message}, {"type", error.type}, {"code", nullptr}}}};
}

json AnthropicErrorBody(const UpstreamError& error) {
  return {{"type", "error"}, {"error", {{"type", error.type}, {"message", error.message}}}};
}

bool SpeaksResponses(const ProviderConfig& provider) {
  return provider.kind == ProviderKind::kOpenAI && provider.wire_api == WireApi::kResponses;
}

net::HttpRequest UpstreamClient::RequestTo(std::string_view path, const json& body,
                                           const net::Headers& extra_headers) const {
  net::HttpRequest request;
  std::string base = provider_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  // Anthropic-style providers document their base without /v1 (the SDKs add
  // it: https://api.anthropic.com, https://api.deepseek.com/anthropic); with
  // or without, requests go to {base}/v1/messages.
  if (provider_.kind == ProviderKind::kAnthropic && !base.ends_with("/v1")) base += "/v1";
  request.url = base + std::string(path);
  net::Headers headers = {{"content-type", "application/json"}};
  if (provider_.kind == ProviderKind::kOpenAI) {
    if (!provider_.api_key.empty()) headers.emplace_back("authorization", "Bearer " + provider_.api_key);
  } else {
    if (!provider_.api_key.empty()) headers.emplace_back("x-api-key", provider_.api_key);
    headers.emplace_back("anthropic-version", "2023-06-01");
  }
  // The caller's headers replace defaults of the same name.
  for (const auto& extra : extra_headers) {
    std::erase_if(headers, [&extra](const auto& header) { return SameName(header.first, extra.first); });
    headers.push_back(extra);
  }
  request.headers = std::move(headers);
  request.body = Dump(body);
  request.connect_timeout_ms = provider_.connect_timeout_ms;
  request.first_byte_timeout_ms = provider_.first_byte_timeout_ms;
  request.idle_timeout_ms = provider_.idle_timeout_ms;
  return request;
}

net::HttpRequest UpstreamClient::BuildRequest(json body, bool stream, const net::Headers& extra_headers) const {
  if (!body.is_object()) body = json::object();  // the caller's bug; the upstream will say what is missing
  std::string_view path = "/messages";
  if (SpeaksResponses(provider_)) {
    path = "/responses";
    if (!responses_body_) body = ChatRequestToResponses(body);
  } else if (provider_.kind == ProviderKind::kOpenAI) {
    path = "/chat/completions";
    if (stream) {
      if (!body["stream_options"].is_object()) body["stream_options"] = json::object();
      body["stream_options"]["include_usage"] = true;
    } else {
      body.erase("stream_options");  // refused without stream
    }
  }
  body["stream"] = stream;
  return RequestTo(path, body, extra_headers);
}

Result<json> UpstreamClient::SendWhole(const net::HttpRequest& request) const {
  for (int attempt = 0;; ++attempt) {
    Result<net::HttpResponse> response = net::Send(request);
    const long status = response.ok() ? response->status : 0;
    if (response.ok() && IsSuccess(status)) {
      json parsed = json::parse(response->body, nullptr, false);
      if (parsed.is_discarded()) {
        return Status::Unavailable(fmt::format("upstream {} answered with something that is not JSON", provider_.name));
      }
      return parsed;
    }
    const net::Headers none;
    const auto wait = NextAttempt(response.status(), status, response.ok() ? response->headers : none, false, attempt);
    if (wait) {
      std::this_thread::sleep_for(*wait);
      continue;
    }
    if (!response.ok()) return response.status().With("upstream " + provider_.name);
    return HttpError(status, response->body, provider_.api_key);
  }
}

Result<json> UpstreamClient::Complete(const json& body, const net::Headers& extra_headers) const {
  CILIA_ASSIGN_OR_RETURN(json parsed, SendWhole(BuildRequest(body, false, extra_headers)));
  if (SpeaksResponses(provider_) && !responses_body_) return ResponsesResponseToChat(parsed);
  return parsed;
}

Result<json> UpstreamClient::CountTokens(const json& body, const net::Headers& extra_headers) const {
  if (provider_.kind != ProviderKind::kAnthropic) {
    return Status::InvalidArgument(fmt::format("provider {} is not anthropic-kind: it has no count_tokens", provider_.name));
  }
  CILIA_ASSIGN_OR_RETURN(json parsed,
                         SendWhole(RequestTo("/messages/count_tokens", body.is_object() ? body : json::object(), extra_headers)));
  const json* count = Member(parsed, "input_tokens");
  if (count == nullptr || !count->is_number_integer()) {
    return Status::Unavailable(fmt::format("upstream {} answered count_tokens without an integer input_tokens", provider_.name));
  }
  return parsed;
}

Result<net::StreamResult> UpstreamClient::Stream(const json& body, const net::DataCallback& on_data,
                                                 const net::Headers& extra_headers) const {
  const net::HttpRequest request = BuildRequest(body, true, extra_headers);
  // A Responses upstream's events are read as Chat Completions chunks, so
  // that everything after this sees one format.
  auto converter = SpeaksResponses(provider_) && !responses_body_ ? std::make_unique<ResponsesToChatStream>() : nullptr;
  const net::DataCallback deliver = [&](std::string_view chunk) {
    if (converter == nullptr) return on_data(chunk);
    const std::string converted = converter->Feed(chunk);
    return converted.empty() || on_data(converted);
  };
  for (int attempt = 0;; ++attempt) {
    long status = 0;
    net::Headers headers;
    std::string error_body;
    bool delivered = false;
    auto on_head = [&](long s, const net::Headers& h) {
      status = s;
      headers = h;
      return true;
    };
    auto on_chunk = [&](std::string_view chunk) {
      if (IsSuccess(status)) {
        delivered = true;
        return deliver(chunk);
      }
      error_body.append(chunk.substr(0, kErrorBodyLimit - std::min(kErrorBodyLimit, error_body.size())));
      return true;
    };
    Result<net::StreamResult> result = net::SendStreaming(request, on_head, on_chunk);
    if (result.ok() && (result->cancelled || IsSuccess(status))) return result;
    const auto wait = NextAttempt(result.status(), status, headers, delivered, attempt);
    if (wait) {
      std::this_thread::sleep_for(*wait);
      continue;
    }
    if (!result.ok()) return result.status().With("upstream " + provider_.name);
    return HttpError(status, error_body, provider_.api_key);
  }
}

Result<AssistantTurn> CompleteOpenAIShaped(const Route& route, json openai_body) {
  const bool anthropic = route.provider->kind == ProviderKind::kAnthropic;
  openai_body["model"] = route.model;
  if (anthropic) {
    CILIA_ASSIGN_OR_RETURN(openai_body, OpenAIRequestToAnthropic(openai_body));
    openai_body["model"] = route.model;
  }
  CILIA_ASSIGN_OR_RETURN(json answer, UpstreamClient(*route.provider).Complete(openai_body));
  return anthropic ? TurnFromAnthropicResponse(answer) : TurnFromOpenAIResponse(answer);
}

std::optional<json> JsonObjectIn(std::string_view reply) {
  const size_t open = reply.find('{');
  const size_t close = reply.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  json parsed = json::parse(reply.substr(open, close - open + 1), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

}  // namespace cilia::llm
