// The Responses API's routes besides POST /v1/responses (which is a chat
// route, api/chat_routes.h), over the responses the gateway keeps
// (gateway/response_store.h):
//   GET    /v1/responses/{id}          the Response object
//   DELETE /v1/responses/{id}          forgets it: {id, object, deleted}
//   POST   /v1/responses/{id}/cancel   400: only background responses can be
//                                      cancelled, and cilia runs none
// An id the namespace does not hold is a 404. Errors are OpenAI-shaped.
#pragma once

#include "api/server.h"
#include "gateway/chat_service.h"

namespace cilia::api {

void RegisterResponsesRoutes(ApiServer& server, gateway::ChatService& service);

}  // namespace cilia::api
