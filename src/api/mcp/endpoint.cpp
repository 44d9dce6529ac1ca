#include "api/mcp/endpoint.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/codec.h"
#include "core/version.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

enum class Form { kJson, kSse, kNeither };

// JSON when the client takes it (or says nothing), else one SSE event.
Form ReplyForm(const McpRequest& request) {
  const std::string accept = request.header("Accept");
  if (accept.empty() || accept.find("application/json") != std::string::npos ||
      accept.find("*/*") != std::string::npos || accept.find("application/*") != std::string::npos) {
    return Form::kJson;
  }
  if (accept.find("text/event-stream") != std::string::npos) return Form::kSse;
  return Form::kNeither;
}

McpReply JsonReply(int status, const json& payload) {
  McpReply reply;
  reply.status = status;
  reply.content_type = "application/json";
  reply.body = Dump(payload);
  return reply;
}

McpReply ErrorReply(int status, const json& id, RpcError error) {
  return JsonReply(status, ErrorResponse(id, error));
}

McpReply Accepted() {
  McpReply reply;
  reply.status = 202;
  return reply;
}

McpReply Answer(const json& payload, Form form) {
  if (form != Form::kSse) return JsonReply(200, payload);
  McpReply reply;
  reply.status = 200;
  reply.content_type = "text/event-stream";
  reply.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
  reply.body = "event: message\ndata: " + Dump(payload) + "\n\n";
  return reply;
}

McpReply NotAcceptable(const json& id) {
  return ErrorReply(406, id,
                    {kInvalidRequest,
                     "Accept header: must allow application/json or text/event-stream (send both, as the "
                     "specification asks)",
                     nullptr});
}

json ServerInfo() { return {{"name", "cilia"}, {"title", "cilia memory"}, {"version", kVersion}}; }

bool IsSessionRevision(const std::string& version) {
  const auto& known = SessionRevisions();
  return std::find(known.begin(), known.end(), version) != known.end();
}

// The params object of a request, or an empty one when it sent none.
const json& ParamsOf(const RpcMessage& message) {
  static const json kEmpty = json::object();
  return message.params.is_object() ? message.params : kEmpty;
}

// params._meta[key], or null.
json MetaValue(const RpcMessage& message, const char* key) {
  const json& params = ParamsOf(message);
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object()) return nullptr;
  return meta->value(key, json());
}

bool IsStateless(const McpRequest& request, const RpcMessage& message) {
  return !MetaValue(message, kVersionMetaKey).is_null() || request.header("MCP-Protocol-Version") == kStatelessRevision;
}

std::string ClientName(const json& client_info) {
  if (!client_info.is_object()) return "";
  auto name = client_info.find("name");
  return name != client_info.end() && name->is_string() ? name->get<std::string>() : "";
}

// A header value in the 2026-07-28 encoding: plain, or "=?base64?...?=".
std::optional<std::string> DecodedHeader(const std::string& value) {
  constexpr std::string_view kPrefix = "=?base64?";
  constexpr std::string_view kSuffix = "?=";
  if (value.size() >= kPrefix.size() + kSuffix.size() && value.starts_with(kPrefix) && value.ends_with(kSuffix)) {
    auto decoded = Base64Decode(std::string_view(value).substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
    if (!decoded.ok()) return std::nullopt;
    return *decoded;
  }
  return value;
}

RpcError HeaderMismatch(std::string message) { return {kHeaderMismatch, std::move(message), nullptr}; }

// The method names this server answers in a session, for -32601's message.
constexpr const char* kSessionMethods = "initialize, ping, tools/list and tools/call";
constexpr const char* kStatelessMethods = "server/discover, tools/list and tools/call";

}  // namespace

const std::vector<std::string>& SessionRevisions() {
  static const std::vector<std::string> kRevisions = {"2025-11-25", "2025-06-18", "2025-03-26"};
  return kRevisions;
}

const std::vector<std::string>& AllRevisions() {
  static const std::vector<std::string> kRevisions = {kStatelessRevision, "2025-11-25", "2025-06-18", "2025-03-26"};
  return kRevisions;
}

