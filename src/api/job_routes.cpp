#include "api/job_routes.h"

#include <algorithm>

#include "api/route_support.h"
#include "core/json_write.h"
#include "memory/upkeep/jobs.h"

namespace cilia::api {

namespace {

using nlohmann::json;

}  // namespace

json JobRunJson(const store::JobRun& run) {
  return {{"id", run.id},
          {"job", run.job},
          {"namespace", run.name_space},
          {"started_by", run.started_by},
          {"started_at", FormatRfc3339(run.started_at)},
          {"ended_at", OrNull(run.ended_at, [](UnixMs t) { return FormatRfc3339(t); })},
          {"outcome", run.outcome},
          {"error", run.error},
          {"items", run.items},
          {"detail", run.detail}};
}

json RunningJobJson(const memory::RunningJob& running) {
  const WorkProgress::Snapshot& p = running.progress;
  return {{"id", running.run_id},
          {"job", running.job},
          {"started_at", FormatRfc3339(running.started_at)},
          {"items_done", p.done},
          {"items_total", p.total},
          {"unit", p.unit},
          {"tokens", p.tokens},
          {"updated_at", p.updated_at > 0 ? json(FormatRfc3339(p.updated_at)) : json(nullptr)}};
}

void RegisterJobRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/jobs", Scope::kAdmin,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const int64_t limit, IntParam(req.http, "limit", 50, 1, 500));
                  CILIA_ASSIGN_OR_RETURN(const int64_t cursor, IntParam(req.http, "cursor", 0, 0, INT64_MAX));
                  std::optional<std::string> job;
                  if (req.http.has_param("job")) job = req.http.get_param_value("job");
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(
                        memory::JobHistory history,
                        memory::ListJobRuns(ns, job, cursor > 0 ? std::optional<int64_t>(cursor) : std::nullopt,
                                            static_cast<int>(limit), /*failed_limit=*/20));
                    // The background embedding is no job run: it is how far the windows have
                    // vectors of the current embedder (all of them again after a model change).
                    const size_t windows = ns.WindowCount();
                    const size_t embedded = std::min(ns.vectors().size(), windows);
                    json out = {{"runs", json::array()},
                                {"next_cursor", nullptr},
                                {"failed_items", json::array()},
                                {"running", json::array()},
                                {"embedding", {{"embedder", ns.embedder().id()},
                                               {"windows", windows},
                                               {"windows_embedded", embedded}}}};
                    for (const memory::RunningJob& running : memory::RunningJobsIn(ns)) {
                      if (!job || running.job == *job) out["running"].push_back(RunningJobJson(running));
                    }
                    for (const auto& run : history.runs) out["runs"].push_back(JobRunJson(run));
                    if (static_cast<int64_t>(history.runs.size()) == limit) {
                      out["next_cursor"] = std::to_string(history.runs.back().id);
                    }
                    for (const auto& item : history.failed_items) {
                      out["failed_items"].push_back({{"item", item.item},
                                                     {"attempts", item.attempts},
                                                     {"error", item.error},
                                                     {"updated_at", FormatRfc3339(item.updated_at)}});
                    }
                    return out;
                  });
                });

  server.Handle("POST", R"(/v1/jobs/([^/]+)/run)", Scope::kAdmin,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(auto job, memory::FindJob(registry.config(), req.captures[0]));
                  memory::JobRunOptions options;
                  CILIA_ASSIGN_OR_RETURN(options.backfill, BoolParam(req.http, "backfill", false));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto run, memory::RunJob(job, ns, registry.config(), registry.clock(),
                                                                    "manual", options));
                    return JobRunJson(run);
                  });
                });
}

}  // namespace cilia::api
