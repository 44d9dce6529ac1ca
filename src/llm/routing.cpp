#include "llm/routing.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

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

bool IsPattern(std::string_view alias) { return alias.find('*') != std::string_view::npos; }

std::string KnownModels(const Config& config) {
  std::vector<std::string> names = {config.models.public_name};
  for (const auto& [alias, target] : config.models.aliases) names.push_back(alias);
  for (const ProviderConfig& provider : config.providers) names.push_back(provider.name + "/…");
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

bool MatchesAliasPattern(std::string_view pattern, std::string_view name) {
  // Greedy with backtracking to the last `*`: linear in practice, never exponential.
  size_t p = 0, n = 0, star = std::string_view::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

const std::string* AliasPatternMatch(const ModelsConfig& models, std::string_view name) {
  const std::string* best = nullptr;
  auto specificity = [](const std::string& pattern) {
    const auto stars = static_cast<long>(std::count(pattern.begin(), pattern.end(), '*'));
    return std::pair{static_cast<long>(pattern.size()) - stars, -stars};
  };
  for (const auto& [alias, target] : models.aliases) {  // std::map: byte order, so ties go to the first
    if (!IsPattern(alias) || !MatchesAliasPattern(alias, name)) continue;
    if (best == nullptr || specificity(alias) > specificity(*best)) best = &alias;
  }
  return best;
}

Result<Route> ResolveModel(const Config& config, std::string_view requested) {
  const ModelsConfig& models = config.models;
  if (!requested.empty() && requested == models.public_name) {
    return TargetRoute(config, models.chat, "models.chat");
  }
  // Aliases are looked at before the provider split: an alias may contain "/".
  if (auto alias = models.aliases.find(std::string(requested)); alias != models.aliases.end()) {
    return TargetRoute(config, alias->second, "models.aliases." + alias->first);
  }
  const size_t slash = requested.find('/');
  if (slash != std::string_view::npos && slash + 1 < requested.size()) {
    if (const ProviderConfig* provider = config.FindProvider(requested.substr(0, slash))) {
      return Route{provider, std::string(requested.substr(slash + 1))};
    }
  }
  // Patterns after the explicit forms: clients such as Claude Code send ids
  // that change every few months, and one pattern keeps routing them.
  if (const std::string* pattern = AliasPatternMatch(models, requested)) {
    return TargetRoute(config, models.aliases.at(*pattern), "models.aliases." + *pattern);
  }
  if (!models.fallback.empty()) return TargetRoute(config, models.fallback, "models.fallback");
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
  for (const auto& [alias, target] : config.models.aliases) {  // std::map: sorted
    if (!IsPattern(alias)) add(alias);
  }
  for (const std::string* target :
       {&config.models.chat, &config.models.extract, &config.models.vision, &config.models.fallback}) {
    add(*target);
  }
  return listed;
}

}  // namespace cilia::llm
