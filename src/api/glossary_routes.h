// The glossary, precious passages and the boot pack over HTTP:
//   GET    /v1/glossary         (memory:read)  -> {"terms": [entry]}, by term
//   GET    /v1/glossary/{term}  (memory:read)  -> the entry, or 404
//   PUT    /v1/glossary/{term}  (memory:write) {"definition", "aliases": [..]?} -> the entry
//   DELETE /v1/glossary/{term}  (memory:write) -> {"deleted": true, "term"}, or 404
//   GET    /v1/precious         (memory:read)  -> {"precious": [passage]}, oldest first
//   POST   /v1/precious         (memory:write) {"conversation_id", "message_ids": [..],
//                                "content"?, "author"?} -> 201 and the passage (append-only)
//   GET    /v1/boot             (memory:read)  -> the boot pack (memory/boot.h)
// Shapes are memory::GlossaryJson, PreciousJson and BootPack.
#pragma once

#include "api/server.h"
#include "memory/registry.h"

namespace cilia::api {

void RegisterGlossaryRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
