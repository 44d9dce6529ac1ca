// L1 excerpts over HTTP (CONTRACT.md "Memories"; docs/api.md):
//   GET    /v1/memories?status=active&limit=100&cursor=&fact_key=  (memory:read)
//          -> {"memories": [...], "next_cursor": "<opaque>" | null}, newest first;
//          status is active (default), superseded, archived or all
//   POST   /v1/memories            (memory:write) a new excerpt; with a fact_key
//          held by an active excerpt, that one is updated -> {"memory", "created"}
//          (201 when created); without a quote, the content is first stored as a
//          note message that the excerpt quotes (source owner for an admin key)
//   GET    /v1/memories/{id}       (memory:read)
//   PATCH  /v1/memories/{id}       (memory:write) content, quote, type, fact_key,
//          confidence, importance, valid_from, valid_to
//   DELETE /v1/memories/{id}       (memory:write) -> {"deleted": true, "id"}
//   POST   /v1/memories/{id}/supersede  (memory:write) {"by": "x_.."} or a new
//          excerpt's body -> {"memory": the superseded one, "by": the new one}
//   POST   /v1/memories/{id}/revive|archive|pin|unpin  (memory:write) -> the memory
//   GET    /v1/memories/{id}/history    (memory:read) -> {"id", "history": [{at, who, action, old, new}]}
// A caller with the admin scope writes as the owner, any other as an agent:
// an agent may not change what the owner wrote (409 with the reason).
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "memory/registry.h"
#include "memory/excerpts/excerpts.h"
#include "store/excerpt_repo.h"

namespace cilia::api {

// The owner for an admin key, else an agent.
memory::Author AuthorOf(const Principal& who);

// ?limit= (1..1000, default 100) and ?cursor= (a next_cursor given before).
Result<store::PageRequest> PageParams(const httplib::Request& req);
// A page of `limit` after `cursor` ("" for the first page; else a next_cursor
// given before); the cursor's error names it. REST and MCP alike.
Result<store::PageRequest> PageOf(int limit, std::string_view cursor);
// The next page's cursor after `last_id` when the page was full, else null.
nlohmann::json NextCursor(size_t returned, const store::PageRequest& page, int64_t last_id);

void RegisterExcerptRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
