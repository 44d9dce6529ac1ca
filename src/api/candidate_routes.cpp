#include "api/candidate_routes.h"

#include <fmt/format.h>

#include "api/excerpt_routes.h"
#include "api/route_support.h"
#include "core/json_read.h"
#include "memory/excerpts/candidates.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr const char* kCandidatePath = R"(/v1/candidates/([^/]+))";

Result<json> CandidateJson(memory::Namespace& ns, int64_t id) {
  CILIA_ASSIGN_OR_RETURN(auto c, memory::Candidates(ns).Get(id));
  if (!c) return Status::NotFound(fmt::format("no candidate \"{}\"", memory::CandidatePublicId(id)));
  CILIA_ASSIGN_OR_RETURN(json list, memory::CandidateListJson(ns, {*c}));
  return list.front();
}

Result<int64_t> TargetId(const Request& req) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
  CILIA_ASSIGN_OR_RETURN(std::string target, cilia::json::RequiredString(body, "target_id", ""));
  auto id = memory::ParseExcerptId(target);
  if (!id) return cilia::json::FieldError("target_id", "the id of a memory, like x_12");
  return *id;
}

using Decision = std::function<Result<std::optional<store::ExcerptRecord>>(memory::Candidates&, int64_t,
                                                                           const Request&, memory::Author)>;

void HandleDecision(ApiServer& server, memory::Registry& registry, const char* name, Decision decide) {
  server.Handle("POST", std::string(kCandidatePath) + "/" + name, Scope::kMemoryWrite,
                [&registry, decide](const Request& req) -> Result<Reply> {
                  const std::string& raw = req.captures[0];
                  auto id = memory::ParseCandidateId(raw);
                  if (!id) return Status::NotFound(fmt::format("no candidate \"{}\" (candidate ids look like c_7)", raw));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    memory::Candidates candidates(ns);
                    CILIA_ASSIGN_OR_RETURN(auto excerpt, decide(candidates, *id, req, AuthorOf(req.who)));
                    CILIA_ASSIGN_OR_RETURN(json candidate, CandidateJson(ns, *id));
                    json out = {{"candidate", std::move(candidate)}};
                    if (excerpt) {
                      CILIA_ASSIGN_OR_RETURN(out["memory"], memory::ExcerptJson(ns, *excerpt));
                    }
                    return out;
                  });
                });
}

}  // namespace

void RegisterCandidateRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/candidates", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const auto status, store::ParseFilter<store::CandidateStatus>(
                                                                req.http.has_param("status") ? req.http.get_param_value("status") : "pending",
                                                                "status"));
                  CILIA_ASSIGN_OR_RETURN(const store::PageRequest page, PageParams(req.http));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto list, memory::Candidates(ns).List(status, page));
                    CILIA_ASSIGN_OR_RETURN(json candidates, memory::CandidateListJson(ns, list));
                    return json{{"candidates", std::move(candidates)},
                                {"next_cursor", NextCursor(list.size(), page, list.empty() ? 0 : list.back().id)}};
                  });
                });

  using Out = Result<std::optional<store::ExcerptRecord>>;
  HandleDecision(server, registry, "approve",
                 [](memory::Candidates& c, int64_t id, const Request&, memory::Author who) -> Out {
                   CILIA_ASSIGN_OR_RETURN(auto e, c.Approve(id, who));
                   return std::optional<store::ExcerptRecord>(std::move(e));
                 });
  HandleDecision(server, registry, "discard",
                 [](memory::Candidates& c, int64_t id, const Request&, memory::Author who) -> Out {
                   CILIA_RETURN_IF_ERROR(c.Discard(id, who));
                   return std::optional<store::ExcerptRecord>();
                 });
  HandleDecision(server, registry, "merge",
                 [](memory::Candidates& c, int64_t id, const Request& req, memory::Author who) -> Out {
                   CILIA_ASSIGN_OR_RETURN(int64_t target, TargetId(req));
                   CILIA_ASSIGN_OR_RETURN(auto e, c.Merge(id, target, who));
                   return std::optional<store::ExcerptRecord>(std::move(e));
                 });
  HandleDecision(server, registry, "supersede",
                 [](memory::Candidates& c, int64_t id, const Request& req, memory::Author who) -> Out {
                   CILIA_ASSIGN_OR_RETURN(int64_t target, TargetId(req));
                   CILIA_ASSIGN_OR_RETURN(auto e, c.Supersede(id, target, who));
                   return std::optional<store::ExcerptRecord>(std::move(e));
                 });
}

}  // namespace cilia::api
