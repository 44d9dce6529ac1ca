// JSON-RPC 2.0 as MCP uses it (docs/mcp.md): reading a POST body into
// messages, and writing responses. Pure functions of bytes, with no HTTP in
// them, so the fuzz target and the unit tests drive them directly.
//
// A body is one message or, where the protocol revision allows it
// (2025-03-26), a batch: an array of them. Every message is classified; one
// that is not a valid message keeps what could be read of its id, so the
// error answer can name the request it belongs to.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::api::mcp {

// JSON-RPC 2.0's codes, and those MCP 2026-07-28 defines.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// Implementation-defined (-32000..-32019): a key that is missing, wrong or
// without the scope; no session of that id.
inline constexpr int kUnauthorized = -32001;
inline constexpr int kSessionNotFound = -32002;
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kUnsupportedProtocolVersion = -32022;

struct RpcError {
  int code = kInternalError;
  std::string message;
  nlohmann::json data;  // null: no "data" member
};

enum class MessageKind {
  kRequest,       // method and id
  kNotification,  // method, no id
  kResponse,      // result or error (a client answering a server request)
  kInvalid,       // not a JSON-RPC 2.0 message; `error` says why
};

struct RpcMessage {
  MessageKind kind = MessageKind::kInvalid;
  nlohmann::json id;  // a string or an integer; null when absent or unusable
  std::string method;
  nlohmann::json params;  // as sent; null when absent
  RpcError error;         // kInvalid only
};

struct ParseLimits {
  size_t max_batch = 32;  // messages in one batch
  size_t max_depth = 64;  // nesting of arrays and objects
};

struct ParsedBody {
  // Set when the body as a whole cannot be read: not JSON (-32700), nested
  // past the limit, an empty batch, a batch over the limit, or neither an
  // object nor an array (-32600). Then `messages` is empty.
  std::optional<RpcError> error;
  bool batch = false;
  std::vector<RpcMessage> messages;
};

ParsedBody ParseBody(std::string_view body, const ParseLimits& limits = {});

// One message, already parsed as JSON.
RpcMessage ClassifyMessage(const nlohmann::json& message);

// {"jsonrpc": "2.0", "id", "result"} and {"jsonrpc": "2.0", "id", "error":
// {"code", "message", "data"?}}; `id` null for an error that names no request.
nlohmann::json ResultResponse(const nlohmann::json& id, nlohmann::json result);
nlohmann::json ErrorResponse(const nlohmann::json& id, const RpcError& error);

// The code of an error cilia answers before a message is read (no key, a
// key without the scope, a body over the limit): -32001 for a key, -32600
// for what the client sent, -32603 otherwise.
int RpcCodeFor(Code code);

// Serialised compactly; invalid UTF-8 in strings is replaced, never thrown.
std::string Dump(const nlohmann::json& value);

}  // namespace cilia::api::mcp
