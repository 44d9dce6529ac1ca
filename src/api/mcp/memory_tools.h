// The MCP tools over the archive and the L1 memories (docs/mcp.md):
// memory_search, memory_recall, memory_get, memory_list, memory_upsert,
// memory_supersede, memory_archive, memory_delete, memory_pin,
// memory_ingest, memory_boot, memory_export. Each calls the memory/ function
// its REST route calls, so what a tool changes is what the REST API and the
// admin page show.
#pragma once

#include "api/mcp/tool_registry.h"
#include "memory/registry.h"

namespace cilia::api::mcp {

void AddMemoryTools(ToolRegistry& tools, const memory::Registry& registry);

}  // namespace cilia::api::mcp
