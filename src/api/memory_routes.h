// The memory REST API (CONTRACT.md): ingest, conversations and messages,
// forget, recall and search.
#pragma once

#include "api/server.h"
#include "memory/registry.h"

namespace cilia::api {

void RegisterMemoryRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
