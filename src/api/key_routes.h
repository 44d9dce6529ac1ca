// API keys over HTTP (admin scope), for while `cilia serve` holds the data dir
// and `cilia keys` cannot write. A key manages only keys of its own namespace.
//   GET    /v1/keys           -> {"keys": [{id, name, namespace, scopes, features, created_at, last_used_at, revoked_at}]}
//   POST   /v1/keys           {"scopes": ["chat", …] or "chat,…", "name": "…", "features": {"memory": false, …}}
//                             -> the key's fields and "key", shown once
//   DELETE /v1/keys/{id}      -> {"id": "…", "revoked": true}
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "store/key_store.h"

namespace cilia::api {

// A key's public fields (never the key itself), times in RFC 3339 UTC;
// "features" holds only the switches the key sets.
nlohmann::json KeyJson(const store::ApiKeyInfo& key);

void RegisterKeyRoutes(ApiServer& server, store::KeyStore& keys);

}  // namespace cilia::api
