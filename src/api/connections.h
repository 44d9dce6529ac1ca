// cpp-httplib's server with the connection side done here: the accept loop
// and each connection's keep-alive loop are ours, and httplib parses, routes
// and answers every request. httplib 0.11 (Debian 12) bounds each recv by
// read_timeout but not a request as a whole, and queues every connection it
// accepts: a few hundred clients sending a header byte every few seconds held
// every worker, /health with them. Here:
//  - at most `max_connections` connections are open at once, and at most
//    `max_connections_per_peer` from one address; one more is answered 503
//    at once and closed, before it waits for a worker;
//  - a request's head and body must arrive within `request_timeout` of its
//    first byte, or reading it fails (RequestTimedOut) and the connection
//    closes; writing the answer, a long stream too, has no such limit;
//  - a connection idle between requests closes after `keep_alive_timeout`;
//  - an answer given before the body was read (401, 413) closes the
//    connection (CloseAfterAnswer), so the unread body is never read as the
//    next request.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/metrics.h"
#include "core/thread_annotations.h"

namespace cilia::api {

class GuardedHttpServer : public httplib::Server {
 public:
  struct Limits {
    size_t threads = 256;
    size_t max_connections = 1024;
    size_t max_connections_per_peer = 128;  // 0: no cap
    std::chrono::seconds request_timeout{30};
    std::chrono::seconds read_timeout{30};
    std::chrono::seconds write_timeout{30};
    std::chrono::seconds keep_alive_timeout{5};
  };
  // `refused` counts connections refused by a cap, `timed_out` requests
  // that did not arrive in time; both must outlive the server.
  GuardedHttpServer(Limits limits, Counter& refused, Counter& timed_out);
  ~GuardedHttpServer() override;
  GuardedHttpServer(const GuardedHttpServer&) = delete;
  GuardedHttpServer& operator=(const GuardedHttpServer&) = delete;

  // Binds `host`:`port` (0: any free port) and listens with a full backlog.
  // The port, or -1.
  int Bind(const std::string& host, int port);
  // Accepts and serves until Stop, then waits for every open connection.
  void Serve();
  // Ends Serve from any thread; streams in flight end at their next write.
  void Stop();

  // For the request being served on this thread: close the connection once
  // the answer is out.
  static void CloseAfterAnswer();
  // True when reading the request served on this thread ran past its deadline.
  static bool RequestTimedOut();

 private:
  bool Admit(const std::string& peer);
  void Release(const std::string& peer);
  void ServeConnection(socket_t sock);

  const Limits limits_;
  Counter& refused_;
  Counter& timed_out_;
  std::atomic<bool> stopping_{false};
  socket_t listener_ = INVALID_SOCKET;  // owned by Serve once it runs
  std::mutex mu_;
  size_t open_ CILIA_GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, size_t> open_by_peer_ CILIA_GUARDED_BY(mu_);
};

}  // namespace cilia::api