const char* ServerInstructions() {
  return "cilia is the owner's long-term memory: every conversation they had, verbatim, with excerpts (memories), "
         "a profile, a glossary and daily digests built on it. At the start of a session read memory_boot. Before "
         "answering anything about the past (what was said, decided, planned, liked), call memory_search, or "
         "memory_recall when you will use the answer. Quote what you find with its date. Write with memory_upsert "
         "only what the owner would want remembered, in a sentence of your own or quoting a stored message.";
}

Endpoint::Endpoint(memory::Registry& registry, const ToolRegistry& tools, SessionStore& sessions,
                   EndpointOptions options)
    : registry_(registry), tools_(tools), sessions_(sessions), options_(std::move(options)) {}

McpReply Endpoint::Serve(const McpRequest& request, const Principal& who) {
  const std::string origin = request.header("Origin");
  if (!origin.empty() && !OriginAllowed(origin)) {
    return ErrorReply(403, nullptr,
                      {kInvalidRequest,
                       fmt::format("Origin {} may not call this server (DNS-rebinding protection); a page served from "
                                   "another origin needs it listed in server.cors_origins",
                                   origin.substr(0, 200)),
                       nullptr});
  }
  if (request.method == "POST") return ServePost(request, who);
  if (request.method == "DELETE") return ServeDelete(request, who);
  McpReply reply = ErrorReply(405, nullptr,
                              {kInvalidRequest,
                               request.method == "GET"
                                   ? "GET: cilia opens no server-to-client stream; POST each JSON-RPC message"
                                   : fmt::format("{}: /mcp takes POST (and DELETE to end a session)", request.method),
                               nullptr});
  reply.headers.emplace_back("Allow", "POST, DELETE");
  return reply;
}

McpReply Endpoint::ServeDelete(const McpRequest& request, const Principal& who) {
  const std::string id = request.header("Mcp-Session-Id");
  if (id.empty()) {
    return ErrorReply(400, nullptr, {kInvalidRequest, "Mcp-Session-Id header: required, the session to end", nullptr});
  }
  if (!sessions_.Close(id, who.key_id)) {
    return ErrorReply(404, nullptr, {kSessionNotFound, "no such session (it ended or expired already)", nullptr});
  }
  return McpReply{200, {}, "", ""};
}

McpReply Endpoint::ServePost(const McpRequest& request, const Principal& who) {
  const std::string content_type = request.header("Content-Type");
  if (!content_type.empty() && content_type.find("application/json") == std::string::npos) {
    return ErrorReply(415, nullptr,
                      {kInvalidRequest, fmt::format("Content-Type: must be application/json, got {}", content_type.substr(0, 100)),
                       nullptr});
  }
  if (request.body.size() > options_.max_body_bytes) {
    return ErrorReply(413, nullptr,
                      {kInvalidRequest,
                       fmt::format("the body is {} bytes, over the {} MB a message to /mcp may have; send less at a time",
                                   request.body.size(), options_.max_body_bytes >> 20),
                       nullptr});
  }
  ParsedBody parsed = ParseBody(request.body, options_.limits);
  if (parsed.error) return ErrorReply(400, nullptr, *parsed.error);
  if (parsed.batch) return ServeBatch(request, who, parsed);
  const RpcMessage& message = parsed.messages.front();
  switch (message.kind) {
    case MessageKind::kInvalid: return ErrorReply(400, message.id, message.error);
    case MessageKind::kResponse: return Accepted();
    case MessageKind::kRequest:
    case MessageKind::kNotification: break;
  }
  if (message.method == "initialize") return Initialize(request, who, message);
  if (IsStateless(request, message)) return ServeStateless(request, who, message);

  const std::string session_id = request.header("Mcp-Session-Id");
  if (session_id.empty()) {
    return ErrorReply(400, message.id,
                      {kInvalidRequest,
                       "Mcp-Session-Id header: required; call initialize first (or use revision 2026-07-28, which "
                       "names its version in params._meta)",
                       nullptr});
  }
  std::optional<Session> session = sessions_.Use(session_id, who.key_id);
  if (!session) {
    return ErrorReply(404, message.id,
                      {kSessionNotFound,
                       "no such session (it was ended, it expired, or the server restarted): call initialize again",
                       nullptr});
  }
  const std::string version = request.header("MCP-Protocol-Version");
  if (!version.empty() && version != session->protocol_version) {
    return ErrorReply(400, message.id,
                      {kInvalidRequest,
                       fmt::format("MCP-Protocol-Version header: \"{}\" is not this session's revision \"{}\"",
                                   version.substr(0, 40), session->protocol_version),
                       nullptr});
  }
  if (message.kind == MessageKind::kRequest && ReplyForm(request) == Form::kNeither) return NotAcceptable(message.id);
  std::optional<json> answer = ServeInSession(*session, who, message);
  if (!answer) return Accepted();
  return Answer(*answer, ReplyForm(request));
}

