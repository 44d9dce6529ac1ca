#include "store/key_store.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

#include "core/codec.h"
#include "core/config.h"

namespace cilia::store {

namespace {

constexpr std::string_view kKeyPrefix = "ck_";
constexpr size_t kKeyRandomChars = 40;
constexpr std::string_view kIdPrefix = "key_";
constexpr size_t kIdRandomChars = 12;
// Schema version N is reached by running steps 1..N in order.
constexpr const char* kSchemaSteps[] = {
    R"sql(
    CREATE TABLE IF NOT EXISTS api_keys (
      id           TEXT PRIMARY KEY,
      name         TEXT NOT NULL,
      namespace    TEXT NOT NULL,
      scopes       TEXT NOT NULL,           -- comma-separated scope names
      key_hash     TEXT NOT NULL UNIQUE,    -- hex SHA-256 of the key; the key itself is never stored
      created_at   INTEGER NOT NULL,        -- Unix ms
      revoked_at   INTEGER,
      last_used_at INTEGER
    ))sql",
    // {"memory": false, ...}: only the switches the key sets.
    "ALTER TABLE api_keys ADD COLUMN features TEXT NOT NULL DEFAULT '{}'",
};
constexpr int64_t kSchemaVersion = std::size(kSchemaSteps);
// last_used_at is written at most this often per key, to keep the hot path
// free of disk writes.
constexpr int64_t kLastUsedResolutionMs = kMsPerMinute;

constexpr std::string_view kBase62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// `count` base62 characters from the CSPRNG, without modulo bias: bytes of
// 248 or more (248 = 4 * 62) are thrown away.
Result<std::string> RandomBase62(size_t count) {
  std::string out;
  out.reserve(count);
  unsigned char buffer[64];
  while (out.size() < count) {
    if (RAND_bytes(buffer, sizeof(buffer)) != 1) return Status::Internal("the system random generator failed");
    for (unsigned char byte : buffer) {
      if (byte < 248 && out.size() < count) out.push_back(kBase62[byte % 62]);
    }
  }
  return out;
}

std::string JoinScopes(const std::vector<std::string>& scopes) { return fmt::format("{}", fmt::join(scopes, ",")); }

std::vector<std::string> SplitScopes(std::string_view text) {
  std::vector<std::string> scopes = SplitList(text);
  std::erase(scopes, "");
  return scopes;
}


// A switch this build does not know (a newer cilia's) is ignored, like an
// unknown scope.
FeatureOverrides StoredFeatures(std::string_view text) {
  FeatureOverrides overrides;
  nlohmann::json stored = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!stored.is_object()) return overrides;
  for (const FeatureSwitch& feature : kFeatureSwitches) {
    auto it = stored.find(std::string(feature.name));
    if (it != stored.end() && it->is_boolean()) overrides.*feature.field = it->get<bool>();
  }
  return overrides;
}

std::string KnownFeatures() {
  std::vector<std::string_view> names;
  for (const FeatureSwitch& feature : kFeatureSwitches) names.push_back(feature.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

Result<bool> ParseSwitchValue(std::string_view name, std::string_view value) {
  if (value == "on" || value == "true") return true;
  if (value == "off" || value == "false") return false;
  return Status::InvalidArgument(fmt::format("features: {}=\"{}\" is not on or off", name, value));
}

}  // namespace

Result<const FeatureSwitch*> FindFeatureSwitch(std::string_view name) {
  for (const FeatureSwitch& feature : kFeatureSwitches) {
    if (feature.name == name) return &feature;
  }
  return Status::InvalidArgument(
      fmt::format("features: unknown feature \"{}\" (features: {})", name, KnownFeatures()));
}

Result<FeatureOverrides> ParseFeatureOverrides(std::string_view list) {
  FeatureOverrides overrides;
  for (const std::string& item : SplitList(list)) {
    size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos) {
      return Status::InvalidArgument(fmt::format(
          "features: \"{}\" is not NAME=on or NAME=off (features: {})", item, KnownFeatures()));
    }
    std::string_view name = std::string_view(item).substr(0, eq);
    std::string_view value = std::string_view(item).substr(eq + 1);
    CILIA_ASSIGN_OR_RETURN(const FeatureSwitch* feature, FindFeatureSwitch(name));
    CILIA_ASSIGN_OR_RETURN(bool on, ParseSwitchValue(name, value));
    std::optional<bool>& field = overrides.*feature->field;
    if (field) return Status::InvalidArgument(fmt::format("features: {} is given twice", name));
    field = on;
  }
  return overrides;
}

