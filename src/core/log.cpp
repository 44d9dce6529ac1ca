#include "core/log.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <vector>

#include "core/clock.h"

namespace cilia {

namespace {

constexpr std::string_view kRedacted = "[redacted]";
constexpr size_t kMinSecretLength = 8;

std::atomic<LogLevel> g_level{LogLevel::kInfo};

// Secrets and the sink change rarely (at start, in tests) and are read on
// every line, hence the shared lock.
std::shared_mutex g_secrets_mu;
std::vector<std::string> g_secrets;

std::mutex g_sink_mu;  // also serialises writes so lines never interleave
LogSink g_sink;

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsKeyChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }

// Length of the key-shaped token starting at `pos`, or 0. Tokens start at a
// word boundary: "ck_" + 8 or more letters/digits, "sk-" + 8 or more key
// characters (OpenAI, Anthropic, DeepSeek keys).
size_t KeyTokenLength(std::string_view text, size_t pos) {
  if (pos > 0 && IsKeyChar(text[pos - 1])) return 0;
  std::string_view rest = text.substr(pos);
  bool cilia_key = rest.substr(0, 3) == "ck_";
  bool provider_key = rest.substr(0, 3) == "sk-";
  if (!cilia_key && !provider_key) return 0;
  size_t end = 3;
  while (end < rest.size() && (cilia_key ? IsAlnum(rest[end]) : IsKeyChar(rest[end]))) ++end;
  return end - 3 >= kMinSecretLength ? end : 0;
}

// Replaces "Bearer <token>" and key-shaped tokens.
// Where the user part of a URL's authority ends ("user:password@"), when the
// URL at `pos` ("://…") has one; npos otherwise.
size_t UserInfoEnd(std::string_view text, size_t pos) {
  for (size_t i = pos + 3; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '@') return i > pos + 3 ? i : std::string_view::npos;
    if (c == '/' || c == '?' || c == '#' || c == ' ' || c == '"' || c == '\'' || c == '\n' || c == '\t') break;
  }
  return std::string_view::npos;
}

std::string RedactShapes(std::string_view text) {
  constexpr std::string_view kBearer = "Bearer ";
  constexpr std::string_view kScheme = "://";
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text.substr(i, kBearer.size()) == kBearer) {
      size_t end = i + kBearer.size();
      while (end < text.size() && text[end] != ' ' && text[end] != '"' && text[end] != '\n') ++end;
      if (end > i + kBearer.size()) {
        out.append(kBearer).append(kRedacted);
        i = end;
        continue;
      }
    }
    if (text.substr(i, kScheme.size()) == kScheme) {
      if (size_t at = UserInfoEnd(text, i); at != std::string_view::npos) {
        out.append(kScheme).append(kRedacted);
        i = at;  // keeps the '@' and the host
        continue;
      }
    }
    if (size_t len = KeyTokenLength(text, i); len > 0) {
      out.append(kRedacted);
      i += len;
      continue;
    }
    out.push_back(text[i++]);
  }
  return out;
}

const char* LevelTag(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "DEBUG";
    case LogLevel::kInfo: return "INFO";
    case LogLevel::kWarn: return "WARN";
    case LogLevel::kError: return "ERROR";
  }
  return "INFO";
}

}  // namespace

Result<LogLevel> ParseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warn" || name == "warning") return LogLevel::kWarn;
  if (name == "error") return LogLevel::kError;
  return Status::InvalidArgument(
      fmt::format("unknown log level \"{}\" (levels: debug, info, warn, error)", name));
}

const char* LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
  }
  return "info";
}

void SetLogLevel(LogLevel level) { g_level.store(level, std::memory_order_relaxed); }
LogLevel GetLogLevel() { return g_level.load(std::memory_order_relaxed); }
bool LogEnabled(LogLevel level) { return level >= GetLogLevel(); }

void AddLogSecret(std::string_view secret) {
  if (secret.size() < kMinSecretLength) return;
  std::unique_lock lock(g_secrets_mu);
  if (std::find(g_secrets.begin(), g_secrets.end(), secret) == g_secrets.end()) {
    g_secrets.emplace_back(secret);
  }
}

std::string RedactSecrets(std::string_view text) {
  std::string out(text);
  {
    std::shared_lock lock(g_secrets_mu);
    for (const std::string& secret : g_secrets) {
      for (size_t at = out.find(secret); at != std::string::npos; at = out.find(secret, at + kRedacted.size())) {
        out.replace(at, secret.size(), kRedacted);
      }
    }
  }
  return RedactShapes(out);
}

void SetLogSink(LogSink sink) {
  std::lock_guard lock(g_sink_mu);
  g_sink = std::move(sink);
}

void LogMessage(LogLevel level, std::string_view message) {
  if (!LogEnabled(level)) return;
  std::string line = fmt::format("{} {} {}", FormatRfc3339(Clock::System().Now()), LevelTag(level), RedactSecrets(message));
  std::lock_guard lock(g_sink_mu);
  if (g_sink) {
    g_sink(line);
  } else {
    line.push_back('\n');
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
}

}  // namespace cilia
