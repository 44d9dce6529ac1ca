#include "api/responses_routes.h"

#include <string>

namespace cilia::api {
namespace {

void Answer(httplib::Response& res, const Result<nlohmann::json>& out) {
  if (!out.ok()) return ReplyError(res, out.status());
  ReplyJson(res, 200, *out);
}

}  // namespace

void RegisterResponsesRoutes(ApiServer& server, gateway::ChatService& service) {
  constexpr const char* kOne = R"(/v1/responses/([^/]+))";
  server.Handle("GET", kOne, Scope::kChat,
                [&service](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  Answer(res, service.GetResponse(who.name_space, req.matches[1]));
                });
  server.Handle("DELETE", kOne, Scope::kChat,
                [&service](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  Answer(res, service.DeleteResponse(who.name_space, req.matches[1]));
                });
  server.Handle("POST", R"(/v1/responses/([^/]+)/cancel)", Scope::kChat,
                [&service](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto found = service.GetResponse(who.name_space, req.matches[1]);
                  if (!found.ok()) return ReplyError(res, found.status());
                  ReplyError(res, Status::InvalidArgument("only background responses can be cancelled; cilia answers "
                                                          "every response while the request is open"));
                });
}

}  // namespace cilia::api