std::string FormatFeatureOverrides(const FeatureOverrides& overrides) {
  std::vector<std::string> items;
  for (const FeatureSwitch& feature : kFeatureSwitches) {
    if (const auto& value = overrides.*feature.field) items.push_back(fmt::format("{}={}", feature.name, *value ? "on" : "off"));
  }
  return fmt::format("{}", fmt::join(items, ","));
}

nlohmann::json FeatureOverridesToJson(const FeatureOverrides& overrides) {
  nlohmann::json object = nlohmann::json::object();
  for (const FeatureSwitch& feature : kFeatureSwitches) {
    if (const auto& value = overrides.*feature.field) object[std::string(feature.name)] = *value;
  }
  return object;
}

Result<FeatureOverrides> FeatureOverridesFromJson(const nlohmann::json& object) {
  if (!object.is_object()) {
    return Status::InvalidArgument("features: must be an object of switches, e.g. {\"memory\": false}");
  }
  FeatureOverrides overrides;
  for (const auto& [name, value] : object.items()) {
    CILIA_ASSIGN_OR_RETURN(const FeatureSwitch* feature, FindFeatureSwitch(name));
    if (!value.is_boolean()) return Status::InvalidArgument(fmt::format("features.{}: must be true or false", name));
    overrides.*feature->field = value.get<bool>();
  }
  return overrides;
}

