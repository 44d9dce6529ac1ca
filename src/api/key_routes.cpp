#include "api/key_routes.h"

#include <fmt/format.h>

#include "core/json_read.h"
#include "core/json_write.h"
#include "core/time.h"

namespace cilia::api {

namespace {

using nlohmann::json;

// "scopes" as an array of names or one comma-separated string.
Result<uint32_t> ScopesField(const json& body) {
  auto it = body.find("scopes");
  if (it == body.end() || it->is_null()) {
    return cilia::json::FieldError("scopes", "is required (chat, memory:read, memory:write, admin)");
  }
  if (it->is_string()) return ParseScopeList(it->get<std::string>());
  CILIA_ASSIGN_OR_RETURN(std::vector<std::string> names, cilia::json::OptionalStringArray(body, "scopes", ""));
  if (names.empty()) return cilia::json::FieldError("scopes", "must name at least one scope");
  uint32_t scopes = 0;
  for (const std::string& name : names) {
    CILIA_ASSIGN_OR_RETURN(Scope scope, ParseScope(name));
    scopes |= ScopeBit(scope);
  }
  return scopes;
}

}  // namespace

json KeyJson(const store::ApiKeyInfo& key) {
  auto rfc3339 = [](UnixMs t) { return FormatRfc3339(t); };
  return {{"id", key.id},
          {"name", key.name},
          {"namespace", key.name_space},
          {"scopes", key.scopes},
          {"features", store::FeatureOverridesToJson(key.features)},
          {"created_at", FormatRfc3339(key.created_at)},
          {"last_used_at", OrNull(key.last_used_at, rfc3339)},
          {"revoked_at", OrNull(key.revoked_at, rfc3339)}};
}

void RegisterKeyRoutes(ApiServer& server, store::KeyStore& keys) {
  server.Handle("GET", "/v1/keys", Scope::kAdmin,
                [&keys](const Request& req) -> Result<Reply> {
                  json list = json::array();
                  for (const store::ApiKeyInfo& key : keys.List()) {
                    if (key.name_space == req.who.name_space) list.push_back(KeyJson(key));
                  }
                  return Reply::Json({{"keys", std::move(list)}});
                });

  server.Handle("POST", "/v1/keys", Scope::kAdmin,
                [&keys](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
                  CILIA_ASSIGN_OR_RETURN(const uint32_t scopes, ScopesField(body));
                  CILIA_ASSIGN_OR_RETURN(std::string name, cilia::json::OptionalString(body, "name", ""));
                  store::FeatureOverrides features;
                  if (auto field = body.find("features"); field != body.end()) {
                    CILIA_ASSIGN_OR_RETURN(features, store::FeatureOverridesFromJson(*field));
                  }
                  CILIA_ASSIGN_OR_RETURN(auto created, keys.Create(name, req.who.name_space, ScopeNames(scopes), features));
                  json reply = KeyJson(created.info);
                  reply["key"] = created.secret;
                  return Reply::Json(reply);
                });

  server.Handle("DELETE", R"(/v1/keys/([^/]+))", Scope::kAdmin,
                [&keys](const Request& req) -> Result<Reply> {
                  const std::string& id = req.captures[0];
                  auto key = keys.Get(id);
                  // Another namespace's key is as absent as one that never was.
                  if (!key.ok() || key->name_space != req.who.name_space) {
                    return Status::NotFound(fmt::format("no key with id \"{}\"", id));
                  }
                  CILIA_RETURN_IF_ERROR(keys.Revoke(id));
                  return Reply::Json({{"id", id}, {"revoked", true}});
                });
}

}  // namespace cilia::api
