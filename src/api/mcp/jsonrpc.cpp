#include "api/mcp/jsonrpc.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/json_read.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

RpcError Invalid(std::string message) { return {kInvalidRequest, std::move(message), nullptr}; }

// The deepest nesting of arrays and objects, outside strings, stopping early
// past `limit`: nlohmann's parser would follow any depth, and a body of a
// million "[" is small but would cost a million levels.
size_t NestingDepth(std::string_view text, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > limit) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

RpcMessage ClassifyMessage(const json& message) {
  RpcMessage out;
  if (!message.is_object()) {
    out.error = Invalid("each message must be a JSON object");
    return out;
  }
  auto id = message.find("id");
  const bool has_id = id != message.end();
  if (has_id) {
    if (id->is_string() || id->is_number_integer()) {
      out.id = *id;
    } else {
      out.error = Invalid(id->is_null() ? "id: must be a string or an integer, not null"
                                        : "id: must be a string or an integer");
      return out;
    }
  }
  auto version = message.find("jsonrpc");
  if (version == message.end()) {
    out.error = Invalid("jsonrpc: required, the string \"2.0\"");
    return out;
  }
  if (!version->is_string() || *version != "2.0") {
    out.error = Invalid("jsonrpc: must be the string \"2.0\"");
    return out;
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (message.contains("result") || message.contains("error")) {
      out.kind = MessageKind::kResponse;
      return out;
    }
    out.error = Invalid("method: required, the name of the method to call");
    return out;
  }
  if (!method->is_string()) {
    out.error = Invalid("method: must be a string");
    return out;
  }
  out.method = method->get<std::string>();
  if (auto params = message.find("params"); params != message.end()) {
    if (!params->is_object() && !params->is_array()) {
      out.error = Invalid("params: must be an object");
      return out;
    }
    out.params = *params;
  }
  out.kind = has_id ? MessageKind::kRequest : MessageKind::kNotification;
  return out;
}

ParsedBody ParseBody(std::string_view body, const ParseLimits& limits) {
  ParsedBody out;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    out.error = RpcError{kParseError, "the request body is empty; expected a JSON-RPC message", nullptr};
    return out;
  }
  if (NestingDepth(body, limits.max_depth) > limits.max_depth) {
    out.error = Invalid(fmt::format("the message is nested deeper than {} levels", limits.max_depth));
    return out;
  }
  Result<json> parsed = cilia::json::ParseJsonText(body);
  if (!parsed.ok()) {
    out.error = RpcError{kParseError, "not valid JSON: " + parsed.status().message(), nullptr};
    return out;
  }
  if (parsed->is_array()) {
    out.batch = true;
    if (parsed->empty()) {
      out.error = Invalid("an empty batch: send at least one message");
      return out;
    }
    if (parsed->size() > limits.max_batch) {
      out.error = Invalid(fmt::format("a batch holds at most {} messages; this one has {}", limits.max_batch,
                                      parsed->size()));
      return out;
    }
    out.messages.reserve(parsed->size());
    for (const json& message : *parsed) out.messages.push_back(ClassifyMessage(message));
    return out;
  }
  if (!parsed->is_object()) {
    out.error = Invalid("the body must be a JSON-RPC message (an object)");
    return out;
  }
  out.messages.push_back(ClassifyMessage(*parsed));
  return out;
}

json ResultResponse(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

json ErrorResponse(const json& id, const RpcError& error) {
  json body = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) body["data"] = error.data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(body)}};
}

int RpcCodeFor(Code code) {
  switch (code) {
    case Code::kUnauthenticated:
    case Code::kPermissionDenied: return kUnauthorized;
    case Code::kInvalidArgument:
    case Code::kNotFound:
    case Code::kConflict:
    case Code::kTooLarge: return kInvalidRequest;
    default: return kInternalError;
  }
}

std::string Dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace cilia::api::mcp