McpReply Endpoint::ServeBatch(const McpRequest& request, const Principal& who, const ParsedBody& parsed) {
  const std::string session_id = request.header("Mcp-Session-Id");
  std::optional<Session> session;
  if (!session_id.empty()) session = sessions_.Use(session_id, who.key_id);
  if (!session) {
    return ErrorReply(session_id.empty() ? 400 : 404, nullptr,
                      {session_id.empty() ? kInvalidRequest : kSessionNotFound,
                       session_id.empty()
                           ? "a batch needs a session of revision 2025-03-26: call initialize first (it may not be "
                             "in a batch)"
                           : "no such session (it was ended, it expired, or the server restarted): call initialize "
                             "again",
                       nullptr});
  }
  if (session->protocol_version != "2025-03-26") {
    return ErrorReply(400, nullptr,
                      {kInvalidRequest,
                       fmt::format("batches are not part of revision {}; send one JSON-RPC message per POST",
                                   session->protocol_version),
                       nullptr});
  }
  json answers = json::array();
  for (const RpcMessage& message : parsed.messages) {
    if (message.kind == MessageKind::kInvalid) {
      answers.push_back(ErrorResponse(message.id, message.error));
    } else if (message.method == "initialize") {
      answers.push_back(ErrorResponse(message.id, {kInvalidRequest, "initialize may not be part of a batch", nullptr}));
    } else if (std::optional<json> answer = ServeInSession(*session, who, message)) {
      answers.push_back(std::move(*answer));
    }
  }
  if (answers.empty()) return Accepted();
  if (ReplyForm(request) == Form::kNeither) return NotAcceptable(nullptr);
  return Answer(answers, ReplyForm(request));
}

McpReply Endpoint::Initialize(const McpRequest& request, const Principal& who, const RpcMessage& message) {
  if (message.kind != MessageKind::kRequest) {
    return ErrorReply(400, nullptr, {kInvalidRequest, "initialize must be a request, with an id", nullptr});
  }
  const json& params = ParamsOf(message);
  auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    return ErrorReply(400, message.id,
                      {kInvalidParams,
                       fmt::format("params.protocolVersion: required, a string such as \"{}\"", SessionRevisions().front()),
                       nullptr});
  }
  if (auto capabilities = params.find("capabilities"); capabilities != params.end() && !capabilities->is_object()) {
    return ErrorReply(400, message.id, {kInvalidParams, "params.capabilities: must be an object", nullptr});
  }
  if (ReplyForm(request) == Form::kNeither) return NotAcceptable(message.id);
  const std::string version =
      IsSessionRevision(requested->get<std::string>()) ? requested->get<std::string>() : SessionRevisions().front();
  Result<Session> session = sessions_.Open(version, who.key_id, ClientName(params.value("clientInfo", json())));
  if (!session.ok()) {
    // The random source failed: nothing the client did; say so without a 5xx body of another shape.
    return ErrorReply(503, message.id, {kInternalError, session.status().message(), nullptr});
  }
  json info = ServerInfo();
  if (version == "2025-03-26") info.erase("title");
  json result = {{"protocolVersion", version},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", std::move(info)},
                 {"instructions", ServerInstructions()}};
  McpReply reply = Answer(ResultResponse(message.id, std::move(result)), ReplyForm(request));
  reply.headers.emplace_back("Mcp-Session-Id", session->id);
  return reply;
}

