// The background jobs over HTTP (admin):
//   GET  /v1/jobs?job=&limit=50&cursor=  -> {"runs": [run], "next_cursor", "failed_items": [...]}
//   POST /v1/jobs/{job}/run              -> the run (extract, nightly, retention, reindex), run now
// A run: {"id", "job", "namespace", "started_by", "started_at", "ended_at"
// (null while running), "outcome", "error", "items", "detail"}. A job that
// failed is still a 200 with outcome "failed"; see docs/upkeep.md.
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "memory/registry.h"
#include "store/job_run_repo.h"

namespace cilia::api {

nlohmann::json JobRunJson(const store::JobRun& run);

void RegisterJobRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
