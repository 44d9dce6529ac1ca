#include "api/routes.h"

#include "api/admin_routes.h"
#include "api/candidate_routes.h"
#include "api/chat_routes.h"
#include "api/excerpt_routes.h"
#include "api/glossary_routes.h"
#include "api/job_routes.h"
#include "api/key_routes.h"
#include "api/memory_routes.h"
#include "api/openapi.h"
#include "api/profile_routes.h"
#include "api/responses_routes.h"
#include "api/turn_routes.h"

namespace cilia::api {

void RegisterRoutes(ApiServer& server, store::KeyStore& keys, memory::Registry& registry,
                    gateway::ChatService& chat, mcp::McpService& mcp) {
  RegisterKeyRoutes(server, keys);
  RegisterMemoryRoutes(server, registry);
  RegisterProfileRoutes(server, registry);
  RegisterTurnRoutes(server, registry);
  RegisterExcerptRoutes(server, registry);
  RegisterCandidateRoutes(server, registry);
  RegisterGlossaryRoutes(server, registry);
  RegisterJobRoutes(server, registry);
  RegisterChatRoutes(server, chat, registry.config());
  RegisterResponsesRoutes(server, chat);
  mcp::RegisterMcpRoutes(server, mcp);
  RegisterAdminRoutes(server, registry);
  RegisterOpenApiRoute(server);
}

}  // namespace cilia::api
