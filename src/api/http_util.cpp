#include "api/http_util.h"

#include <fmt/format.h>

#include "api/mcp/jsonrpc.h"
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

void ReplyJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // Replace rather than throw on invalid UTF-8: a reply is never lost to it.
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

void ReplyError(httplib::Response& res, const Status& status, ErrorStyle style) {
  nlohmann::json body;
  if (status.code() == Code::kUnauthenticated) res.set_header("WWW-Authenticate", "Bearer realm=\"cilia\"");
  if (style == ErrorStyle::kJsonRpc) {
    body = mcp::ErrorResponse(nullptr, {mcp::RpcCodeFor(status.code()), status.message(), nullptr});
  } else if (style == ErrorStyle::kAnthropic) {
    body = {{"type", "error"}, {"error", {{"type", AnthropicErrorType(status.code())}, {"message", status.message()}}}};
  } else {
    body = {{"error",
             {{"message", status.message()}, {"type", OpenAIErrorType(status.code())}, {"code", CodeName(status.code())}}}};
  }
  ReplyJson(res, HttpStatusFor(status.code()), body);
}

Result<nlohmann::json> ParseJsonBody(const httplib::Request& req) {
  if (req.body.empty()) return Status::InvalidArgument("the request body is empty; expected JSON");
  size_t bad_byte = 0;
  if (!text::IsValidUtf8(req.body, &bad_byte)) {
    return Status::InvalidArgument(fmt::format("the request body is not valid UTF-8 (at byte {})", bad_byte));
  }
  try {
    return nlohmann::json::parse(req.body);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character; the
    // message starts with "[json.exception.parse_error.101] ", noise to a client.
    std::string_view what = e.what();
    if (size_t tag_end = what.find("] "); tag_end != std::string_view::npos) what.remove_prefix(tag_end + 2);
    return Status::InvalidArgument(
        fmt::format("the request body is not valid JSON (at byte {}): {}", e.byte > 0 ? e.byte - 1 : 0, what));
  }
}

}  // namespace cilia::api
