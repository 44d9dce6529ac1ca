// The admin page (web/admin/, docs/admin.md) and the endpoints it needs that
// the rest of the REST API does not have:
//   GET  /admin, /admin/{file}   the page's files, compiled in; no key; ETag and 304
//   GET  /v1/whoami      (any valid key) -> {"key_id", "namespace", "scopes"}: what the page may show
//   GET  /v1/export      (admin) -> the namespace as JSON Lines, as `cilia export` writes it
//   POST /v1/import      (admin): registered from here, see import_routes.h
//   GET  /v1/timeline    (memory:read) -> {"days": [{"day", "messages"}]}: days with messages,
//                        in the owner's zone, oldest first
//   GET  /v1/timeline/{day} (memory:read) -> {"day", "conversations": [{"id", "title",
//                        "messages", "first_message_id", "first_at"}]}
//   GET  /v1/settings    (admin) -> the config with secrets masked, the embedder, index health
//   GET  /v1/stats/usage?days=30 (admin) -> per local day and upstream model: requests,
//                        failures, tokens, hit rate, recall rounds, latency, cost ([[prices]])
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/admin_assets.h"
#include "api/server.h"
#include "core/config.h"
#include "memory/registry.h"
#include "memory/turns.h"

namespace cilia::api {

// The page's file at `path` under /admin/ ("" is index.html), or nullptr.
const AdminAsset* FindAdminAsset(std::string_view path);
// "text/javascript; charset=utf-8" and the like, from the file's extension.
const char* AdminContentType(std::string_view path);

// What the server runs with, for the settings view: every section of the
// config, provider keys shown only as whether they are set, a URL's
// user:password masked, CILIA_API_KEY never.
nlohmann::json SettingsConfigJson(const Config& config);

// The cost of a day's usage under `price`, in its currency; nullopt without a price.
std::optional<double> UsageCost(const memory::TurnUsage& usage, const PriceConfig* price);

void RegisterAdminRoutes(ApiServer& server, memory::Registry& registry);

}  // namespace cilia::api
