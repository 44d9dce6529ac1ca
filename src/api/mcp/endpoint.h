// The MCP endpoint, /mcp, over Streamable HTTP (docs/mcp.md), with no HTTP
// library in it: the adapter (mcp_routes.h) hands it the method, headers and
// body of an authenticated request and sends back what it answers.
//
// Two eras on one endpoint, chosen by how the client opens:
//  - initialize (revisions 2025-11-25, 2025-06-18, 2025-03-26): the client's
//    revision when cilia speaks it, else the newest; a session id
//    (Mcp-Session-Id) issued then and required after it, bound to the key;
//    MCP-Protocol-Version checked against the session; DELETE ends it;
//    batches only in 2025-03-26;
//  - a request whose params._meta names "io.modelcontextprotocol/
//    protocolVersion" (2026-07-28, stateless): no session; the
//    MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must match the
//    body (-32020 otherwise); server/discover; results carry resultType.
// A notification or a client's response is answered 202; GET is 405 (cilia
// opens no server-to-client stream); a request is answered as JSON, or as one
// SSE event when the client accepts only text/event-stream; a body over the
// limit is a 413. An Origin header
// that is not a loopback origin or one of server.cors_origins is a 403 (DNS
// rebinding). Nothing a client sends is answered with a 5xx.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "api/auth.h"
#include "api/mcp/jsonrpc.h"
#include "api/mcp/session_store.h"
#include "api/mcp/tool_registry.h"
#include "memory/registry.h"

namespace cilia::api::mcp {

inline constexpr const char* kStatelessRevision = "2026-07-28";
inline constexpr const char* kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kClientInfoMetaKey = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kClientCapabilitiesMetaKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kServerInfoMetaKey = "io.modelcontextprotocol/serverInfo";

// The initialize-era revisions cilia speaks, newest first.
const std::vector<std::string>& SessionRevisions();
// Every revision, newest first (what an UnsupportedProtocolVersionError lists).
const std::vector<std::string>& AllRevisions();

struct McpRequest {
  std::string method;  // GET, POST, DELETE, ...
  std::function<std::string(std::string_view name)> header;  // "" when absent; names are case-insensitive
  std::string body;
};

struct McpReply {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;  // empty: no body
  std::string body;
};

struct EndpointOptions {
  ParseLimits limits;
  // A POST body past this is a 413: tool calls are small, and the server's
  // own limit (server.max_body_mb) is sized for imports.
  size_t max_body_bytes = size_t{8} << 20;
  std::vector<std::string> allowed_origins;  // exact origins, or "*"; loopback origins always pass
};

class Endpoint {
 public:
  Endpoint(memory::Registry& registry, const ToolRegistry& tools, SessionStore& sessions, EndpointOptions options);

  McpReply Serve(const McpRequest& request, const Principal& who);

 private:
  McpReply ServePost(const McpRequest& request, const Principal& who);
  McpReply ServeDelete(const McpRequest& request, const Principal& who);
  McpReply ServeBatch(const McpRequest& request, const Principal& who, const ParsedBody& parsed);
  McpReply Initialize(const McpRequest& request, const Principal& who, const RpcMessage& message);
  McpReply ServeStateless(const McpRequest& request, const Principal& who, const RpcMessage& message);
  // One message of a session; nullopt for a notification or response.
  std::optional<nlohmann::json> ServeInSession(const Session& session, const Principal& who, const RpcMessage& message);
  // tools/list and tools/call, alike in both eras: the result, or an error.
  std::variant<nlohmann::json, RpcError> ServeTools(const Principal& who, const RpcMessage& message,
                                                    const std::string& client_name, ToolShape shape);
  bool OriginAllowed(const std::string& origin) const;

  memory::Registry& registry_;
  const ToolRegistry& tools_;
  SessionStore& sessions_;
  EndpointOptions options_;
};

// What cilia tells a model about itself at initialize and server/discover.
const char* ServerInstructions();

}  // namespace cilia::api::mcp
