// The HTTP server: a thin adapter over cpp-httplib (with the connections
// guarded by api/connections.h). Routes are registered with the scope they
// need and the API whose errors they answer; the server finds the route,
// authenticates the request from its headers before reading any body, checks
// the scope, reads the body (at most max_body_bytes once decoded), calls the
// handler, writes its Reply or shapes its error (ErrorReply, in one place),
// times it into the metrics and turns every exception into a shaped 500.
// Unknown routes (404), a known path with another method (405 with Allow),
// bodies over the limit and other protocol errors get errors shaped like the
// API of the path. It serves GET /health (no key) and GET /metrics (admin).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "api/auth.h"
#include "api/connections.h"
#include "api/http_util.h"
#include "api/metrics.h"
#include "api/rate_limit.h"
#include "api/reply.h"
#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"

namespace cilia::api {

// What a handler sees of the request it answers; valid only during the call
// (a stream's producer copies what it needs).
struct Request {
  const httplib::Request& http;  // method, headers, query parameters
  const Principal& who;          // the caller; nobody (no scopes) on a public route
  std::string_view body;
  std::vector<std::string> captures;  // the route pattern's groups in order, percent-decoded
};

using Handler = std::function<Result<Reply>(const Request&)>;

struct ServerOptions {
  int threads = 256;
  int keep_alive_timeout_s = 5;
  size_t max_body_bytes = size_t{32} << 20;
  int read_timeout_s = 30;
  int write_timeout_s = 30;
  int request_timeout_s = 30;  // head and body, from the request's first byte
  size_t max_connections = 1024;
  size_t max_connections_per_peer = 128;  // 0: no cap
  int64_t rate_limit_requests_per_minute = 0;  // per key; 0: none
  int64_t rate_limit_tokens_per_minute = 0;    // per key, of chat request bodies; 0: none
  const Clock* clock = &Clock::System();       // what the rate limits count time by
  std::vector<std::string> cors_origins;  // exact origins, or "*"

  static ServerOptions FromConfig(const ServerConfig& server);
};

// A route's pattern as its metrics label: each regex group as "*", escapes
// undone. R"(/v1/conversations/([^/]+)/messages)" -> "/v1/conversations/*/messages".
std::string RouteLabel(const std::string& pattern);

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
  // scope. `method` is GET, POST, PUT, PATCH, DELETE or OPTIONS; `pattern` a
  // regex over the path as sent (still percent-encoded), e.g.
  // R"(/v1/conversations/([^/]+)/messages)"; its groups reach the handler
  // decoded, so an id holding "/" is named as %2F. A pattern that is not a
  // regex is logged and the route skipped.
  void Handle(const std::string& method, const std::string& pattern, Scope scope, Handler handler,
              ErrorStyle style = ErrorStyle::kOpenAI, bool allow_query_token = false);
  // A route anyone may call (the admin page's static files): timed and
  // shielded from exceptions like the others, but no key is asked for.
  void HandlePublic(const std::string& method, const std::string& pattern, Handler handler,
                    ErrorStyle style = ErrorStyle::kOpenAI);

  // What a route is, as registered: the list GET /openapi.json must describe
  // (tests/unit/api/routes_test.cpp holds the two against each other).
  struct RouteInfo {
    std::string method;
    std::string pattern;  // as given to Handle, e.g. R"(/v1/keys/([^/]+))"
    Scope scope;          // meaningless when is_public
    bool is_public;
    ErrorStyle style;
  };
  std::vector<RouteInfo> routes() const;

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
    std::string method;
    std::string pattern;
    std::regex path;
    std::string label;  // the route in metrics: the pattern with each group as "*"
    ErrorStyle style;
    bool is_public;
    Scope scope;
    bool allow_query_token;
    Handler handler;
  };

  void AddRoute(Route route);
  // Finds the route, checks the key, reads the body through `body` (null
  // for methods without one) and calls the handler: every request that
  // httplib parsed passes here.
  void Dispatch(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader* body);
  Result<Reply> Answer(const Route& route, const httplib::Request& req, const httplib::ContentReader* body,
                       std::vector<std::string> captures);
  // The body, decoded, refused past max_body_bytes without reading the rest.
  Result<std::string> ReadBody(const httplib::Request& req, const httplib::ContentReader& reader) const;
  // A request refused before its body was read: the body is dropped when it
  // is small, and the connection closed after the answer.
  void RefuseUnread(const httplib::Request& req, const httplib::ContentReader& reader) const;
  void Write(const httplib::Request& req, httplib::Response& res, Reply reply);
  httplib::Server::HandlerResponse BeforeRouting(const httplib::Request& req, httplib::Response& res);
  httplib::Server::HandlerResponse AnswerError(const httplib::Request& req, httplib::Response& res);
  void AfterResponse(const httplib::Request& req, const httplib::Response& res);
  ErrorStyle StyleForPath(std::string_view path) const;
  bool OriginAllowed(const std::string& origin) const;

  ServerOptions options_;
  Authenticator authenticator_;
  RateLimiter limiter_;
  Metrics metrics_;
  GuardedHttpServer http_;
  std::deque<Route> routes_;  // a deque keeps labels at fixed addresses
  std::atomic<bool> serving_{false};
  std::thread listener_;
  std::future<void> listener_done_;
};

}  // namespace cilia::api
