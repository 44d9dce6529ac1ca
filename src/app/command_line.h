// The command line: `cilia <command> [positional…] [--flag value | --flag=value | --switch]`.
// Flags and positional arguments may come in any order; "--" ends the flags.
// Each command accepts its own set of flags (see kCommands in
// command_line.cpp); any other flag is an error naming it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::app {

// The command ParseCommandLine returns for `cilia help`, `cilia --help`, `cilia -h`.
inline constexpr std::string_view kHelpCommand = "help";

struct CommandLine {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> flags;  // name without "--"; switches map to ""

  bool Has(std::string_view name) const;
  std::string Get(std::string_view name, std::string fallback = "") const;
};

// InvalidArgument for no command, an unknown command or flag, a flag without
// its value, a switch given a value, or a wrong number of positional arguments.
Result<CommandLine> ParseCommandLine(int argc, char** argv);

// The overview of every command, and one command's usage with its flags.
std::string UsageText();
std::string CommandUsageText(std::string_view command);
// The usage to show when `argv` could not be parsed: that of the command
// argv[1] names, or the overview when it names none.
std::string UsageForArguments(int argc, char** argv);

}  // namespace cilia::app
