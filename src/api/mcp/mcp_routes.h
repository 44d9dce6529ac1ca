// /mcp in `cilia serve` (docs/mcp.md): the MCP service — every tool, the
// session store and the endpoint — and its routes on the ApiServer. POST,
// GET and DELETE /mcp need a key with memory:read, given as Authorization:
// Bearer, x-api-key or ?token= (for clients that take only a URL; the access
// log never shows the query). What the server answers before the endpoint
// (no key or a wrong one: 401 with WWW-Authenticate, before any session
// exists; a body over the limit) is shaped as JSON-RPC errors.
#pragma once

#include "api/mcp/endpoint.h"
#include "api/mcp/session_store.h"
#include "api/mcp/tool_registry.h"
#include "api/server.h"
#include "core/config.h"
#include "memory/registry.h"

namespace cilia::api::mcp {

class McpService {
 public:
  McpService(memory::Registry& registry, const ServerConfig& server);
  McpService(const McpService&) = delete;
  McpService& operator=(const McpService&) = delete;

  Endpoint& endpoint() { return endpoint_; }
  const ToolRegistry& tools() const { return tools_; }

 private:
  ToolRegistry tools_;
  SessionStore sessions_;
  Endpoint endpoint_;
};

void RegisterMcpRoutes(ApiServer& server, McpService& mcp);

}  // namespace cilia::api::mcp
