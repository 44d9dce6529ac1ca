#include "app/command_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>

namespace cilia::app {

namespace {

struct FlagSpec {
  std::string_view name;
  std::string_view value;  // what the value is, for the usage text; empty for a switch
  std::string_view help;
};

struct CommandSpec {
  std::string_view name;
  std::string_view arguments;  // for the usage text
  std::string_view summary;
  size_t min_positional;
  size_t max_positional;
  std::vector<FlagSpec> flags;
};

constexpr size_t kAnyNumber = std::numeric_limits<size_t>::max();

const FlagSpec kConfigFlag{"config", "FILE", "config file (default ./cilia.toml when present)"};
const FlagSpec kDataFlag{"data", "DIR", "data dir (default ./data)"};
const FlagSpec kNamespaceFlag{"namespace", "NS", "namespace (default \"default\")"};
const FlagSpec kHelpFlag{"help", "", "show this help"};
const FlagSpec kJsonFlag{"json", "", "print JSON"};
const FlagSpec kFormatFlag{"format", "FORMAT",
                           "cilia (a dump), jsonl, chatgpt, claude, chatbox or sillytavern (default: detected)"};

std::vector<FlagSpec> RecallFlags() {
  return {kConfigFlag, kDataFlag, kNamespaceFlag, {"limit", "N", "number of results (default 10)"},
          {"after", "DATE", "only from this date or time on"}, {"before", "DATE", "only up to this date or time"},
          {"now", "TIME", "the moment the question is asked (default: now)"},
          {"conversation", "ID", "only this conversation"}, {"exact", "", "only results containing the query verbatim"},
          kJsonFlag, kHelpFlag};
}

const std::vector<CommandSpec>& Commands() {
  static const auto* const commands = new std::vector<CommandSpec>{
      {"serve", "", "run the gateway, memory API, MCP, admin page and background jobs", 0, 0,
       {kConfigFlag, kDataFlag, {"listen", "HOST:PORT", "address to listen on (default 127.0.0.1:8420)"}, kHelpFlag}},
      {"ingest", "FILE", "load messages from JSON Lines or a chat export", 1, 1,
       {kConfigFlag, kDataFlag, kNamespaceFlag, kFormatFlag,
        {"sync", "", "return only once the messages are indexed (always so)"}, kJsonFlag, kHelpFlag}},
      {"recall", "QUERY", "recall memories, as POST /v1/recall (counts as remembered)", 1, kAnyNumber, RecallFlags()},
      {"search", "QUERY", "search memories, as POST /v1/search (only a look: no access counts)", 1, kAnyNumber,
       RecallFlags()},
      {"export", "", "write one namespace as JSON Lines to stdout", 0, 0,
       {kConfigFlag, kDataFlag, kNamespaceFlag, kHelpFlag}},
      {"import", "FILE", "load a dump written by `cilia export` (or a chat export)", 1, 1,
       {kConfigFlag, kDataFlag, kNamespaceFlag, kFormatFlag, kJsonFlag, kHelpFlag}},
      {"jobs", "run extract|nightly|retention|reindex", "run one background job now, in the foreground", 2, 2,
       {kConfigFlag, kDataFlag, kNamespaceFlag,
        {"backfill", "", "extract: imported history too, from now on (within the daily budget)"}, kJsonFlag,
        kHelpFlag}},
      {"keys", "list|create|revoke [ID]", "manage API keys", 1, 2,
       {kConfigFlag, kDataFlag, {"namespace", "NS", "the key's namespace (create; filter for list)"},
        {"scopes", "LIST", "comma-separated: chat, memory:read, memory:write, admin (create)"},
        {"name", "NAME", "a name to recognise the key by (create)"},
        {"features", "LIST", "the key's own [features] switches, e.g. memory=off,recall_tool=on (create)"}, kJsonFlag,
        kHelpFlag}},
      {"migrate", "--from SRC --to DST",
       "copy a whole store, every namespace, losslessly: SRC and DST are sqlite:DIR or postgresql://…", 0, 0,
       {kConfigFlag,
        {"from", "SRC", "the store to copy: sqlite:DIR (a data dir) or postgresql://… (a URL)"},
        {"to", "DST", "the store to copy into, likewise; run again after an interruption to finish "
                      "(API keys are not copied)"},
        {"namespace", "NS", "only this namespace (default: every one)"}, kHelpFlag}},
      {"doctor", "", "check config, data dir, upstreams, embedder, jobs and candidates", 0, 0,
       {kConfigFlag, kDataFlag, {"online", "", "also call each provider's base URL"}, kJsonFlag, kHelpFlag}},
      {"version", "", "print the version", 0, 0, {kHelpFlag}},
  };
  return *commands;
}

const CommandSpec* FindCommand(std::string_view name) {
  const auto& commands = Commands();
  auto it = std::find_if(commands.begin(), commands.end(), [&](const CommandSpec& c) { return c.name == name; });
  return it == commands.end() ? nullptr : &*it;
}

const FlagSpec* FindFlag(const CommandSpec& command, std::string_view name) {
  auto it = std::find_if(command.flags.begin(), command.flags.end(), [&](const FlagSpec& f) { return f.name == name; });
  return it == command.flags.end() ? nullptr : &*it;
}

std::string Synopsis(const CommandSpec& command) {
  return command.arguments.empty() ? fmt::format("cilia {}", command.name)
                                   : fmt::format("cilia {} {}", command.name, command.arguments);
}

Status CheckPositionalCount(const CommandSpec& command, const std::vector<std::string>& positional) {
  if (positional.size() < command.min_positional) {
    return Status::InvalidArgument(fmt::format("missing arguments; usage: {}", Synopsis(command)));
  }
  if (positional.size() > command.max_positional) {
    return Status::InvalidArgument(fmt::format("unexpected argument \"{}\"; usage: {}",
                                               positional[command.max_positional], Synopsis(command)));
  }
  return Status::Ok();
}

}  // namespace

bool CommandLine::Has(std::string_view name) const { return flags.find(std::string(name)) != flags.end(); }

std::string CommandLine::Get(std::string_view name, std::string fallback) const {
  auto it = flags.find(std::string(name));
  return it == flags.end() ? fallback : it->second;
}

Result<CommandLine> ParseCommandLine(int argc, char** argv) {
  if (argc < 2) return Status::InvalidArgument("no command given");
  CommandLine line;
  std::string_view first = argv[1];
  if (first == kHelpCommand || first == "--help" || first == "-h") {
    line.command = kHelpCommand;
    for (int i = 2; i < argc; ++i) line.positional.emplace_back(argv[i]);
    return line;
  }
  const CommandSpec* command = FindCommand(first);
  if (!command) return Status::InvalidArgument(fmt::format("unknown command \"{}\"", first));
  line.command = command->name;

  bool flags_ended = false;
  for (int i = 2; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (flags_ended || arg.size() < 2 || arg[0] != '-') {
      line.positional.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_ended = true;
      continue;
    }
    if (arg == "-h") arg = "--help";
    if (arg.substr(0, 2) != "--") {
      return Status::InvalidArgument(fmt::format("unknown flag {} for cilia {}", arg, command->name));
    }
    std::string_view name = arg.substr(2);
    std::optional<std::string_view> inline_value;
    if (size_t eq = name.find('='); eq != std::string_view::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const FlagSpec* flag = FindFlag(*command, name);
    if (!flag) return Status::InvalidArgument(fmt::format("unknown flag --{} for cilia {}", name, command->name));
    std::string value;
    if (flag->value.empty()) {
      if (inline_value) return Status::InvalidArgument(fmt::format("--{} takes no value", name));
    } else if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < argc && std::string_view(argv[i + 1]).substr(0, 2) != "--") {
      value = argv[++i];
    } else {
      return Status::InvalidArgument(fmt::format("--{} needs a value ({})", name, flag->value));
    }
    line.flags[std::string(name)] = std::move(value);
  }
  if (!line.Has("help")) CILIA_RETURN_IF_ERROR(CheckPositionalCount(*command, line.positional));
  return line;
}

std::string UsageText() {
  std::string text = "usage: cilia <command> [arguments] [flags]\n\ncommands:\n";
  for (const CommandSpec& command : Commands()) {
    text += fmt::format("  {:<40} {}\n", Synopsis(command), command.summary);
  }
  text += "\n`cilia <command> --help` shows a command's flags.\n";
  return text;
}

std::string UsageForArguments(int argc, char** argv) {
  return argc >= 2 && FindCommand(argv[1]) ? CommandUsageText(argv[1]) : UsageText();
}

std::string CommandUsageText(std::string_view name) {
  const CommandSpec* command = FindCommand(name);
  if (!command) return UsageText();
  std::string text = fmt::format("usage: {} [flags]\n\n{}\n\nflags:\n", Synopsis(*command), command->summary);
  for (const FlagSpec& flag : command->flags) {
    std::string left = flag.value.empty() ? fmt::format("--{}", flag.name) : fmt::format("--{} {}", flag.name, flag.value);
    text += fmt::format("  {:<24} {}\n", left, flag.help);
  }
  return text;
}

}  // namespace cilia::app
