// The HTTP server: a thin adapter over cpp-httplib. Routes are registered
// with the scope they need; the server authenticates each request, checks
// the scope, times it into the metrics, turns every exception into a shaped
// 500, and answers unknown routes, bodies over the limit and other protocol
// errors with errors shaped like the API of the path. It serves GET /health
// (no key) and GET /metrics (admin) itself.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "api/auth.h"
#include "api/http_util.h"
#include "api/metrics.h"
#include "core/config.h"
#include "core/status.h"

namespace cilia::api {

// `principal` is valid only during the call: a streaming handler copies what
// its content provider needs.
using Handler = std::function<void(const httplib::Request&, httplib::Response&, const Principal&)>;
using PublicHandler = std::function<void(const httplib::Request&, httplib::Response&)>;

struct ServerOptions {
  int threads = 256;
  int keep_alive_timeout_s = 5;
  size_t max_body_bytes = size_t{32} << 20;
  int read_timeout_s = 30;
  int write_timeout_s = 30;
  std::vector<std::string> cors_origins;  // exact origins, or "*"

  static ServerOptions FromConfig(const ServerConfig& server);
};

class ApiServer {
 public:
  ApiServer(ServerOptions options, Authenticator authenticator);
  // Stops the server and waits for every request in flight, however long.
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  // Registers a route; all routes are registered before Start. The request
  // needs a key (Authorization: Bearer or x-api-key; also ?token= when
  // allow_query_token) with `scope`: 401 without a valid key, 403 without the
  // scope, both in `style`. `method` is GET, POST, PUT, PATCH, DELETE or
  // OPTIONS; `pattern` an httplib regex over the path, e.g.
  // R"(/v1/conversations/([^/]+)/messages)" (captures in req.matches).
  void Handle(const std::string& method, const std::string& pattern, Scope scope, Handler handler,
              ErrorStyle style = ErrorStyle::kOpenAI, bool allow_query_token = false);
  // A route anyone may call (the admin page's static files): timed and
  // shielded from exceptions like the others, but no key is asked for.
  void HandlePublic(const std::string& method, const std::string& pattern, PublicHandler handler,
                    ErrorStyle style = ErrorStyle::kOpenAI);

  Metrics& metrics() { return metrics_; }
  // For a route that takes any valid key, whatever its scopes (GET /v1/whoami).
  const Authenticator& authenticator() const { return authenticator_; }

  // Binds the address (port 0: any free port) and serves on a background
  // thread. Returns the port bound.
  Result<int> Start(const ListenAddress& address);
  // Stops accepting connections and waits up to `grace` for the requests in
  // flight. True when all finished; false leaves them running (the caller
  // then exits the process).
  bool Shutdown(std::chrono::milliseconds grace);
  // True from Start until the server stopped serving, for whatever reason.
  bool serving() const { return serving_.load(); }

 private:
  struct Route {
    std::regex path;
    ErrorStyle style;
    std::string label;  // the route in metrics: the pattern with each group as "*"
  };

  // The new route, or nullptr (logged) when the pattern is not a regex.
  const Route* AddRoute(const std::string& pattern, ErrorStyle style);
  void Register(const std::string& method, const std::string& pattern, httplib::Server::Handler handler);
  httplib::Server::HandlerResponse BeforeRouting(const httplib::Request& req, httplib::Response& res);
  httplib::Server::HandlerResponse AnswerError(const httplib::Request& req, httplib::Response& res);
  void AfterResponse(const httplib::Request& req, const httplib::Response& res);
  ErrorStyle StyleForPath(const std::string& path) const;
  bool OriginAllowed(const std::string& origin) const;

  ServerOptions options_;
  Authenticator authenticator_;
  Metrics metrics_;
  httplib::Server http_;
  std::deque<Route> routes_;  // a deque keeps labels at fixed addresses
  std::atomic<bool> serving_{false};
  int listen_socket_ = -1;  // the bound socket, as httplib's socket options saw it
  std::thread listener_;
  std::future<void> listener_done_;
};

}  // namespace cilia::api