FeaturesConfig ApplyOverrides(FeaturesConfig base, const FeatureOverrides& overrides) {
  base.memory = overrides.memory.value_or(base.memory);
  base.recall_tool = overrides.recall_tool.value_or(base.recall_tool);
  base.compression = overrides.compression.value_or(base.compression);
  base.strip_reasoning = overrides.strip_reasoning.value_or(base.strip_reasoning);
  base.rewrite = overrides.rewrite.value_or(base.rewrite);
  return base;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<std::unique_ptr<KeyStore>> KeyStore::Open(const std::string& path, const Clock& clock) {
  CILIA_ASSIGN_OR_RETURN(auto db, Database::Open(path, Database::Options{.read_only = false, .full_sync = true}));
  std::unique_ptr<KeyStore> keys(new KeyStore(std::move(db), clock));
  CILIA_RETURN_IF_ERROR(keys->MigrateSchema().With(path));
  CILIA_RETURN_IF_ERROR(keys->LoadAll().With(path));
  return keys;
}

Status KeyStore::MigrateSchema() {
  CILIA_ASSIGN_OR_RETURN(Statement * version, db_->Prepare("PRAGMA user_version"));
  CILIA_ASSIGN_OR_RETURN(const int64_t found, version->OneInt());
  if (found > kSchemaVersion) {
    return Status::IOError(fmt::format("key schema version {} is newer than this cilia knows ({})", found, kSchemaVersion));
  }
  for (int64_t step = found; step < kSchemaVersion; ++step) {
    Transaction tx(*db_);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_RETURN_IF_ERROR(db_->Exec(kSchemaSteps[step]));
    CILIA_RETURN_IF_ERROR(db_->Exec(fmt::format("PRAGMA user_version = {}", step + 1)));
    CILIA_RETURN_IF_ERROR(tx.Commit());
  }
  return Status::Ok();
}

Status KeyStore::LoadAll() {
  CILIA_ASSIGN_OR_RETURN(
      Statement * rows,
      db_->Prepare("SELECT id, name, namespace, scopes, key_hash, created_at, revoked_at, last_used_at, features "
                   "FROM api_keys ORDER BY created_at, id"));
  return rows->Each([&](const Statement& row) {
    auto entry = std::make_unique<Entry>();
    entry->info.id = row.Text(0);
    entry->info.name = row.Text(1);
    entry->info.name_space = row.Text(2);
    entry->info.scopes = SplitScopes(row.TextView(3));
    entry->hash = row.Text(4);
    entry->info.created_at = row.Int(5);
    entry->info.revoked_at = row.OptionalInt(6);
    entry->info.last_used_at = row.OptionalInt(7);
    entry->info.features = StoredFeatures(row.TextView(8));
    entry->last_used_written = entry->info.last_used_at.value_or(0);
    by_hash_[entry->hash] = entry.get();
    entries_.push_back(std::move(entry));
  });
}

Result<NewApiKey> KeyStore::Create(std::string_view name, std::string_view name_space,
                                   std::vector<std::string> scopes, FeatureOverrides features) {
  if (name_space.empty()) return Status::InvalidArgument("a key needs a namespace");
  for (const std::string& scope : scopes) {
    if (scope.empty() || scope.find(',') != std::string::npos) {
      return Status::InvalidArgument(fmt::format("\"{}\" is not a scope name", scope));
    }
  }
  CILIA_ASSIGN_OR_RETURN(std::string random_key, RandomBase62(kKeyRandomChars));
  CILIA_ASSIGN_OR_RETURN(std::string random_id, RandomBase62(kIdRandomChars));
  NewApiKey created;
  created.secret = std::string(kKeyPrefix) + random_key;
  created.info.id = std::string(kIdPrefix) + random_id;
  created.info.name = std::string(name);
  created.info.name_space = std::string(name_space);
  created.info.scopes = std::move(scopes);
  created.info.created_at = clock_.Now();
  created.info.features = features;
  std::string hash = Sha256Hex(created.secret);

  std::lock_guard lock(mu_);
  CILIA_ASSIGN_OR_RETURN(Statement * insert,
                         db_->Prepare("INSERT INTO api_keys (id, name, namespace, scopes, key_hash, created_at, "
                                      "features) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  insert->Bind(1, created.info.id)
      .Bind(2, created.info.name)
      .Bind(3, created.info.name_space)
      .Bind(4, JoinScopes(created.info.scopes))
      .Bind(5, hash)
      .Bind(6, created.info.created_at)
      .Bind(7, FeatureOverridesToJson(features).dump());
  CILIA_RETURN_IF_ERROR(insert->Run());
  auto entry = std::make_unique<Entry>(Entry{created.info, std::move(hash), 0});
  by_hash_[entry->hash] = entry.get();
  entries_.push_back(std::move(entry));
  return created;
}

std::vector<ApiKeyInfo> KeyStore::List() const {
  std::lock_guard lock(mu_);
  std::vector<ApiKeyInfo> keys;
  keys.reserve(entries_.size());
  for (const auto& entry : entries_) keys.push_back(entry->info);
  return keys;
}

KeyStore::Entry* KeyStore::FindById(std::string_view id) const {
  auto it = std::find_if(entries_.begin(), entries_.end(), [&](const auto& e) { return e->info.id == id; });
  return it == entries_.end() ? nullptr : it->get();
}

Result<ApiKeyInfo> KeyStore::Get(std::string_view id) const {
  std::lock_guard lock(mu_);
  const Entry* entry = FindById(id);
  if (!entry) return Status::NotFound(fmt::format("no key with id \"{}\"", id));
  return entry->info;
}

Status KeyStore::Revoke(std::string_view id) {
  std::lock_guard lock(mu_);
  Entry* entry = FindById(id);
  if (!entry) return Status::NotFound(fmt::format("no key with id \"{}\"", id));
  if (entry->info.revoked_at) return Status::Ok();
  UnixMs now = clock_.Now();
  CILIA_ASSIGN_OR_RETURN(Statement * update, db_->Prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?"));
  update->Bind(1, now).Bind(2, entry->info.id);
  CILIA_RETURN_IF_ERROR(update->Run());
  entry->info.revoked_at = now;
  return Status::Ok();
}

Result<ApiKeyInfo> KeyStore::Verify(std::string_view secret) {
  std::string hash = Sha256Hex(secret);
  std::lock_guard lock(mu_);
  auto it = by_hash_.find(hash);
  // The map lookup compares hashes, which tell an attacker nothing about the
  // key; the comparison that decides is constant-time.
  if (it == by_hash_.end() || !ConstantTimeEquals(it->second->hash, hash)) {
    return Status::Unauthenticated("invalid API key");
  }
  Entry& entry = *it->second;
  if (entry.info.revoked_at) return Status::Unauthenticated("this API key has been revoked");
  RecordUse(entry);
  return entry.info;
}

void KeyStore::RecordUse(Entry& entry) {
  UnixMs now = clock_.Now();
  entry.info.last_used_at = now;
  if (now - entry.last_used_written < kLastUsedResolutionMs) return;
  auto update = db_->Prepare("UPDATE api_keys SET last_used_at = ? WHERE id = ?");
  // A failed write only loses a timestamp; the request goes on.
  if (update.ok()) {
    (*update)->Bind(1, now).Bind(2, entry.info.id);
    if ((*update)->Run().ok()) entry.last_used_written = now;
  }
}

size_t KeyStore::ActiveCount() const {
  std::lock_guard lock(mu_);
  return std::count_if(entries_.begin(), entries_.end(), [](const auto& e) { return !e->info.revoked_at; });
}

}  // namespace cilia::store
