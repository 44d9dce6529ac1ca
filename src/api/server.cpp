#include "api/server.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "core/version.h"

namespace cilia::api {

namespace {

using Clock = std::chrono::steady_clock;
using HandlerResponse = httplib::Server::HandlerResponse;

constexpr std::string_view kUnmatchedRoute = "unmatched";
constexpr std::string_view kPreflightRoute = "preflight";

// What the logger needs of the request being served on this thread: httplib
// runs routing, the handler, the answer (a stream too) and the logger on the
// worker thread that owns the connection, one request at a time.
struct RequestTrace {
  Clock::time_point start;
  std::string_view route = kUnmatchedRoute;
  bool started = false;
};
thread_local RequestTrace t_trace;

// "/v1/conversations/([^/]+)/messages" -> "/v1/conversations/*/messages".
std::string RouteLabel(const std::string& pattern) {
  std::string label;
  int depth = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      if (depth == 0) label.push_back(pattern[i + 1]);
      ++i;
    } else if (c == '(') {
      if (depth++ == 0) label.push_back('*');
    } else if (c == ')') {
      depth = std::max(0, depth - 1);
    } else if (depth == 0) {
      label.push_back(c);
    }
  }
  return label;
}

std::string Truncated(std::string_view text, size_t max) {
  return text.size() <= max ? std::string(text) : fmt::format("{}…", text.substr(0, max));
}

// Runs the handler so that nothing escapes it: an exception becomes a shaped
// 500. One thrown later, by a streaming content provider, is logged and ends
// the stream: once an answer has begun, nothing else can be said.
template <typename Call>
void Shielded(const httplib::Request& req, httplib::Response& res, ErrorStyle style, Call&& call) {
  auto fail = [&](std::string_view what) {
    LogError("{} {}: handler failed: {}", req.method, req.path, what);
    res.content_provider_ = nullptr;
    res.content_length_ = 0;
    res.is_chunked_content_provider_ = false;
    ReplyError(res, Status::Internal("internal server error"), style);
  };
  try {
    call();
  } catch (const std::exception& e) {
    return fail(e.what());
  } catch (...) {
    return fail("unknown exception");
  }
  if (!res.content_provider_) return;
  res.content_provider_ = [inner = std::move(res.content_provider_), method = req.method, path = req.path](
                              size_t offset, size_t length, httplib::DataSink& sink) {
    try {
      return inner(offset, length, sink);
    } catch (const std::exception& e) {
      LogError("{} {}: stream failed: {}", method, path, e.what());
    } catch (...) {
      LogError("{} {}: stream failed: unknown exception", method, path);
    }
    return false;
  };
}

}  // namespace

ServerOptions ServerOptions::FromConfig(const ServerConfig& server) {
  ServerOptions options;
  options.threads = server.threads;
  options.keep_alive_timeout_s = server.keep_alive_timeout_s;
  options.max_body_bytes = static_cast<size_t>(server.max_body_mb) << 20;
  options.read_timeout_s = server.read_timeout_s;
  options.write_timeout_s = server.write_timeout_s;
  options.cors_origins = server.cors_origins;
  return options;
}

