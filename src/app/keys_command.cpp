// `cilia keys list|create|revoke`, and the key a first start creates.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "api/auth.h"
#include "api/key_routes.h"
#include "app/commands.h"
#include "app/server_link.h"
#include "core/data_dir.h"
#include "core/data_dir_lock.h"
#include "core/time.h"
#include "memory/registry.h"
#include "store/key_store.h"

namespace cilia::app {

namespace {

constexpr char kFirstKeyFile[] = "admin.key";
constexpr char kDefaultNamespace[] = "default";

// Writes the key to a file only its owner can read, replacing any old one.
Status WriteSecretFile(const std::string& path, const std::string& secret) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError(fmt::format("create {}: {}", path, std::strerror(errno)));
  std::string line = secret + "\n";
  bool ok = fchmod(fd, 0600) == 0 && write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
            fsync(fd) == 0;
  int error = errno;
  close(fd);
  if (!ok) return Status::IOError(fmt::format("write {}: {}", path, std::strerror(error)));
  return Status::Ok();
}

std::string FormatTime(const std::optional<UnixMs>& time, const TimeZone& tz) {
  return time ? tz.FormatLocal(*time, /*with_time=*/true) : "-";
}

void PrintKeyTable(const std::vector<store::ApiKeyInfo>& keys, const TimeZone& tz) {
  std::vector<std::vector<std::string>> rows = {
      {"ID", "NAME", "NAMESPACE", "SCOPES", "FEATURES", "CREATED", "LAST USED", "REVOKED"}};
  for (const store::ApiKeyInfo& key : keys) {
    std::string features = store::FormatFeatureOverrides(key.features);
    rows.push_back({key.id, key.name.empty() ? "-" : key.name, key.name_space, fmt::format("{}", fmt::join(key.scopes, ",")),
                    features.empty() ? "-" : features, tz.FormatLocal(key.created_at, true),
                    FormatTime(key.last_used_at, tz), FormatTime(key.revoked_at, tz)});
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 < row.size() ? fmt::format("{:<{}}  ", row[i], widths[i]) : row[i];
    }
    std::printf("%s\n", line.c_str());
  }
}

int ListKeys(const CommandLine& command_line, const Config& config) {
  std::string path = KeyStorePath(config);
  std::vector<store::ApiKeyInfo> keys;
  // A reading command: no key database yet means no keys, not a new file.
  if (std::error_code ec; std::filesystem::exists(path, ec)) {
    auto store = store::KeyStore::Open(path);
    if (!store.ok()) return ExitWithError(store.status(), kExitFailure);
    keys = (*store)->List();
  }
  if (command_line.Has("namespace")) {
    std::erase_if(keys, [&](const store::ApiKeyInfo& k) { return k.name_space != command_line.Get("namespace"); });
  }
  if (command_line.Has("json")) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& key : keys) list.push_back(api::KeyJson(key));
    std::printf("%s\n", nlohmann::json{{"keys", list}}.dump(2).c_str());
    return kExitOk;
  }
  if (keys.empty()) {
    std::fprintf(stderr, "no keys in %s yet (`cilia serve` creates one on its first start)\n",
                 config.server.data_dir.c_str());
    return kExitOk;
  }
  auto tz = TimeZone::Load(config.server.time_zone);
  PrintKeyTable(keys, tz.ok() ? *tz : TimeZone::Utc());
  return kExitOk;
}

// Opens the key store for a change, holding the data dir against a server.
struct WritableKeys {
  DataDirLock lock;
  std::unique_ptr<store::KeyStore> keys;
};

Result<WritableKeys> OpenForWriting(const Config& config) {
  CILIA_RETURN_IF_ERROR(PrepareDataDir(config.server.data_dir));
  CILIA_ASSIGN_OR_RETURN(DataDirLock lock, DataDirLock::Acquire(config.server.data_dir, "cilia keys"));
  CILIA_ASSIGN_OR_RETURN(auto keys, store::KeyStore::Open(KeyStorePath(config)));
  return WritableKeys{std::move(lock), std::move(keys)};
}

// The new key as POST /v1/keys answers it (KeyJson and "key"): made by the
// server that holds the data dir, or in the key store here.
Result<nlohmann::json> CreateKeyRecord(const CommandLine& command_line, const Config& config,
                                       const std::string& name_space, uint32_t scopes,
                                       const store::FeatureOverrides& features) {
  CILIA_ASSIGN_OR_RETURN(auto link, FindServerLink(config, name_space, "creating the key"));
  if (link) {
    nlohmann::json body = {{"name", command_line.Get("name")},
                           {"scopes", api::ScopeNames(scopes)},
                           {"features", store::FeatureOverridesToJson(features)}};
    return CallServerJson(*link, "POST", "/v1/keys", body.dump());
  }
  CILIA_ASSIGN_OR_RETURN(WritableKeys writable, OpenForWriting(config));
  CILIA_ASSIGN_OR_RETURN(
      auto created, writable.keys->Create(command_line.Get("name"), name_space, api::ScopeNames(scopes), features));
  nlohmann::json reply = api::KeyJson(created.info);
  reply["key"] = created.secret;
  return reply;
}

