// Every route `cilia serve` answers, registered in one place, so that the
// server and the test that holds docs/openapi.json against the routes
// (tests/unit/api/routes_test.cpp) see the same list.
#pragma once

#include "api/mcp/mcp_routes.h"
#include "api/server.h"
#include "gateway/chat_service.h"
#include "memory/registry.h"
#include "store/key_store.h"

namespace cilia::api {

void RegisterRoutes(ApiServer& server, store::KeyStore& keys, memory::Registry& registry,
                    gateway::ChatService& chat, mcp::McpService& mcp);

}  // namespace cilia::api
