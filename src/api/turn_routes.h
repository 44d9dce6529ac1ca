// The gateway's per-turn records and usage over HTTP:
//   GET /v1/turns?conversation_id=&limit=50&cursor=  (memory:read)
//       -> {"turns": [TurnJson…], "next_cursor"}, newest first
//   GET /v1/stats/cache?days=30                      (admin)
//       -> {"first_day", "days": [{day, model, requests, input_tokens, output_tokens,
//                                  cache_read_tokens, cache_write_tokens, hit_rate}]}
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "core/time.h"
#include "memory/registry.h"
#include "store/turn_repo.h"

namespace cilia::api {

// Every field of the record; started_at in RFC 3339 at the owner's offset;
// conversation_id and error null when empty, first_byte_ms null when no byte
// reached the client; sources as [{"conversation_id", "message_id"}].
nlohmann::json TurnJson(const store::TurnRecord& turn, const TimeZone& tz);

void RegisterTurnRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