// Through the server when it holds the data dir (a key of its namespace
// only, as DELETE /v1/keys/{id} allows), else in the key store here.
Status RevokeKeyRecord(const CommandLine& command_line, const Config& config, const std::string& id) {
  CILIA_ASSIGN_OR_RETURN(auto link,
                         FindServerLink(config, command_line.Get("namespace", kDefaultNamespace), "revoking the key"));
  if (link) return CallServer(*link, "DELETE", "/v1/keys/" + PercentEncode(id), "").status();
  CILIA_ASSIGN_OR_RETURN(WritableKeys writable, OpenForWriting(config));
  return writable.keys->Revoke(id);
}

int CreateKey(const CommandLine& command_line, const Config& config) {
  std::string name_space = command_line.Get("namespace", kDefaultNamespace);
  if (!memory::IsValidNamespaceName(name_space)) {
    return UsageError("keys", Status::InvalidArgument(fmt::format(
                                  "\"{}\" is not a namespace name: 1 to 64 of a-z, 0-9, '_' and '-', starting with a "
                                  "letter or digit",
                                  name_space)));
  }
  if (!command_line.Has("scopes")) {
    return UsageError("keys", Status::InvalidArgument("cilia keys create needs --scopes (chat, memory:read, "
                                                      "memory:write, admin; comma-separated)"));
  }
  auto scopes = api::ParseScopeList(command_line.Get("scopes"));
  if (!scopes.ok()) return UsageError("keys", scopes.status());
  store::FeatureOverrides features;
  if (command_line.Has("features")) {
    auto parsed = store::ParseFeatureOverrides(command_line.Get("features"));
    if (!parsed.ok()) return UsageError("keys", parsed.status());
    features = *parsed;
  }
  auto created = CreateKeyRecord(command_line, config, name_space, *scopes, features);
  if (!created.ok()) return ExitWithError(created.status(), kExitFailure);
  const std::string secret = created->value("key", "");
  if (command_line.Has("json")) {
    std::printf("%s\n", created->dump(2).c_str());
  } else {
    // The key alone on stdout, so that KEY=$(cilia keys create …) works.
    std::printf("%s\n", secret.c_str());
  }
  std::fprintf(stderr, "created key %s for namespace \"%s\" (scopes %s); the key is shown only this once\n",
               created->value("id", "").c_str(), name_space.c_str(),
               fmt::format("{}", fmt::join(created->value("scopes", std::vector<std::string>{}), ",")).c_str());
  return kExitOk;
}

int RevokeKey(const CommandLine& command_line, const Config& config) {
  if (command_line.positional.size() != 2) {
    return UsageError("keys",
                      Status::InvalidArgument("cilia keys revoke needs the key's id (ids are in `cilia keys list`)"));
  }
  const std::string& id = command_line.positional[1];
  Status revoked = RevokeKeyRecord(command_line, config, id);
  if (!revoked.ok()) return ExitWithError(revoked, kExitFailure);
  std::printf("revoked %s\n", id.c_str());
  return kExitOk;
}

// Flags that only `create` reads; elsewhere they would be silently ignored.
Status CheckFlagsFit(const CommandLine& command_line, const std::string& action) {
  for (const char* flag : {"scopes", "name", "features"}) {
    if (action != "create" && command_line.Has(flag)) {
      return Status::InvalidArgument(fmt::format("--{} is for `cilia keys create`", flag));
    }
  }
  if (action == "revoke" && (command_line.Has("namespace") || command_line.Has("json"))) {
    return Status::InvalidArgument("cilia keys revoke takes only the key's id");
  }
  if (action != "revoke" && command_line.positional.size() > 1) {
    return Status::InvalidArgument(
        fmt::format("unexpected argument \"{}\" for cilia keys {}", command_line.positional[1], action));
  }
  return Status::Ok();
}

}  // namespace

int RunKeys(const CommandLine& command_line) {
  const std::string& action = command_line.positional.front();
  if (action != "list" && action != "create" && action != "revoke") {
    return UsageError("keys", Status::InvalidArgument(
                                  fmt::format("unknown keys action \"{}\" (actions: list, create, revoke)", action)));
  }
  if (Status fits = CheckFlagsFit(command_line, action); !fits.ok()) return UsageError("keys", fits);
  auto config = LoadConfigForCommand(command_line);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  if (action == "list") return ListKeys(command_line, *config);
  if (action == "create") return CreateKey(command_line, *config);
  return RevokeKey(command_line, *config);
}

Status CreateFirstKeyIfNone(store::KeyStore& keys, const Config& config) {
  if (!config.client_api_key.empty() || keys.ActiveCount() > 0) return Status::Ok();
  CILIA_ASSIGN_OR_RETURN(store::NewApiKey created,
                         keys.Create("first start", kDefaultNamespace, api::ScopeNames(api::kAllScopes)));
  std::string path = config.server.data_dir + "/" + kFirstKeyFile;
  if (Status written = WriteSecretFile(path, created.secret); !written.ok()) {
    // Nobody could ever read this key: take it back, so the next start makes another.
    (void)keys.Revoke(created.info.id);
    return written;
  }
  if (isatty(STDERR_FILENO)) {
    std::fprintf(stderr,
                 "cilia: first start: created an admin key for namespace \"default\":\n\n    %s\n\n"
                 "It is shown only this once; a copy is in %s (readable only by you).\n",
                 created.secret.c_str(), path.c_str());
  } else {
    std::fprintf(stderr, "cilia: first start: created an admin key for namespace \"default\"; it is in %s\n",
                 path.c_str());
  }
  return Status::Ok();
}

}  // namespace cilia::app
