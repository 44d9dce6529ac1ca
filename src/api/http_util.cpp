#include "api/http_util.h"

#include <fmt/format.h>

#include "api/mcp/jsonrpc.h"
#include "core/json_read.h"
#include "text/utf8.h"

namespace cilia::api {

namespace {

const char* OpenAIErrorType(Code code) {
  switch (code) {
    case Code::kInvalidArgument:
    case Code::kTooLarge: return "invalid_request_error";
    case Code::kUnauthenticated: return "authentication_error";
    case Code::kPermissionDenied: return "permission_error";
    case Code::kNotFound: return "not_found_error";
    case Code::kConflict: return "conflict_error";
    default: return "server_error";
  }
}

// Anthropic's documented error types.
const char* AnthropicErrorType(Code code) {
  switch (code) {
    case Code::kInvalidArgument:
    case Code::kConflict: return "invalid_request_error";
    case Code::kUnauthenticated: return "authentication_error";
    case Code::kPermissionDenied: return "permission_error";
    case Code::kNotFound: return "not_found_error";
    case Code::kTooLarge: return "request_too_large";
    case Code::kBusy: return "overloaded_error";
    default: return "api_error";
  }
}

}  // namespace

int HttpStatusFor(Code code) {
  switch (code) {
    case Code::kOk: return 200;
    case Code::kInvalidArgument: return 400;
    case Code::kUnauthenticated: return 401;
    case Code::kPermissionDenied: return 403;
    case Code::kNotFound: return 404;
    case Code::kConflict: return 409;
    case Code::kTooLarge: return 413;
    case Code::kBusy: return 503;
    case Code::kDiskFull: return 507;
    case Code::kUnavailable: return 502;
    case Code::kTimeout: return 504;
    case Code::kIOError:
    case Code::kInternal: return 500;
  }
  return 500;
}

Code CodeForHttpStatus(int http_status) {
  switch (http_status) {
    case 401: return Code::kUnauthenticated;
    case 403: return Code::kPermissionDenied;
    case 404:
    case 405: return Code::kNotFound;
    case 409: return Code::kConflict;
    case 413: return Code::kTooLarge;
    case 502: return Code::kUnavailable;
    case 503: return Code::kBusy;
    case 504: return Code::kTimeout;
    default: return http_status < 500 ? Code::kInvalidArgument : Code::kInternal;
  }
}

Reply ErrorReply(const Status& status, ErrorStyle style) {
  nlohmann::json body;
  switch (style) {
    case ErrorStyle::kJsonRpc:
      body = mcp::ErrorResponse(nullptr, {mcp::RpcCodeFor(status.code()), status.message(), nullptr});
      break;
    case ErrorStyle::kAnthropic:
      body = {{"type", "error"}, {"error", {{"type", AnthropicErrorType(status.code())}, {"message", status.message()}}}};
      break;
    case ErrorStyle::kOpenAI:
      body = {{"error",
               {{"message", status.message()}, {"type", OpenAIErrorType(status.code())}, {"code", CodeName(status.code())}}}};
      break;
  }
  Reply reply = Reply::Json(body, HttpStatusFor(status.code()));
  if (status.code() == Code::kUnauthenticated) reply.headers.emplace("WWW-Authenticate", "Bearer realm=\"cilia\"");
  return reply;
}

std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 && hex(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

Result<nlohmann::json> ParseJsonBody(std::string_view body) {
  if (body.empty()) return Status::InvalidArgument("the request body is empty; expected JSON");
  size_t bad_byte = 0;
  if (!text::IsValidUtf8(body, &bad_byte)) {
    return Status::InvalidArgument(fmt::format("the request body is not valid UTF-8 (at byte {})", bad_byte));
  }
  auto parsed = json::ParseJsonText(body, 1, json::kRequestLimits);
  if (!parsed.ok()) return Status::InvalidArgument("the request body is not valid JSON: " + parsed.status().message());
  return parsed;
}

Result<nlohmann::json> ParseJsonObjectBody(std::string_view body) {
  CILIA_ASSIGN_OR_RETURN(nlohmann::json parsed, ParseJsonBody(body));
  if (!parsed.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  return parsed;
}

}  // namespace cilia::api
