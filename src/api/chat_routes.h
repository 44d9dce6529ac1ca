// The chat endpoints (CONTRACT.md "Chat"), a thin adapter over
// gateway::ChatService:
//   POST /v1/chat/completions             OpenAI Chat Completions, streaming or not
//   POST /v1/messages                     Anthropic Messages, streaming or not
//   POST /v1/guide-dog/chat/completions   images described by models.vision; no memory
//   POST /v1/responses                    OpenAI Responses, streaming or not (responses_routes.h
//                                         has the routes that read kept responses)
//   GET  /v1/models                       the public name, aliases and targets
// A stream runs on the executor `serve` owns (503 in the client's shape when
// it is full) and hands its bytes to the connection's thread through a queue, so that an upstream refusal before the first byte
// still answers with the upstream's status, and an idle upstream gets the
// client SSE comments every gateway.keepalive_s.
#pragma once

#include "api/server.h"
#include "core/config.h"
#include "gateway/chat_service.h"

namespace cilia::api {

void RegisterChatRoutes(ApiServer& server, gateway::ChatService& service, const Config& config);

}  // namespace cilia::api
