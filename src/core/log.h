// Leveled logging to stderr, one line per call:
//   2024-05-01T12:00:00.123Z WARN listening on 0.0.0.0:8420, not a loopback address
// Secrets never reach a line: every registered secret (provider keys,
// CILIA_API_KEY) and everything shaped like a key ("ck_…", "sk-…",
// "Bearer …", a URL's "user:password@") is replaced by "[redacted]" before
// it is written.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace cilia {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "debug", "info", "warn" (or "warning"), "error"; anything else is an
// InvalidArgument naming the value.
Result<LogLevel> ParseLogLevel(std::string_view name);
const char* LogLevelName(LogLevel level);

// Lines below `level` are dropped. The default is kInfo.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);

// Adds a value that must never appear in a log line (values shorter than 8
// bytes are ignored: too short to be a key, too likely to blank words).
void AddLogSecret(std::string_view secret);

// `text` with every registered secret and key-shaped token replaced.
std::string RedactSecrets(std::string_view text);

// Where finished lines go; the default writes them to stderr. Tests pass a
// sink to capture lines; an empty function restores stderr.
using LogSink = std::function<void(std::string_view line)>;
void SetLogSink(LogSink sink);

// Writes one line (thread-safe); does nothing when the level is disabled.
void LogMessage(LogLevel level, std::string_view message);

template <typename... Args>
void LogDebug(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kDebug)) LogMessage(LogLevel::kDebug, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogInfo(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kInfo)) LogMessage(LogLevel::kInfo, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogWarn(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kWarn)) LogMessage(LogLevel::kWarn, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void LogError(fmt::format_string<Args...> format, Args&&... args) {
  if (LogEnabled(LogLevel::kError)) LogMessage(LogLevel::kError, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace cilia
