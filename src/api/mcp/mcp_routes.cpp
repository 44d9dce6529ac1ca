#include "api/mcp/mcp_routes.h"

#include "api/mcp/curation_tools.h"
#include "api/mcp/memory_tools.h"

namespace cilia::api::mcp {

namespace {

// Sessions kept at once and how long an idle one lives: a client that
// comes back after a day initializes again.
constexpr size_t kMaxSessions = 10'000;
constexpr std::chrono::hours kSessionIdle{24};
constexpr size_t kMaxBodyBytes = size_t{8} << 20;

ToolRegistry AllTools(const memory::Registry& registry) {
  ToolRegistry tools;
  AddMemoryTools(tools, registry);
  AddCurationTools(tools);
  return tools;
}

}  // namespace

McpService::McpService(memory::Registry& registry, const ServerConfig& server)
    : tools_(AllTools(registry)),
      sessions_(kMaxSessions, kSessionIdle),
      endpoint_(registry, tools_, sessions_, EndpointOptions{ParseLimits{}, kMaxBodyBytes, server.cors_origins}) {}

void RegisterMcpRoutes(ApiServer& server, McpService& mcp) {
  for (const char* method : {"POST", "GET", "DELETE"}) {
    server.Handle(
        method, "/mcp", Scope::kMemoryRead,
        [&mcp](const Request& request) -> Result<Reply> {
          McpRequest exchange{request.http.method,
                              [&request](std::string_view name) { return request.http.get_header_value(std::string(name)); },
                              std::string(request.body)};
          McpReply answer = mcp.endpoint().Serve(exchange, request.who);
          Reply reply = Reply::Text(std::move(answer.body), std::move(answer.content_type), answer.status);
          for (auto& [name, value] : answer.headers) reply.headers.emplace(std::move(name), std::move(value));
          return reply;
        },
        ErrorStyle::kJsonRpc, /*allow_query_token=*/true);
  }
}

}  // namespace cilia::api::mcp
