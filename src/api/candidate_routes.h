// The candidates queue over HTTP (docs/api.md):
//   GET  /v1/candidates?status=pending&limit=100&cursor=  (memory:read)
//        -> {"candidates": [...], "next_cursor"}; status pending (default),
//        approved, discarded, merged or all
//   POST /v1/candidates/{id}/approve    (memory:write) -> {"candidate", "memory"}
//        409 when it would overwrite an excerpt the owner wrote
//   POST /v1/candidates/{id}/discard    (memory:write) -> {"candidate"}
//   POST /v1/candidates/{id}/merge      (memory:write) {"target_id": "x_.."} -> {"candidate", "memory"}
//   POST /v1/candidates/{id}/supersede  (memory:write) {"target_id": "x_.."} -> {"candidate", "memory"}
#pragma once

#include "api/server.h"
#include "memory/registry.h"

namespace cilia::api {

void RegisterCandidateRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
