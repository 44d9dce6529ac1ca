// cilia: one binary, one subcommand per job (CONTRACT.md "Binary and commands").
#include <cstdio>
#include <map>
#include <string>

#include "app/command_line.h"
#include "app/commands.h"

int main(int argc, char** argv) {
  using namespace cilia::app;
  static const std::map<std::string, int (*)(const CommandLine&), std::less<>> kCommands = {
      {"serve", RunServe},   {"ingest", RunIngest}, {"recall", RunRecall}, {"search", RunSearch},
      {"export", RunExport}, {"import", RunImport}, {"jobs", RunJobs},     {"keys", RunKeys},
      {"doctor", RunDoctor}, {"version", RunVersion}, {"migrate", RunMigrate},
  };
  auto command_line = ParseCommandLine(argc, argv);
  if (!command_line.ok()) {
    std::fprintf(stderr, "cilia: %s\n\n%s", command_line.status().message().c_str(),
                 UsageForArguments(argc, argv).c_str());
    return kExitUsage;
  }
  if (command_line->command == kHelpCommand) {
    const auto& topic = command_line->positional;
    std::fputs((topic.empty() ? UsageText() : CommandUsageText(topic.front())).c_str(), stdout);
    return kExitOk;
  }
  if (command_line->Has("help")) {
    std::fputs(CommandUsageText(command_line->command).c_str(), stdout);
    return kExitOk;
  }
  auto command = kCommands.find(command_line->command);
  if (command == kCommands.end()) {
    std::fprintf(stderr, "cilia: %s is not available in this build\n", command_line->command.c_str());
    return kExitUsage;
  }
  return command->second(*command_line);
}
