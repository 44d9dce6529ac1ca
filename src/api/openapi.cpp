#include "api/openapi.h"

#include "api/admin_assets.h"
#include "core/version.h"

namespace cilia::api {

Result<nlohmann::json> OpenApiDocument() {
  if (kOpenApiFileCount != 1) return Status::Internal("the binary carries no OpenAPI description");
  const AdminAsset& file = kOpenApiFiles[0];
  nlohmann::json document =
      nlohmann::json::parse(file.data, file.data + file.size, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return Status::Internal("the embedded OpenAPI description is not a JSON object");
  document["info"]["version"] = kVersion;
  return document;
}

void RegisterOpenApiRoute(ApiServer& server) {
  // Rendered once: the document is the same for the life of the binary.
  server.HandlePublic("GET", "/openapi.json", [](const Request&) -> Result<Reply> {
    static const Result<std::string> kText = []() -> Result<std::string> {
      CILIA_ASSIGN_OR_RETURN(nlohmann::json document, OpenApiDocument());
      return document.dump(2);
    }();
    if (!kText.ok()) return kText.status();
    return Reply::Text(*kText, "application/json");
  });
}

}  // namespace cilia::api
