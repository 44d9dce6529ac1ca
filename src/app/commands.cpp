#include "app/commands.h"

#include <cstdio>

#include "core/log.h"

namespace cilia::app {

Result<Config> LoadConfigForCommand(const CommandLine& command_line) {
  ConfigSources sources;
  sources.env = ProcessEnvironment();
  if (command_line.Has("config")) sources.file = command_line.Get("config");
  if (command_line.Has("data")) sources.data_dir = command_line.Get("data");
  if (command_line.Has("listen")) sources.listen = command_line.Get("listen");
  CILIA_ASSIGN_OR_RETURN(Config config, LoadConfig(sources));
  // LoadConfig has validated the level.
  if (auto level = ParseLogLevel(config.server.log_level); level.ok()) SetLogLevel(*level);
  AddLogSecret(config.client_api_key);
  for (const ProviderConfig& provider : config.providers) AddLogSecret(provider.api_key);
  return config;
}

int ExitWithError(const Status& status, int exit_code) {
  std::fprintf(stderr, "cilia: %s\n", RedactSecrets(status.message()).c_str());
  return exit_code;
}

int UsageError(std::string_view command, const Status& status) {
  std::fprintf(stderr, "cilia: %s\n\n%s", RedactSecrets(status.message()).c_str(), CommandUsageText(command).c_str());
  return kExitUsage;
}

std::string KeyStorePath(const Config& config) { return config.server.data_dir + "/system.db"; }

}  // namespace cilia::app
