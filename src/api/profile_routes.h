// The L2 profile over HTTP (CONTRACT.md "Profile"):
//   GET    /v1/profile         (memory:read)  -> {"documents": [{name, content, updated_at}]}, by name
//   GET    /v1/profile/{name}  (memory:read)  -> the document, or 404
//   PUT    /v1/profile/{name}  (memory:write) {"content": "<markdown>"} -> the document
//   DELETE /v1/profile/{name}  (memory:write) -> {"deleted": true, "name"}, or 404
//   GET    /v1/profile/{name}/versions (memory:read) -> {"name", "versions": [{id, content, updated_at}]},
//          newest first: what every PUT that changed it and every DELETE replaced
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "memory/registry.h"
#include "store/profile_repo.h"

namespace cilia::api {

// {"name", "content", "updated_at" (RFC 3339 UTC)}.
nlohmann::json ProfileDocumentJson(const store::ProfileDocument& document);

void RegisterProfileRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