std::optional<json> Endpoint::ServeInSession(const Session& session, const Principal& who, const RpcMessage& message) {
  if (message.kind == MessageKind::kResponse) return std::nullopt;
  if (message.kind == MessageKind::kNotification) {
    if (message.method == "notifications/initialized") sessions_.MarkInitialized(session.id);
    return std::nullopt;  // cancellations and others: nothing of cilia's runs long enough to cancel
  }
  if (message.method == "ping") return ResultResponse(message.id, json::object());
  const ToolShape shape{session.protocol_version != "2025-03-26"};
  auto outcome = ServeTools(who, message, session.client_name, shape);
  if (auto* error = std::get_if<RpcError>(&outcome)) return ErrorResponse(message.id, *error);
  return ResultResponse(message.id, std::move(std::get<json>(outcome)));
}

McpReply Endpoint::ServeStateless(const McpRequest& request, const Principal& who, const RpcMessage& message) {
  const json version = MetaValue(message, kVersionMetaKey);
  const std::string meta_path = fmt::format("params._meta[\"{}\"]", kVersionMetaKey);
  if (version.is_null()) {
    return ErrorReply(400, message.id,
                      HeaderMismatch(fmt::format("MCP-Protocol-Version header says {} but {} is missing",
                                                 kStatelessRevision, meta_path)));
  }
  if (!version.is_string()) {
    return ErrorReply(400, message.id, {kInvalidParams, meta_path + ": must be a string", nullptr});
  }
  if (version != kStatelessRevision) {
    return ErrorReply(400, message.id,
                      {kUnsupportedProtocolVersion,
                       fmt::format("Unsupported protocol version \"{}\" in {}: without a session cilia speaks {}; "
                                   "the older revisions begin with initialize",
                                   version.get<std::string>().substr(0, 40), meta_path, kStatelessRevision),
                       {{"supported", AllRevisions()}, {"requested", version}}});
  }
  const std::string header_version = request.header("MCP-Protocol-Version");
  if (header_version != kStatelessRevision) {
    return ErrorReply(400, message.id,
                      HeaderMismatch(header_version.empty()
                                         ? fmt::format("MCP-Protocol-Version header: required, \"{}\" as in {}",
                                                       kStatelessRevision, meta_path)
                                         : fmt::format("MCP-Protocol-Version header \"{}\" does not match {} \"{}\"",
                                                       header_version.substr(0, 40), meta_path, kStatelessRevision)));
  }
  const std::string header_method = request.header("Mcp-Method");
  if (header_method != message.method) {
    return ErrorReply(400, message.id,
                      HeaderMismatch(header_method.empty()
                                         ? fmt::format("Mcp-Method header: required, \"{}\" as in the body's method",
                                                       message.method.substr(0, 100))
                                         : fmt::format("Mcp-Method header \"{}\" does not match the body's method \"{}\"",
                                                       header_method.substr(0, 100), message.method.substr(0, 100))));
  }
  if (message.method == "tools/call" || message.method == "resources/read" || message.method == "prompts/get") {
    const json& params = ParamsOf(message);
    const char* field = message.method == "resources/read" ? "uri" : "name";
    const json body_name = params.value(field, json());
    const std::string raw = request.header("Mcp-Name");
    std::optional<std::string> header_name = DecodedHeader(raw);
    if (raw.empty() || !header_name || !body_name.is_string() || *header_name != body_name.get<std::string>()) {
      return ErrorReply(400, message.id,
                        HeaderMismatch(raw.empty() ? fmt::format("Mcp-Name header: required, params.{} of the body", field)
                                                   : fmt::format("Mcp-Name header does not match params.{} of the body",
                                                                 field)));
    }
  }
  if (auto capabilities = MetaValue(message, kClientCapabilitiesMetaKey);
      !capabilities.is_null() && !capabilities.is_object()) {
    return ErrorReply(400, message.id,
                      {kInvalidParams, fmt::format("params._meta[\"{}\"]: must be an object", kClientCapabilitiesMetaKey),
                       nullptr});
  }
  if (message.kind == MessageKind::kNotification) return Accepted();
  if (ReplyForm(request) == Form::kNeither) return NotAcceptable(message.id);

  json result;
  if (message.method == "server/discover") {
    result = {{"supportedVersions", AllRevisions()},
              {"capabilities", {{"tools", json::object()}}},
              {"instructions", ServerInstructions()},
              {"ttlMs", 3'600'000},
              {"cacheScope", "public"}};
  } else if (message.method == "tools/list" || message.method == "tools/call") {
    auto outcome = ServeTools(who, message, ClientName(MetaValue(message, kClientInfoMetaKey)), ToolShape{true});
    if (auto* error = std::get_if<RpcError>(&outcome)) return ErrorReply(200, message.id, *error);
    result = std::move(std::get<json>(outcome));
    if (message.method == "tools/list") {
      // The list depends on the key's scopes, so no cache may share it.
      result["ttlMs"] = 300'000;
      result["cacheScope"] = "private";
    }
  } else {
    return ErrorReply(404, message.id,
                      {kMethodNotFound,
                       fmt::format("method \"{}\" is not served here; cilia serves {}", message.method.substr(0, 100),
                                   kStatelessMethods),
                       nullptr});
  }
  result["resultType"] = "complete";
  result["_meta"] = {{kServerInfoMetaKey, ServerInfo()}};
  return Answer(ResultResponse(message.id, std::move(result)), ReplyForm(request));
}

