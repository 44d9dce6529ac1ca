// The subcommands of `cilia` and what they share. Each Run* returns the
// process exit code: kExitOk, kExitFailure (the command could not do its
// job) or kExitUsage (bad command line or bad config).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "app/command_line.h"
#include "core/config.h"
#include "core/status.h"

namespace cilia::store {
class KeyStore;
}

namespace cilia::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

int RunServe(const CommandLine& command_line);    // serve.cpp
int RunKeys(const CommandLine& command_line);     // keys_command.cpp
int RunDoctor(const CommandLine& command_line);   // doctor_command.cpp
int RunVersion(const CommandLine& command_line);  // version_command.cpp
int RunIngest(const CommandLine& command_line);   // memory_commands.cpp
int RunRecall(const CommandLine& command_line);
int RunSearch(const CommandLine& command_line);
int RunExport(const CommandLine& command_line);
int RunImport(const CommandLine& command_line);
int RunJobs(const CommandLine& command_line);
int RunMigrate(const CommandLine& command_line);  // migrate_command.cpp

// The config for this command: defaults < ./cilia.toml or --config < CILIA_*
// environment < --data / --listen. Also applies its log level and registers
// its secrets with the logger. A command given a bad config prints the
// error and exits with kExitUsage (see ExitWithError).
Result<Config> LoadConfigForCommand(const CommandLine& command_line);

// Prints "cilia: <message>" to stderr and returns `exit_code`.
int ExitWithError(const Status& status, int exit_code);
// For a bad argument: prints "cilia: <message>", a blank line and the
// command's usage (CommandUsageText) to stderr; returns kExitUsage.
int UsageError(std::string_view command, const Status& status);

// recall's and search's reply ({"results": [...]}) for reading: each result
// as "YYYY-MM-DD · title · score", then its text; a blank line between
// results; "no results" for none. Ids are left to --json.
std::string FormatResults(const nlohmann::json& reply);
// A job run (api::JobRunJson) as "<job>: <outcome>, <n> items[ — error]",
// then its detail.
std::string FormatJobRun(const nlohmann::json& run);
// An import's "extraction" estimate (memory::ExtractionEstimate::ToJson) for
// reading: the batches and prompt tokens extracting it takes, and whether
// the job takes them on its own or how to ask for them; "" without one.
std::string FormatExtractionEstimate(const nlohmann::json& estimate);

// The path of the key database in a data dir: DATA/system.db.
std::string KeyStorePath(const Config& config);

// On a first start — no key in the store (none that is not revoked), and no
// CILIA_API_KEY — creates a full-scope key for namespace "default" and writes
// it to DATA/admin.key (mode 0600). Prints the key once when stderr is a
// terminal, otherwise only the file's path.
Status CreateFirstKeyIfNone(store::KeyStore& keys, const Config& config);

}  // namespace cilia::app
