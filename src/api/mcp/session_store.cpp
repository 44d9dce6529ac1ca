#include "api/mcp/session_store.h"

#include <openssl/rand.h>

#include <algorithm>

namespace cilia::api::mcp {

namespace {

Result<std::string> RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(bytes)) != 1) {
    return Status::Internal("the system random generator failed");
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes * 2);
  for (unsigned char c : raw) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

}  // namespace

SessionStore::SessionStore(size_t max_sessions, std::chrono::seconds idle_timeout, Now now)
    : max_sessions_(std::max<size_t>(1, max_sessions)), idle_timeout_(idle_timeout), now_(std::move(now)) {}

Result<Session> SessionStore::Open(std::string protocol_version, std::string key_id, std::string client_name) {
  CILIA_ASSIGN_OR_RETURN(std::string id, RandomHex(32));
  Session session{id, std::move(protocol_version), std::move(key_id), std::move(client_name), false};
  const auto now = now_();
  std::lock_guard lock(mu_);
  DropExpiredLocked(now);
  if (sessions_.size() >= max_sessions_) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(),
                                   [](const auto& a, const auto& b) { return a.second.last_used < b.second.last_used; });
    sessions_.erase(oldest);
  }
  sessions_[id] = Entry{session, now};
  return session;
}

std::optional<Session> SessionStore::Use(const std::string& id, const std::string& key_id) {
  const auto now = now_();
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  if (now - it->second.last_used > idle_timeout_) {
    sessions_.erase(it);
    return std::nullopt;
  }
  if (it->second.session.key_id != key_id) return std::nullopt;
  it->second.last_used = now;
  return it->second.session;
}

void SessionStore::MarkInitialized(const std::string& id) {
  std::lock_guard lock(mu_);
  if (auto it = sessions_.find(id); it != sessions_.end()) it->second.session.initialized = true;
}

bool SessionStore::Close(const std::string& id, const std::string& key_id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end() || it->second.session.key_id != key_id) return false;
  sessions_.erase(it);
  return true;
}

size_t SessionStore::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

void SessionStore::DropExpiredLocked(SteadyClock::time_point now) {
  std::erase_if(sessions_, [&](const auto& entry) { return now - entry.second.last_used > idle_timeout_; });
}

}  // namespace cilia::api::mcp
