// GET /openapi.json: the OpenAPI 3.1 description of the REST API
// (docs/openapi.json, compiled into the binary by cmake/embed.cmake), with
// info.version set to the binary's version so that no second version string
// is kept by hand. Public: it holds no data. tests/unit/api/routes_test.cpp
// checks that it describes every route RegisterRoutes adds, and nothing else.
#pragma once

#include <nlohmann/json.hpp>

#include "api/server.h"
#include "core/status.h"

namespace cilia::api {

// The embedded document, parsed, with info.version = kVersion.
Result<nlohmann::json> OpenApiDocument();

void RegisterOpenApiRoute(ApiServer& server);

}  // namespace cilia::api
