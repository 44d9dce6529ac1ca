// The background jobs over HTTP (admin):
//   GET  /v1/jobs?job=&limit=50&cursor=  -> {"runs": [run], "next_cursor", "failed_items": [...],
//                                            "running": [progress]}
//   POST /v1/jobs/{job}/run              -> the run (extract, nightly, retention, reindex), run now;
//                                           ?backfill=true (extract only): imported history too
// A run: {"id", "job", "namespace", "started_by", "started_at", "ended_at"
// (null while running), "outcome", "error", "items", "detail"}. A job that
// failed is still a 200 with outcome "failed" (or "partial" when some of
// its items failed); see docs/upkeep.md. A run in progress, under
// "running": {"id", "job", "started_at", "items_done", "items_total" (0:
// not known), "unit", "tokens", "updated_at"}.
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "memory/registry.h"
#include "memory/upkeep/jobs.h"
#include "store/job_run_repo.h"

namespace cilia::api {

nlohmann::json JobRunJson(const store::JobRun& run);
nlohmann::json RunningJobJson(const memory::RunningJob& running);

void RegisterJobRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
