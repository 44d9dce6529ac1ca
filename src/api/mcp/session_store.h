// MCP sessions of the initialize-era revisions (2025-03-26 .. 2025-11-25):
// an id handed out at initialize (Mcp-Session-Id) and required on every
// later request, bound to the key that opened it and to the revision agreed.
// Sessions live in memory only: after a restart a client gets 404 and
// initializes again, as the specification has it. Idle sessions expire;
// past the limit the least recently used one is dropped.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/status.h"
#include "core/thread_annotations.h"

namespace cilia::api::mcp {

struct Session {
  std::string id;                // 32 random bytes as hex: visible ASCII, as the transport requires
  std::string protocol_version;  // the revision agreed at initialize
  std::string key_id;            // only this key may use the session
  std::string client_name;       // clientInfo.name, for notes the tools write
  bool initialized = false;      // notifications/initialized came
};

class SessionStore {
 public:
  using SteadyClock = std::chrono::steady_clock;
  using Now = std::function<SteadyClock::time_point()>;

  SessionStore(size_t max_sessions, std::chrono::seconds idle_timeout, Now now = SteadyClock::now);

  // A new session; Internal only when the system's random source fails.
  Result<Session> Open(std::string protocol_version, std::string key_id, std::string client_name);
  // The session, when it exists, has not expired and belongs to `key_id`;
  // its idle time starts again.
  std::optional<Session> Use(const std::string& id, const std::string& key_id);
  void MarkInitialized(const std::string& id);
  // False when there was no such session of that key.
  bool Close(const std::string& id, const std::string& key_id);
  size_t size() const;

 private:
  struct Entry {
    Session session;
    SteadyClock::time_point last_used;
  };
  void DropExpiredLocked(SteadyClock::time_point now) CILIA_REQUIRES(mu_);

  const size_t max_sessions_;
  const std::chrono::seconds idle_timeout_;
  const Now now_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> sessions_ CILIA_GUARDED_BY(mu_);
};

}  // namespace cilia::api::mcp
