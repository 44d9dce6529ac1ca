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

// The public name → models.chat; an exact alias → where it points;
// "<provider>/<id>" (split at the first "/") → that provider with model <id>;
// an alias pattern ("claude-*": `*` is any run of characters) that matches →
// where it points, the most specific match winning (see AliasPatternMatch);
// anything else → models.fallback when it is set, else InvalidArgument naming
// the models that exist.
Result<Route> ResolveModel(const Config& config, std::string_view requested);

// Whether `name` matches the alias pattern (`*`: any run of characters, none
// included; every other character stands for itself).
bool MatchesAliasPattern(std::string_view pattern, std::string_view name);

// The key of the alias pattern that routes `name`, or nullptr when none
// matches. Of several, the most specific: the most literal (non-`*`)
// characters, then the fewer `*`, then the first by byte order — so
// "claude-*-haiku-*" wins over "claude-*", and "*" over nothing.
const std::string* AliasPatternMatch(const ModelsConfig& models, std::string_view name);

// models.vision, for requests whose images the chat model cannot see.
Result<Route> VisionRoute(const Config& config);

// What GET /v1/models lists, without duplicates: the public name, the exact
// aliases (sorted; patterns are no model ids), then the configured targets
// as "<provider>/<id>" (chat, extract, vision, fallback).
std::vector<std::string> ListedModels(const Config& config);

}  // namespace cilia::llm
