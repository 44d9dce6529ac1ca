#include "api/profile_routes.h"

#include <fmt/format.h>

#include "api/route_support.h"
#include "core/json_read.h"
#include "memory/recall/profile.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr const char* kDocumentPath = R"(/v1/profile/([^/]+))";

Status NoSuchDocument(const std::string& name) {
  return Status::NotFound(fmt::format("no profile document \"{}\"", name));
}

// The "content" of a PUT body.
Result<std::string> ContentField(const Request& req) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
  // An empty document is a document; only a missing one is refused.
  if (!body.contains("content") || body["content"].is_null()) {
    return cilia::json::FieldError("content", "is required: the document's markdown");
  }
  return cilia::json::OptionalString(body, "content", "");
}

}  // namespace

json ProfileDocumentJson(const store::ProfileDocument& document) {
  return {{"name", document.name}, {"content", document.content}, {"updated_at", FormatRfc3339(document.updated_at)}};
}

void RegisterProfileRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/profile", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto documents, memory::ListProfile(ns));
                    json list = json::array();
                    for (const store::ProfileDocument& document : documents)
                      list.push_back(ProfileDocumentJson(document));
                    return json{{"documents", std::move(list)}};
                  });
                });

  server.Handle("GET", kDocumentPath, Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& name = req.captures[0];
                  CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto document, memory::FindProfileDocument(ns, name));
                    if (!document) return NoSuchDocument(name);
                    return ProfileDocumentJson(*document);
                  });
                });

  server.Handle("PUT", kDocumentPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& name = req.captures[0];
                  CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
                  CILIA_ASSIGN_OR_RETURN(std::string content, ContentField(req));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto document, memory::PutProfileDocument(ns, name, std::move(content)));
                    return ProfileDocumentJson(document);
                  });
                });

  server.Handle("GET", R"(/v1/profile/([^/]+)/versions)", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& name = req.captures[0];
                  CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto versions, memory::ProfileVersions(ns, name));
                    json list = json::array();
                    for (const store::ProfileVersion& v : versions) {
                      list.push_back({{"id", v.id}, {"content", v.content}, {"updated_at", FormatRfc3339(v.updated_at)}});
                    }
                    return json{{"name", name}, {"versions", std::move(list)}};
                  });
                });

  server.Handle("DELETE", kDocumentPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& name = req.captures[0];
                  CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(bool deleted, memory::DeleteProfileDocument(ns, name));
                    if (!deleted) return NoSuchDocument(name);
                    return json{{"deleted", true}, {"name", name}};
                  });
                });
}

}  // namespace cilia::api
