// The MCP tools over what the owner curates and the nightly job writes
// (docs/mcp.md): glossary_set, profile_get, profile_set, digest_get,
// candidates_list, candidate_review. Each reads and writes what its REST
// route does, so the REST API and the admin page show the same.
#pragma once

#include "api/mcp/tool_registry.h"

namespace cilia::api::mcp {

void AddCurationTools(ToolRegistry& tools);

}  // namespace cilia::api::mcp
