#include "api/responses_routes.h"

#include <string>

namespace cilia::api {

void RegisterResponsesRoutes(ApiServer& server, gateway::ChatService& service) {
  constexpr const char* kOne = R"(/v1/responses/([^/]+))";
  server.Handle("GET", kOne, Scope::kChat, [&service](const Request& req) -> Result<Reply> {
    CILIA_ASSIGN_OR_RETURN(nlohmann::json response, service.GetResponse(req.who.name_space, req.captures[0]));
    return Reply::Json(response);
  });
  server.Handle("DELETE", kOne, Scope::kChat, [&service](const Request& req) -> Result<Reply> {
    CILIA_ASSIGN_OR_RETURN(nlohmann::json deleted, service.DeleteResponse(req.who.name_space, req.captures[0]));
    return Reply::Json(deleted);
  });
  server.Handle("POST", R"(/v1/responses/([^/]+)/cancel)", Scope::kChat, [&service](const Request& req) -> Result<Reply> {
    // A response that does not exist is a 404; one that does cannot be cancelled.
    CILIA_RETURN_IF_ERROR(service.GetResponse(req.who.name_space, req.captures[0]).status());
    return Status::InvalidArgument(
        "only background responses can be cancelled; cilia answers every response while the request is open");
  });
}

}  // namespace cilia::api
