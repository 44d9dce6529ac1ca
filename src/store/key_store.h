// API keys, in DATA/system.db. A key is "ck_" + 40 base62 characters from
// OpenSSL's CSPRNG; only its SHA-256 is stored, so the database (or a backup
// of it) cannot be used to call cilia. All keys are held in memory, indexed
// by hash, so verifying a key on the hot path is one hash and one lookup.
//
// Scopes are opaque labels here; the API layer gives them meaning. Feature
// switches ([features] in the config) may be overridden per key.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

// A key's own values for [features] switches; an unset one follows the config.
struct FeatureOverrides {
  std::optional<bool> memory, recall_tool, compression, strip_reasoning, rewrite;

  friend bool operator==(const FeatureOverrides&, const FeatureOverrides&) = default;
};

// The switches by name, in the order they are listed and shown.
struct FeatureSwitch {
  std::string_view name;
  std::optional<bool> FeatureOverrides::*field;
};
inline constexpr FeatureSwitch kFeatureSwitches[] = {{"memory", &FeatureOverrides::memory},
                                                     {"recall_tool", &FeatureOverrides::recall_tool},
                                                     {"compression", &FeatureOverrides::compression},
                                                     {"strip_reasoning", &FeatureOverrides::strip_reasoning},
                                                     {"rewrite", &FeatureOverrides::rewrite}};

// The switch called `name`, or InvalidArgument naming it and listing the
// switches.
Result<const FeatureSwitch*> FindFeatureSwitch(std::string_view name);
// "memory=off,recall_tool=on" (values on, off, true, false; spaces around
// items allowed). An unknown name, a bad value, a switch given twice or an
// empty item is an InvalidArgument naming it.
Result<FeatureOverrides> ParseFeatureOverrides(std::string_view list);
// The same form, switches in kFeatureSwitches order; "" when none is set.
std::string FormatFeatureOverrides(const FeatureOverrides& overrides);
// {"memory": false, …}: only the switches that are set.
nlohmann::json FeatureOverridesToJson(const FeatureOverrides& overrides);
// The same object back; another name or a value that is not a boolean is an
// InvalidArgument naming it ("features.memory: …").
Result<FeatureOverrides> FeatureOverridesFromJson(const nlohmann::json& object);
// `base` with every switch the key sets replaced by the key's value.
FeaturesConfig ApplyOverrides(FeaturesConfig base, const FeatureOverrides& overrides);

struct ApiKeyInfo {
  std::string id;  // "key_" + 12 base62; public, used to revoke
  std::string name;
  std::string name_space;
  std::vector<std::string> scopes;
  UnixMs created_at = 0;
  std::optional<UnixMs> revoked_at;
  std::optional<UnixMs> last_used_at;  // kept to the minute
  FeatureOverrides features;
};

struct NewApiKey {
  ApiKeyInfo info;
  std::string secret;  // the key itself: shown once, never stored
};

class KeyStore {
 public:
  // Opens (creating when missing) the key database at `path`.
  static Result<std::unique_ptr<KeyStore>> Open(const std::string& path, const Clock& clock = Clock::System());

  // A new key. `name_space` must not be empty; each scope must be non-empty
  // and free of ','.
  Result<NewApiKey> Create(std::string_view name, std::string_view name_space, std::vector<std::string> scopes,
                           FeatureOverrides features = {});

  // Every key, revoked ones included, oldest first.
  std::vector<ApiKeyInfo> List() const;
  // The key with that id, or NotFound.
  Result<ApiKeyInfo> Get(std::string_view id) const;

  // Marks the key revoked; it is refused from then on. NotFound for an
  // unknown id; revoking twice keeps the first time.
  Status Revoke(std::string_view id);

  // The key that `secret` is, or Unauthenticated (unknown or revoked).
  Result<ApiKeyInfo> Verify(std::string_view secret);

  // How many keys are not revoked.
  size_t ActiveCount() const;

 private:
  struct Entry {
    ApiKeyInfo info;
    std::string hash;  // hex SHA-256 of the secret
    UnixMs last_used_written = 0;
  };

  KeyStore(std::unique_ptr<Database> db, const Clock& clock) : db_(std::move(db)), clock_(clock) {}
  Status MigrateSchema();
  Status LoadAll();
  Entry* FindById(std::string_view id) const;
  void RecordUse(Entry& entry);

  mutable std::mutex mu_;  // guards db_ and the maps
  std::unique_ptr<Database> db_;
  const Clock& clock_;
  std::vector<std::unique_ptr<Entry>> entries_;  // in creation order
  std::unordered_map<std::string, Entry*> by_hash_;
};

// Compares two byte strings in time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace cilia::store
