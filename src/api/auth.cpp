#include "api/auth.h"

#include <fmt/format.h>

#include <strings.h>

#include "core/codec.h"
#include "core/config.h"

namespace cilia::api {

namespace {

constexpr Scope kScopes[] = {Scope::kChat, Scope::kMemoryRead, Scope::kMemoryWrite, Scope::kAdmin};

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string KnownScopes() {
  return fmt::format("{}", fmt::join(ScopeNames(kAllScopes), ", "));
}

}  // namespace

const char* ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kChat: return "chat";
    case Scope::kMemoryRead: return "memory:read";
    case Scope::kMemoryWrite: return "memory:write";
    case Scope::kAdmin: return "admin";
  }
  return "admin";
}

Result<Scope> ParseScope(std::string_view name) {
  for (Scope scope : kScopes) {
    if (name == ScopeName(scope)) return scope;
  }
  return Status::InvalidArgument(fmt::format("unknown scope \"{}\" (scopes: {})", name, KnownScopes()));
}

Result<uint32_t> ParseScopeList(std::string_view list) {
  uint32_t scopes = 0;
  for (const std::string& name : SplitList(list)) {
    if (name.empty()) {
      return Status::InvalidArgument(fmt::format("empty scope in \"{}\" (scopes: {})", list, KnownScopes()));
    }
    CILIA_ASSIGN_OR_RETURN(Scope scope, ParseScope(name));
    scopes |= ScopeBit(scope);
  }
  return scopes;
}

std::vector<std::string> ScopeNames(uint32_t scopes) {
  std::vector<std::string> names;
  for (Scope scope : kScopes) {
    if (scopes & ScopeBit(scope)) names.emplace_back(ScopeName(scope));
  }
  return names;
}

std::optional<std::string> PresentedKey(const httplib::Request& req, bool allow_query_token) {
  constexpr std::string_view kBearer = "bearer ";
  if (req.has_header("Authorization")) {
    const std::string header = req.get_header_value("Authorization");
    std::string_view value = Trim(header);
    if (value.size() > kBearer.size() && strncasecmp(value.data(), kBearer.data(), kBearer.size()) == 0) {
      std::string_view key = Trim(value.substr(kBearer.size()));
      if (!key.empty()) return std::string(key);
    }
  }
  if (req.has_header("x-api-key")) {
    const std::string header = req.get_header_value("x-api-key");
    std::string_view key = Trim(header);
    if (!key.empty()) return std::string(key);
  }
  if (allow_query_token && req.has_param("token")) {
    std::string key = req.get_param_value("token");
    if (!key.empty()) return key;
  }
  return std::nullopt;
}

Authenticator::Authenticator(store::KeyStore* keys, std::string env_key)
    : keys_(keys), env_key_hash_(env_key.empty() ? "" : Sha256Hex(env_key)) {}

Result<Principal> Authenticator::Authenticate(const httplib::Request& req, bool allow_query_token) const {
  std::optional<std::string> key = PresentedKey(req, allow_query_token);
  if (!key) {
    return Status::Unauthenticated("missing API key: send it as \"Authorization: Bearer <key>\" or \"x-api-key: <key>\"");
  }
  return AuthenticateKey(*key);
}

Result<Principal> Authenticator::AuthenticateKey(std::string_view key) const {
  // Both sides hashed, so the comparison takes the same time whatever the
  // length or content of the presented key.
  if (!env_key_hash_.empty() && store::ConstantTimeEquals(Sha256Hex(key), env_key_hash_)) {
    return Principal{"env", "default", kAllScopes};
  }
  if (!keys_) return Status::Unauthenticated("invalid API key");
  CILIA_ASSIGN_OR_RETURN(store::ApiKeyInfo info, keys_->Verify(key));
  uint32_t scopes = 0;
  for (const std::string& name : info.scopes) {
    // A name this build does not know (a newer cilia's) grants nothing.
    if (auto scope = ParseScope(name); scope.ok()) scopes |= ScopeBit(*scope);
  }
  return Principal{std::move(info.id), std::move(info.name_space), scopes, info.features};
}

}  // namespace cilia::api
