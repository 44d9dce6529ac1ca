// Small pieces the server and the routes share: Status -> HTTP status, error
// replies shaped like the API they answer, percent-decoding and request body
// parsing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "api/reply.h"
#include "core/status.h"

namespace cilia::api {

// The shape of a route's errors: that of the API the route belongs to.
// kJsonRpc: /mcp, {"jsonrpc": "2.0", "id": null, "error": {"code", "message"}}.
enum class ErrorStyle { kOpenAI, kAnthropic, kJsonRpc };

// InvalidArgument 400, Unauthenticated 401, PermissionDenied 403, NotFound
// 404, Conflict 409, TooLarge 413, Busy 503, Unavailable 502, Timeout 504,
// IOError and Internal 500.
int HttpStatusFor(Code code);

// The status code for `http_status` when cilia answers it itself (e.g. 404
// for an unknown route, 413 for a body over the limit).
Code CodeForHttpStatus(int http_status);

// The one rendering of a failed request, with HttpStatusFor(code):
// OpenAI: {"error":{"message","type","code"}} with code = CodeName;
// Anthropic: {"type":"error","error":{"type","message"}}; JSON-RPC as above.
// A 401 also says how to authenticate (WWW-Authenticate: Bearer).
Reply ErrorReply(const Status& status, ErrorStyle style);

// "%2F" -> "/"; a "%" not followed by two hex digits stays as it is.
std::string PercentDecode(std::string_view text);

// The request body as JSON (json::ParseJsonText within json::kRequestLimits).
// An empty body, invalid UTF-8, invalid JSON, too deep a nesting, too many
// values or a number out of range is an InvalidArgument saying which, and where.
Result<nlohmann::json> ParseJsonBody(std::string_view body);
// The same, and it must be an object; its fields are read with core/json_read.h.
Result<nlohmann::json> ParseJsonObjectBody(std::string_view body);

}  // namespace cilia::api
