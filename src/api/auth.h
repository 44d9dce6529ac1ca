// Who is calling: API keys and their scopes (CONTRACT.md "HTTP"). A request
// presents a key as `Authorization: Bearer <key>` or `x-api-key: <key>` (and,
// where a route allows it, `?token=<key>`); the key names one namespace and
// the scopes it may use there.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/key_store.h"

namespace cilia::api {

enum class Scope { kChat, kMemoryRead, kMemoryWrite, kAdmin };

constexpr uint32_t ScopeBit(Scope scope) { return 1u << static_cast<int>(scope); }
inline constexpr uint32_t kAllScopes = ScopeBit(Scope::kChat) | ScopeBit(Scope::kMemoryRead) |
                                       ScopeBit(Scope::kMemoryWrite) | ScopeBit(Scope::kAdmin);

// "chat", "memory:read", "memory:write", "admin".
const char* ScopeName(Scope scope);
Result<Scope> ParseScope(std::string_view name);
// "chat,memory:read" (spaces around names allowed) as bits; an unknown or
// missing name is an InvalidArgument naming it and listing the scopes.
Result<uint32_t> ParseScopeList(std::string_view list);
// The names of the set bits, in enum order; unknown bits are ignored.
std::vector<std::string> ScopeNames(uint32_t scopes);

struct Principal {
  std::string key_id;      // the key's id; "env" for CILIA_API_KEY
  std::string name_space;  // the only namespace this caller sees
  uint32_t scopes = 0;     // ScopeBit()s
  store::FeatureOverrides features;  // the key's [features] switches; none for CILIA_API_KEY

  // Admin implies every scope.
  bool Has(Scope s) const { return (scopes & (ScopeBit(s) | ScopeBit(Scope::kAdmin))) != 0; }
};

// The key the request presents, or nullopt. `allow_query_token` also reads
// ?token= (for MCP clients that cannot set headers).
std::optional<std::string> PresentedKey(const httplib::Request& req, bool allow_query_token);

class Authenticator {
 public:
  // `keys` may be null (then only `env_key` is accepted); an empty `env_key`
  // accepts nothing by itself.
  Authenticator(store::KeyStore* keys, std::string env_key);

  // Unauthenticated when the request has no key or an unknown or revoked one.
  Result<Principal> Authenticate(const httplib::Request& req, bool allow_query_token) const;
  Result<Principal> AuthenticateKey(std::string_view key) const;

 private:
  store::KeyStore* keys_;
  std::string env_key_hash_;  // SHA-256 of CILIA_API_KEY; empty when not set
};

}  // namespace cilia::api