ApiServer::ApiServer(ServerOptions options, Authenticator authenticator)
    : options_(std::move(options)), authenticator_(std::move(authenticator)) {
  size_t threads = static_cast<size_t>(std::max(1, options_.threads));
  http_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_.set_tcp_nodelay(true);
  // httplib's default adds SO_REUSEPORT, which would let a second server bind
  // the same port and silently take half of the connections.
  http_.set_socket_options([this](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_socket_ = sock;  // the last one offered is the one that bound
  });
  http_.set_keep_alive_timeout(options_.keep_alive_timeout_s);
  // The accept loop polls, so that stop() always ends it: without a poll a
  // stop() that races the loop's entry into accept() can leave it blocked.
  http_.set_idle_interval(0, 100'000);
  http_.set_read_timeout(options_.read_timeout_s);
  http_.set_write_timeout(options_.write_timeout_s);
  http_.set_payload_max_length(options_.max_body_bytes);
  http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return BeforeRouting(req, res);
  });
  http_.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) { return AnswerError(req, res); }));
  http_.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
    LogError("{} {}: exception outside a handler", req.method, req.path);
    ReplyError(res, Status::Internal("internal server error"), StyleForPath(req.path));
  });
  http_.set_logger([this](const httplib::Request& req, const httplib::Response& res) { AfterResponse(req, res); });

  HandlePublic("GET", "/health", [](const httplib::Request&, httplib::Response& res) {
    ReplyJson(res, 200, {{"status", "ok"}, {"version", kVersion}});
  });
  Handle("GET", "/metrics", Scope::kAdmin, [this](const httplib::Request&, httplib::Response& res, const Principal&) {
    res.status = 200;
    res.set_content(metrics_.RenderPrometheus(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

ApiServer::~ApiServer() {
  http_.stop();
  if (listener_.joinable()) listener_.join();
}

const ApiServer::Route* ApiServer::AddRoute(const std::string& pattern, ErrorStyle style) {
  try {
    return &routes_.emplace_back(Route{std::regex(pattern), style, RouteLabel(pattern)});
  } catch (const std::regex_error& e) {
    LogError("route {} not registered: bad pattern: {}", pattern, e.what());
    return nullptr;
  }
}

void ApiServer::Register(const std::string& method, const std::string& pattern, httplib::Server::Handler handler) {
  if (method == "GET") http_.Get(pattern, std::move(handler));
  else if (method == "POST") http_.Post(pattern, std::move(handler));
  else if (method == "PUT") http_.Put(pattern, std::move(handler));
  else if (method == "PATCH") http_.Patch(pattern, std::move(handler));
  else if (method == "DELETE") http_.Delete(pattern, std::move(handler));
  else if (method == "OPTIONS") http_.Options(pattern, std::move(handler));
  else LogError("route {} {} not registered: unknown method", method, pattern);
}

void ApiServer::Handle(const std::string& method, const std::string& pattern, Scope scope, Handler handler,
                       ErrorStyle style, bool allow_query_token) {
  const Route* route = AddRoute(pattern, style);
  if (!route) return;
  Register(method, pattern,
           [this, route, scope, style, allow_query_token, handler = std::move(handler)](
               const httplib::Request& req, httplib::Response& res) {
             t_trace.route = route->label;
             Result<Principal> principal = authenticator_.Authenticate(req, allow_query_token);
             if (!principal.ok()) return ReplyError(res, principal.status(), style);
             if (!principal->Has(scope)) {
               return ReplyError(res,
                                 Status::PermissionDenied(fmt::format("this key lacks the \"{}\" scope", ScopeName(scope))),
                                 style);
             }
             Shielded(req, res, style, [&] { handler(req, res, *principal); });
           });
}

void ApiServer::HandlePublic(const std::string& method, const std::string& pattern, PublicHandler handler,
                             ErrorStyle style) {
  const Route* route = AddRoute(pattern, style);
  if (!route) return;
  Register(method, pattern,
           [route, style, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
             t_trace.route = route->label;
             Shielded(req, res, style, [&] { handler(req, res); });
           });
}

Result<int> ApiServer::Start(const ListenAddress& address) {
  int port = address.port == 0 ? http_.bind_to_any_port(address.host)
                               : (http_.bind_to_port(address.host, address.port) ? address.port : -1);
  if (port < 0) {
    return Status::IOError(fmt::format("cannot listen on {}:{} (in use by another process, or not an address of "
                                       "this machine)",
                                       address.host, address.port));
  }
  // httplib listens with a backlog of 5, so a burst of new connections (200
  // clients opening streams at once) overflows the accept queue and clients
  // see resets. Listening again on the bound socket raises it (Linux).
  if (listen_socket_ >= 0 && ::listen(listen_socket_, SOMAXCONN) != 0) {
    LogWarn("could not raise the listen backlog: {}", std::strerror(errno));
  }
  std::promise<void> done;
  listener_done_ = done.get_future();
  serving_ = true;
  listener_ = std::thread([this, done = std::move(done)]() mutable {
    http_.listen_after_bind();
    serving_ = false;
    done.set_value();
  });
  // httplib's stop() does nothing until the accept loop runs; wait for it so
  // that a Shutdown right after Start cannot be lost.
  while (!http_.is_running() && listener_done_.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) {
  }
  return port;
}

bool ApiServer::Shutdown(std::chrono::milliseconds grace) {
  http_.stop();
  if (!listener_.joinable()) return true;
  if (listener_done_.wait_for(grace) != std::future_status::ready) return false;
  listener_.join();
  return true;
}

HandlerResponse ApiServer::BeforeRouting(const httplib::Request& req, httplib::Response& res) {
  t_trace = RequestTrace{Clock::now(), kUnmatchedRoute, true};
  std::string origin = req.get_header_value("Origin");
  if (origin.empty() || !OriginAllowed(origin)) return HandlerResponse::Unhandled;
  res.set_header("Access-Control-Allow-Origin", origin);
  res.set_header("Vary", "Origin");
  res.set_header("Access-Control-Expose-Headers", "Mcp-Session-Id");
  if (req.method != "OPTIONS" || !req.has_header("Access-Control-Request-Method")) return HandlerResponse::Unhandled;
  // A preflight: answer it here, before routes (which need a key the browser
  // does not send on a preflight).
  t_trace.route = kPreflightRoute;
  res.status = 204;
  res.set_header("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE, OPTIONS");
  std::string requested = req.get_header_value("Access-Control-Request-Headers");
  res.set_header("Access-Control-Allow-Headers", requested.empty() ? "Authorization, Content-Type" : requested);
  res.set_header("Access-Control-Max-Age", "600");
  return HandlerResponse::Handled;
}

HandlerResponse ApiServer::AnswerError(const httplib::Request& req, httplib::Response& res) {
  // httplib calls this for every answer of 400 or more; routes that answered
  // themselves have a body already.
  if (!res.body.empty() || res.content_provider_) return HandlerResponse::Unhandled;
  int http_status = res.status;
  std::string message;
  if (http_status == 404) {
    message = fmt::format("no route for {} {}", req.method, Truncated(req.path, 200));
  } else if (http_status == 413) {
    message = fmt::format("the request body is larger than the limit of {} MB (server.max_body_mb)",
                          options_.max_body_bytes >> 20);
  } else if (http_status == 400) {
    message = "malformed HTTP request";
  } else {
    message = fmt::format("HTTP {}", http_status);
  }
  ReplyError(res, Status(CodeForHttpStatus(http_status), std::move(message)), StyleForPath(req.path));
  res.status = http_status;  // e.g. 414 or 416 stay as httplib chose them
  return HandlerResponse::Handled;
}

void ApiServer::AfterResponse(const httplib::Request& req, const httplib::Response& res) {
  double seconds = t_trace.started ? std::chrono::duration<double>(Clock::now() - t_trace.start).count() : 0;
  std::string_view route = t_trace.started ? t_trace.route : kUnmatchedRoute;
  t_trace.started = false;
  metrics_.ObserveRequest(req.method, route, res.status, seconds);
  // The path only: a query may carry ?token=.
  if (res.status >= 500) {
    LogWarn("{} {} -> {} ({:.1f} ms)", req.method, req.path, res.status, seconds * 1000);
  } else {
    LogDebug("{} {} -> {} ({:.1f} ms)", req.method, req.path, res.status, seconds * 1000);
  }
}

ErrorStyle ApiServer::StyleForPath(const std::string& path) const {
  for (const Route& route : routes_) {
    if (std::regex_match(path, route.path)) return route.style;
  }
  return ErrorStyle::kOpenAI;
}

bool ApiServer::OriginAllowed(const std::string& origin) const {
  const auto& allowed = options_.cors_origins;
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& o) { return o == "*" || o == origin; });
}

}  // namespace cilia::api
