#include "api/job_routes.h"

#include "api/route_support.h"
#include "memory/upkeep/jobs.h"
#include "store/digest_repo.h"

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
          {"ended_at", run.ended_at ? json(FormatRfc3339(*run.ended_at)) : json(nullptr)},
          {"outcome", run.outcome},
          {"error", run.error},
          {"items", run.items},
          {"detail", run.detail}};
}

void RegisterJobRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/jobs", Scope::kAdmin,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto limit = IntParam(req, "limit", 50, 1, 500);
                  if (!limit.ok()) return ReplyError(res, limit.status());
                  auto cursor = IntParam(req, "cursor", 0, 0, INT64_MAX);
                  if (!cursor.ok()) return ReplyError(res, cursor.status());
                  std::optional<std::string> job;
                  if (req.has_param("job")) job = req.get_param_value("job");
                  ReplyForNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    return ns.store().Read([&](store::Database& db) -> Result<json> {
                      CILIA_ASSIGN_OR_RETURN(auto runs, store::JobRunRepo(db).List(
                                                            job, *cursor > 0 ? std::optional<int64_t>(*cursor) : std::nullopt,
                                                            static_cast<int>(*limit)));
                      CILIA_ASSIGN_OR_RETURN(auto failed, store::DigestRepo(db).FailedItems(20));
                      json out = {{"runs", json::array()}, {"next_cursor", nullptr}, {"failed_items", json::array()}};
                      for (const auto& run : runs) out["runs"].push_back(JobRunJson(run));
                      if (static_cast<int64_t>(runs.size()) == *limit) out["next_cursor"] = std::to_string(runs.back().id);
                      for (const auto& item : failed) {
                        out["failed_items"].push_back({{"item", item.item}, {"attempts", item.attempts},
                                                       {"error", item.error},
                                                       {"updated_at", FormatRfc3339(item.updated_at)}});
                      }
                      return out;
                    });
                  });
                });

  server.Handle("POST", R"(/v1/jobs/([^/]+)/run)", Scope::kAdmin,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto job = memory::FindJob(registry.config(), std::string(req.matches[1]));
                  if (!job.ok()) return ReplyError(res, job.status());
                  ReplyForNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto run, memory::RunJob(*job, ns, registry.config(), registry.clock(), "manual"));
                    return JobRunJson(run);
                  });
                });
}

}  // namespace cilia::api
