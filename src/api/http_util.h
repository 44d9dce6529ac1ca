// Small pieces every route uses: Status -> HTTP status, JSON replies, error
// bodies shaped like the API they answer, and request body parsing.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace cilia::api {

// kJsonRpc: /mcp, {"jsonrpc": "2.0", "id": null, "error": {"code", "message"}}.
enum class ErrorStyle { kOpenAI, kAnthropic, kJsonRpc };

// InvalidArgument 400, Unauthenticated 401, PermissionDenied 403, NotFound
// 404, Conflict 409, TooLarge 413, Busy 503, Unavailable 502, Timeout 504,
// IOError and Internal 500.
int HttpStatusFor(Code code);

// The status code for `http_status` when cilia answers it itself (e.g. 404
// for an unknown route, 413 for a body over the limit).
Code CodeForHttpStatus(int http_status);

void ReplyJson(httplib::Response& res, int status, const nlohmann::json& body);

// OpenAI: {"error":{"message","type","code"}} with code = CodeName;
// Anthropic: {"type":"error","error":{"type","message"}}; JSON-RPC as above.
// A 401 also says how to authenticate (WWW-Authenticate: Bearer).
void ReplyError(httplib::Response& res, const Status& status, ErrorStyle style = ErrorStyle::kOpenAI);

// The request body as JSON. An empty body, invalid UTF-8 or invalid JSON is
// an InvalidArgument saying which, with the byte position where it applies.
Result<nlohmann::json> ParseJsonBody(const httplib::Request& req);

}  // namespace cilia::api
