// A real HTTP server on 127.0.0.1 at a free port, running for the life of one
// test. Used by the tests of everything that talks HTTP through cilia::net.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cilia::testing {

class LocalServer {
 public:
  // `routes` registers the handlers before the server starts.
  explicit LocalServer(const std::function<void(httplib::Server&)>& routes) {
    // Loopback must never go through a proxy that the environment may name.
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    routes(server_);
    // Clients keep connections open for reuse, and stop() waits for every open
    // connection's keep-alive limit: keep it short.
    server_.set_keep_alive_timeout(1);
    // Bound and listening from here on: connections wait in the backlog until
    // the thread below accepts them.
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs, so the destructor must not
    // be able to overtake it.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalServer() {
    server_.stop();
    thread_.join();
  }
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  int port() const { return port_; }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

// A one-way gate between the test and a server handler: opened once, waited
// on with a limit (so a failing test cannot hang).
class Gate {
 public:
  void Open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    opened_.notify_all();
  }
  bool WaitFor(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return opened_.wait_for(lock, limit, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

}  // namespace cilia::testing