std::variant<json, RpcError> Endpoint::ServeTools(const Principal& who, const RpcMessage& message,
                                                  const std::string& client_name, ToolShape shape) {
  const json& params = ParamsOf(message);
  if (!message.params.is_null() && !message.params.is_object()) {
    return RpcError{kInvalidParams, "params: must be an object", nullptr};
  }
  if (message.method == "tools/list") {
    if (auto cursor = params.find("cursor"); cursor != params.end() && !cursor->is_null()) {
      return RpcError{kInvalidParams, "params.cursor: cilia lists every tool on one page and gave out no cursor",
                      nullptr};
    }
    return tools_.List(who, shape);
  }
  if (message.method != "tools/call") {
    return RpcError{kMethodNotFound,
                    fmt::format("method \"{}\" is not served here; cilia serves {}", message.method.substr(0, 100),
                                kSessionMethods),
                    nullptr};
  }
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return RpcError{kInvalidParams, "params.name: required, the name of a tool (tools/list names them)", nullptr};
  }
  const Tool* tool = tools_.Find(name->get<std::string>());
  if (tool == nullptr) {
    return RpcError{kInvalidParams,
                    fmt::format("params.name: no tool \"{}\"; tools/list names the tools this key may call",
                                name->get<std::string>().substr(0, 100)),
                    nullptr};
  }
  json arguments = params.value("arguments", json::object());
  if (arguments.is_null()) arguments = json::object();
  if (!arguments.is_object()) {
    return RpcError{kInvalidParams, "params.arguments: must be an object of the tool's arguments", nullptr};
  }
  return tools_.Call(*tool, registry_, who, arguments, client_name, shape);
}

bool Endpoint::OriginAllowed(const std::string& origin) const {
  for (const std::string& allowed : options_.allowed_origins) {
    if (allowed == "*" || allowed == origin) return true;
  }
  // A page on this machine; a DNS-rebinding page keeps its own origin's name.
  for (const char* loopback : {"http://localhost", "http://127.0.0.1", "http://[::1]", "https://localhost",
                               "https://127.0.0.1", "https://[::1]"}) {
    const std::string_view prefix = loopback;
    if (origin == prefix) return true;
    if (origin.starts_with(prefix) && origin.size() > prefix.size() && origin[prefix.size()] == ':') {
      const std::string port = origin.substr(prefix.size() + 1);
      if (!port.empty() && port.size() <= 5 && std::all_of(port.begin(), port.end(), ::isdigit)) return true;
    }
  }
  return false;
}

}  // namespace cilia::api::mcp
