// Model routing: which provider and model id a client's `model` field means.
// The rules are the contract's ("Model routing" in CONTRACT.md); see
// docs/upstreams.md for how clients with their own model ids are mapped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "core/status.h"

namespace cilia::llm {

struct Route {
  const ProviderConfig* provider = nullptr;  // points into the Config; lives as long as it
  std::string model;                         // the id the provider knows, may contain "/"
  bool vision = false;                       // the route is models.vision
};

// The public name → models.chat; an alias → where it points;
// "<provider>/<id>" (split at the first "/") → that provider with model <id>.
// Anything else is InvalidArgument naming the models that exist.
Result<Route> ResolveModel(const Config& config, std::string_view requested);

// models.vision, for requests whose images the chat model cannot see.
Result<Route> VisionRoute(const Config& config);

// What GET /v1/models lists, without duplicates: the public name, the aliases
// (sorted), then the configured targets as "<provider>/<id>".
std::vector<std::string> ListedModels(const Config& config);

}  // namespace cilia::llm
