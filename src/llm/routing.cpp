#include "llm/routing.h"

#include <fmt/format.h>

#include <algorithm>

namespace cilia::llm {
namespace {

// "<provider>/<id>" of a configured target; `key` names the setting in errors.
Result<Route> TargetRoute(const Config& config, const std::string& target, std::string_view key) {
  const size_t slash = target.find('/');
  if (target.empty()) return Status::InvalidArgument(fmt::format("{} is not configured", key));
  if (slash == std::string::npos || slash == 0 || slash + 1 == target.size()) {
    return Status::InvalidArgument(fmt::format("{} = \"{}\" is not \"<provider>/<model id>\"", key, target));
  }
  const ProviderConfig* provider = config.FindProvider(std::string_view(target).substr(0, slash));
  if (provider == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{} = \"{}\" names provider \"{}\", which is not defined", key, target, target.substr(0, slash)));
  }
  return Route{provider, target.substr(slash + 1)};
}

std::string KnownModels(const Config& config) {
  std::vector<std::string> names = {config.models.public_name};
  for (const auto& [alias, target] : config.models.aliases) names.push_back(alias);
  for (const ProviderConfig& provider : config.providers) names.push_back(provider.name + "/…");
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

Result<Route> ResolveModel(const Config& config, std::string_view requested) {
  if (!requested.empty() && requested == config.models.public_name) {
    return TargetRoute(config, config.models.chat, "models.chat");
  }
  // Aliases are looked at before the provider split: an alias may contain "/".
  if (auto alias = config.models.aliases.find(std::string(requested)); alias != config.models.aliases.end()) {
    return TargetRoute(config, alias->second, "models.aliases." + alias->first);
  }
  const size_t slash = requested.find('/');
  if (slash != std::string_view::npos && slash + 1 < requested.size()) {
    if (const ProviderConfig* provider = config.FindProvider(requested.substr(0, slash))) {
      return Route{provider, std::string(requested.substr(slash + 1))};
    }
  }
  return Status::InvalidArgument(fmt::format("unknown model \"{}\"; models here: {}", requested, KnownModels(config)));
}

Result<Route> VisionRoute(const Config& config) {
  CILIA_ASSIGN_OR_RETURN(Route route, TargetRoute(config, config.models.vision, "models.vision"));
  route.vision = true;
  return route;
}

std::vector<std::string> ListedModels(const Config& config) {
  std::vector<std::string> listed;
  auto add = [&listed](const std::string& name) {
    if (!name.empty() && std::find(listed.begin(), listed.end(), name) == listed.end()) listed.push_back(name);
  };
  add(config.models.public_name);
  for (const auto& [alias, target] : config.models.aliases) add(alias);  // std::map: sorted
  for (const std::string* target : {&config.models.chat, &config.models.extract, &config.models.vision}) add(*target);
  return listed;
}

}  // namespace cilia::llm
