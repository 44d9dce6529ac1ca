// `cilia doctor`: one line per check, "ok" or "FAIL", and for each failure
// how to mend it. Calls the network only with --online.
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/clock.h"
#include "core/data_dir_lock.h"
#include "core/log.h"
#include "core/time.h"
#include "net/http_client.h"
#include "store/key_store.h"

namespace cilia::app {

namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinFreeBytes = uint64_t{200} << 20;
constexpr int kProbeTimeoutMs = 10000;

struct Check {
  std::string name;
  bool ok = true;
  std::string detail;
  std::string mend;  // for a failure
};

Check Ok(std::string name, std::string detail) { return {std::move(name), true, std::move(detail), ""}; }
Check Fail(std::string name, std::string detail, std::string mend) {
  return {std::move(name), false, std::move(detail), std::move(mend)};
}

// Through the log's redaction: a base_url may carry "user:password@", an
// error message the key.
void Print(const Check& check) {
  std::printf("%-4s  %-18s %s\n", check.ok ? "ok" : "FAIL", check.name.c_str(), RedactSecrets(check.detail).c_str());
  if (!check.ok) std::printf("      %-18s -> %s\n", "", RedactSecrets(check.mend).c_str());
}

// The path itself, or its nearest ancestor that exists.
fs::path NearestExisting(const std::string& path) {
  std::error_code ec;
  fs::path at = fs::absolute(path, ec);
  while (!fs::exists(at, ec) && at.has_relative_path()) at = at.parent_path();
  return at;
}

Check CheckDataDir(const std::string& data_dir) {
  std::error_code ec;
  if (fs::exists(data_dir, ec)) {
    if (!fs::is_directory(data_dir, ec)) {
      return Fail("data dir", fmt::format("{} is not a directory", data_dir),
                  "point --data or server.data_dir at a directory");
    }
    if (access(data_dir.c_str(), W_OK | X_OK) != 0) {
      return Fail("data dir", fmt::format("{} is not writable", data_dir),
                  "give the user running cilia write access to it, or choose another with --data");
    }
    return Ok("data dir", fmt::format("{} (writable)", data_dir));
  }
  fs::path parent = NearestExisting(data_dir);
  if (access(parent.c_str(), W_OK | X_OK) != 0) {
    return Fail("data dir", fmt::format("{} does not exist and {} is not writable", data_dir, parent.string()),
                fmt::format("create {} yourself, or choose another with --data", data_dir));
  }
  return Ok("data dir", fmt::format("{} (missing; created on first use)", data_dir));
}

Check CheckFreeDisk(const std::string& data_dir) {
  fs::path at = NearestExisting(data_dir);
  struct statvfs info {};
  if (statvfs(at.c_str(), &info) != 0) {
    return Fail("free disk", fmt::format("cannot read the free space of {}", at.string()), "check the mount");
  }
  uint64_t free_bytes = static_cast<uint64_t>(info.f_bavail) * info.f_frsize;
  std::string amount = fmt::format("{:.1f} GB free", static_cast<double>(free_bytes) / 1e9);
  if (free_bytes < kMinFreeBytes) {
    return Fail("free disk", amount + " where the data dir is",
                "free some space: SQLite needs room for its WAL and for checkpoints");
  }
  return Ok("free disk", amount);
}

Check CheckServer(const std::string& data_dir) {
  std::string holder = DataDirHolder(data_dir);
  return Ok("server", holder.empty() ? "not running on this data dir" : holder + " holds this data dir");
}

Check CheckKeys(const Config& config) {
  if (!config.client_api_key.empty()) return Ok("keys", "CILIA_API_KEY is set (full access to namespace default)");
  std::string path = KeyStorePath(config);
  std::error_code ec;
  if (!fs::exists(path, ec)) return Ok("keys", "none yet; `cilia serve` creates one on its first start");
  auto keys = store::KeyStore::Open(path);
  if (!keys.ok()) {
    return Fail("keys", keys.status().message(), fmt::format("{} is damaged or not readable; restore it from a backup",
                                                             path));
  }
  size_t active = (*keys)->ActiveCount();
  if (active == 0) return Ok("keys", "none active; `cilia serve` creates a new one on its next start");
  return Ok("keys", fmt::format("{} active (`cilia keys list`)", active));
}

Check CheckTimeZone(const Config& config) {
  auto tz = TimeZone::Load(config.server.time_zone);
  if (!tz.ok()) return Fail("time zone", tz.status().message(), "set server.time_zone to an IANA name");
  int offset = tz->OffsetMinutes(Clock::System().Now());
  return Ok("time zone", fmt::format("{} (UTC{}{:02}:{:02} now)", tz->name(), offset < 0 ? '-' : '+',
                                     std::abs(offset) / 60, std::abs(offset) % 60));
}

std::string TrimSlash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

net::Headers AuthHeaders(const ProviderConfig& provider) {
  if (provider.kind == ProviderKind::kAnthropic) {
    return {{"x-api-key", provider.api_key}, {"anthropic-version", "2023-06-01"}};
  }
  return {{"Authorization", "Bearer " + provider.api_key}};
}

// Asks the provider for its model list: any answer proves it is reachable,
// a 401 or 403 that the key is refused.
Check ProbeProvider(const std::string& check_name, const ProviderConfig& provider) {
  net::HttpRequest request;
  request.method = "GET";
  request.url = TrimSlash(provider.base_url) + "/models";
  request.headers = AuthHeaders(provider);
  request.total_timeout_ms = kProbeTimeoutMs;
  auto reply = net::Send(request);
  if (!reply.ok()) {
    return Fail(check_name, reply.status().message(),
                fmt::format("check base_url ({}) and the network or proxy settings", provider.base_url));
  }
  if (reply->status == 401 || reply->status == 403) {
    return Fail(check_name, fmt::format("reachable, but the key is refused (HTTP {})", reply->status),
                "check the key in " + (provider.api_key_env.empty() ? "api_key" : provider.api_key_env));
  }
  return Ok(check_name, fmt::format("{} reachable (HTTP {} for /models)", provider.base_url, reply->status));
}

Check CheckProvider(const ProviderConfig& provider, bool online) {
  std::string name = "provider " + provider.name;
  if (provider.api_key.empty()) {
    std::string mend = provider.api_key_env.empty()
                           ? fmt::format("set api_key_env in the [[providers]] block of \"{}\"", provider.name)
                           : fmt::format("export {}=<the provider's key>", provider.api_key_env);
    return Fail(name, "no API key", mend);
  }
  if (online) return ProbeProvider(name, provider);
  std::string source = provider.api_key_env.empty() ? "api_key in the config" : provider.api_key_env;
  return Ok(name, fmt::format("{} at {}, key from {}", ProviderKindName(provider.kind), provider.base_url, source));
}

Check CheckModels(const Config& config) {
  if (config.models.chat.empty()) {
    return Ok("models", "models.chat is not set: the chat gateway is off, the memory API works");
  }
  return Ok("models", fmt::format("\"{}\" -> {}, extract {}", config.models.public_name, config.models.chat,
                                  config.models.extract));
}

Check ProbeEmbeddings(const ProviderConfig& provider, const EmbeddingConfig& embedding) {
  net::HttpRequest request;
  request.url = TrimSlash(provider.base_url) + "/embeddings";
  request.headers = AuthHeaders(provider);
  request.headers.emplace_back("Content-Type", "application/json");
  request.body = nlohmann::json{{"model", embedding.model}, {"input", {"cilia doctor"}}}.dump();
  request.total_timeout_ms = kProbeTimeoutMs;
  auto reply = net::Send(request);
  if (!reply.ok()) return Fail("embedder", reply.status().message(), "check the provider's base_url and the network");
  if (reply->status != 200) {
    return Fail("embedder", fmt::format("POST /embeddings answered HTTP {}", reply->status),
                fmt::format("check embedding.model (\"{}\") and the provider's key", embedding.model));
  }
  return Ok("embedder", fmt::format("openai via {}: {} answers", provider.name, embedding.model));
}

Check CheckEmbedder(const Config& config, bool online) {
  const EmbeddingConfig& embedding = config.embedding;
  switch (embedding.kind) {
    case EmbedderKind::kHash:
      return Ok("embedder", fmt::format("hash (built in, {} dimensions)", embedding.dimensions));
    case EmbedderKind::kLocal: {
      std::error_code ec;
      if (!fs::is_regular_file(embedding.model, ec)) {
        return Fail("embedder", fmt::format("model file {} not found", embedding.model),
                    "set embedding.model to the model file's path");
      }
      return Ok("embedder", fmt::format("local model {}", embedding.model));
    }
    case EmbedderKind::kOpenAI: {
      const ProviderConfig* provider = config.FindProvider(embedding.provider);
      if (!provider || provider->api_key.empty()) {
        return Fail("embedder", fmt::format("provider \"{}\" has no API key", embedding.provider),
                    "see the provider line above");
      }
      if (online) return ProbeEmbeddings(*provider, embedding);
      return Ok("embedder", fmt::format("openai via {}, model {}", provider->name, embedding.model));
    }
  }
  return Ok("embedder", EmbedderKindName(embedding.kind));
}

}  // namespace

int RunDoctor(const CommandLine& command_line) {
  auto config = LoadConfigForCommand(command_line);
  if (!config.ok()) {
    Print(Fail("config", config.status().message(), "mend what the message names (docs/configuration.md has every key)"));
    return kExitUsage;  // a bad config is exit 2 for every command
  }
  const bool online = command_line.Has("online");
  std::vector<Check> checks;
  checks.push_back(Ok("config", config->file.empty() ? "defaults and environment (no config file)" : config->file));
  checks.push_back(CheckDataDir(config->server.data_dir));
  checks.push_back(CheckFreeDisk(config->server.data_dir));
  checks.push_back(CheckServer(config->server.data_dir));
  checks.push_back(CheckKeys(*config));
  checks.push_back(CheckTimeZone(*config));
  for (const ProviderConfig& provider : config->providers) checks.push_back(CheckProvider(provider, online));
  checks.push_back(CheckModels(*config));
  checks.push_back(CheckEmbedder(*config, online));

  bool all_ok = true;
  for (const Check& check : checks) {
    Print(check);
    all_ok = all_ok && check.ok;
  }
  return all_ok ? kExitOk : kExitFailure;
}

}  // namespace cilia::app
