#include "api/server.h"

#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "core/version.h"
#include "text/tokens.h"

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
  bool answered = false;  // Dispatch wrote the answer (else httplib chose an error status)
};
thread_local RequestTrace t_trace;

// The path as the client sent it, before percent-decoding: routes match it,
// so that an id holding "/" (sent as %2F) stays one path segment.
std::string_view RawPath(const httplib::Request& req) {
  std::string_view target = req.target;
  return target.substr(0, target.find_first_of("?#"));
}

// Text from the request for a log line or a message: control characters
// escaped (a CR/LF in a path must not forge a log line), at most `max` bytes.
std::string Printable(std::string_view text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\r') out += "\\r";
    else if (c == '\n') out += "\\n";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out.push_back(static_cast<char>(c));
  }
  if (text.size() > max) out += "…";
  return out;
}

// 429, in the route's shape, with when to try again.
Reply RateLimited(const std::string& limit, int64_t retry_after_s, ErrorStyle style) {
  Reply refused = ErrorReply(
      Status::Busy(fmt::format("this key is over its rate limit of {}; retry in {} s", limit, retry_after_s)), style);
  refused.status = 429;
  return std::move(refused).WithHeader("Retry-After", std::to_string(retry_after_s));
}

// Runs the handler so that nothing escapes it: an exception becomes a 500,
// its detail only in the log.
template <typename Call>
Result<Reply> Shielded(const httplib::Request& req, Call&& call) {
  std::string what;
  try {
    return call();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown exception";
  }
  LogError("{} {}: handler failed: {}", req.method, Printable(req.path, 200), what);
  return Status::Internal("internal server error");
}

// A stream's producer, shielded too: once an answer has begun nothing else
// can be said, so an exception is logged and ends the stream.
Reply::Producer ShieldedProducer(Reply::Producer inner, std::string method, std::string path) {
  return [inner = std::move(inner), method = std::move(method), path = std::move(path)](httplib::DataSink& sink) {
    try {
      return inner(sink);
    } catch (const std::exception& e) {
      LogError("{} {}: stream failed: {}", method, path, e.what());
    } catch (...) {
      LogError("{} {}: stream failed: unknown exception", method, path);
    }
    return false;
  };
}

}  // namespace

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

ServerOptions ServerOptions::FromConfig(const ServerConfig& server) {
  ServerOptions options;
  options.threads = server.threads;
  options.keep_alive_timeout_s = server.keep_alive_timeout_s;
  options.max_body_bytes = static_cast<size_t>(server.max_body_mb) << 20;
  options.read_timeout_s = server.read_timeout_s;
  options.write_timeout_s = server.write_timeout_s;
  options.request_timeout_s = server.request_timeout_s;
  options.max_connections = static_cast<size_t>(server.max_connections);
  options.max_connections_per_peer = static_cast<size_t>(server.max_connections_per_peer);
  options.rate_limit_requests_per_minute = server.rate_limit_requests_per_minute;
  options.rate_limit_tokens_per_minute = server.rate_limit_tokens_per_minute;
  options.cors_origins = server.cors_origins;
  return options;
}

namespace {

GuardedHttpServer::Limits ConnectionLimits(const ServerOptions& options) {
  GuardedHttpServer::Limits limits;
  limits.threads = static_cast<size_t>(std::max(1, options.threads));
  limits.max_connections = options.max_connections;
  limits.max_connections_per_peer = options.max_connections_per_peer;
  limits.request_timeout = std::chrono::seconds(options.request_timeout_s);
  limits.read_timeout = std::chrono::seconds(options.read_timeout_s);
  limits.write_timeout = std::chrono::seconds(options.write_timeout_s);
  limits.keep_alive_timeout = std::chrono::seconds(options.keep_alive_timeout_s);
  return limits;
}

}  // namespace

ApiServer::ApiServer(ServerOptions options, Authenticator authenticator)
    : options_(std::move(options)),
      authenticator_(std::move(authenticator)),
      limiter_(options_.rate_limit_requests_per_minute, options_.rate_limit_tokens_per_minute, *options_.clock),
      http_(ConnectionLimits(options_), metrics_.Counter("cilia_http_connections_refused_total"),
            metrics_.Counter("cilia_http_requests_timed_out_total")) {
  // httplib's default adds SO_REUSEPORT, which would let a second server bind
  // the same port and silently take half of the connections.
  http_.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // A Content-Length over this is refused before httplib reads a byte of
  // it (ReadBody); a decoded body is counted as it arrives.
  http_.set_payload_max_length(options_.max_body_bytes);
  http_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return BeforeRouting(req, res);
  });
  // Every method to one dispatcher: routes are found in routes_, so that
  // 404 and 405 are told apart and a route matches the path as sent.
  // Methods with a body get a content reader: httplib calls them before it
  // reads a byte of the body, so the key is checked first.
  auto without_body = [this](const httplib::Request& req, httplib::Response& res) { Dispatch(req, res, nullptr); };
  auto with_body = [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& body) {
    Dispatch(req, res, &body);
  };
  constexpr const char* kAnyPath = ".*";
  http_.Get(kAnyPath, without_body);
  http_.Options(kAnyPath, without_body);
  http_.Post(kAnyPath, with_body);
  http_.Put(kAnyPath, with_body);
  http_.Patch(kAnyPath, with_body);
  http_.Delete(kAnyPath, with_body);
  http_.set_error_handler(httplib::Server::HandlerWithResponse(
      [this](const httplib::Request& req, httplib::Response& res) { return AnswerError(req, res); }));
  http_.set_exception_handler([this](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
    LogError("{} {}: exception outside a handler", req.method, Printable(req.path, 200));
    Write(req, res, ErrorReply(Status::Internal("internal server error"), StyleForPath(RawPath(req))));
  });
  http_.set_logger([this](const httplib::Request& req, const httplib::Response& res) { AfterResponse(req, res); });

  HandlePublic("GET", "/health", [](const Request&) -> Result<Reply> {
    return Reply::Json({{"status", "ok"}, {"version", kVersion}});
  });
  Handle("GET", "/metrics", Scope::kAdmin, [this](const Request&) -> Result<Reply> {
    return Reply::Text(metrics_.RenderPrometheus(), "text/plain; version=0.0.4; charset=utf-8");
  });
}

ApiServer::~ApiServer() {
  http_.Stop();
  if (listener_.joinable()) listener_.join();
}

void ApiServer::AddRoute(Route route) {
  const std::string& pattern = route.pattern;
  static const char* const kMethods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"};
  if (std::find(std::begin(kMethods), std::end(kMethods), route.method) == std::end(kMethods)) {
    LogError("route {} {} not registered: unknown method", route.method, pattern);
    return;
  }
  try {
    route.path = std::regex(pattern);
  } catch (const std::regex_error& e) {
    LogError("route {} not registered: bad pattern: {}", pattern, e.what());
    return;
  }
  route.label = RouteLabel(pattern);
  routes_.push_back(std::move(route));
}

void ApiServer::Handle(const std::string& method, const std::string& pattern, Scope scope, Handler handler,
                       ErrorStyle style, bool allow_query_token) {
  AddRoute(Route{method, pattern, {}, {}, style, /*is_public=*/false, scope, allow_query_token, std::move(handler)});
}

void ApiServer::HandlePublic(const std::string& method, const std::string& pattern, Handler handler,
                             ErrorStyle style) {
  AddRoute(Route{method, pattern, {}, {}, style, /*is_public=*/true, Scope::kAdmin, false, std::move(handler)});
}

std::vector<ApiServer::RouteInfo> ApiServer::routes() const {
  std::vector<RouteInfo> out;
  for (const Route& route : routes_) out.push_back({route.method, route.pattern, route.scope, route.is_public, route.style});
  return out;
}

void ApiServer::Dispatch(const httplib::Request& req, httplib::Response& res, const httplib::ContentReader* body) {
  const std::string_view path = RawPath(req);
  const std::string method = req.method == "HEAD" ? "GET" : req.method;
  // A GET that carries a body anyway: nothing reads it, so the connection
  // must not carry it on to be read as the next request.
  if (!body && (req.has_header("Content-Length") || req.has_header("Transfer-Encoding"))) {
    GuardedHttpServer::CloseAfterAnswer();
  }
  std::vector<std::string> allowed;  // methods of the routes whose path matches
  for (const Route& route : routes_) {
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_match(path.begin(), path.end(), match, route.path)) continue;
    if (route.method != method) {
      if (std::find(allowed.begin(), allowed.end(), route.method) == allowed.end()) allowed.push_back(route.method);
      continue;
    }
    t_trace.route = route.label;
    std::vector<std::string> captures;
    for (size_t i = 1; i < match.size(); ++i) {
      const auto& group = match[i];
      captures.push_back(group.matched ? PercentDecode(path.substr(group.first - path.begin(), group.length())) : "");
    }
    Result<Reply> reply = Answer(route, req, body, std::move(captures));
    if (reply.ok()) return Write(req, res, std::move(*reply));
    Reply error = ErrorReply(reply.status(), route.style);
    if (GuardedHttpServer::RequestTimedOut()) error.status = 408;
    return Write(req, res, std::move(error));
  }
  // The body is left unread: the connection must not carry it on.
  if (body) GuardedHttpServer::CloseAfterAnswer();
  const ErrorStyle style = StyleForPath(path);
  if (allowed.empty()) {
    return Write(req, res,
                 ErrorReply(Status::NotFound(fmt::format("no route for {} {}", req.method, Printable(req.path, 200))),
                            style));
  }
  Reply refused = ErrorReply(Status::NotFound(fmt::format("{} is not allowed on {} (allowed: {})", req.method,
                                                          Printable(req.path, 200), fmt::join(allowed, ", "))),
                             style);
  refused.status = 405;
  Write(req, res, std::move(refused).WithHeader("Allow", fmt::format("{}", fmt::join(allowed, ", "))));
}

Result<Reply> ApiServer::Answer(const Route& route, const httplib::Request& req, const httplib::ContentReader* body,
                                std::vector<std::string> captures) {
  Principal who;  // nobody, on a public route
  if (!route.is_public) {
    Result<Principal> principal = authenticator_.Authenticate(req, route.allow_query_token);
    if (principal.ok() && !principal->Has(route.scope)) {
      principal = Status::PermissionDenied(fmt::format("this key lacks the \"{}\" scope", ScopeName(route.scope)));
    }
    if (!principal.ok()) {
      // Decided from the headers: a large body is never read.
      if (body) RefuseUnread(req, *body);
      return principal.status();
    }
    who = std::move(*principal);
    if (std::optional<int64_t> wait = limiter_.TakeRequest(who.key_id)) {
      if (body) RefuseUnread(req, *body);
      return RateLimited(fmt::format("{} requests per minute (server.rate_limit_requests_per_minute)",
                                     limiter_.requests_per_minute()),
                         *wait, route.style);
    }
  }
  std::string text;
  if (body) {
    Result<std::string> read = ReadBody(req, *body);
    if (!read.ok()) {
      GuardedHttpServer::CloseAfterAnswer();
      return read.status();
    }
    text = std::move(*read);
  }
  if (route.scope == Scope::kChat && !route.is_public) {
    if (std::optional<int64_t> wait = limiter_.TakeTokens(who.key_id, text::EstimateTokens(text))) {
      return RateLimited(fmt::format("{} tokens per minute (server.rate_limit_tokens_per_minute)",
                                     limiter_.tokens_per_minute()),
                         *wait, route.style);
    }
  }
  return Shielded(req, [&] { return route.handler(Request{req, who, text, std::move(captures)}); });
}

void ApiServer::RefuseUnread(const httplib::Request& req, const httplib::ContentReader& reader) const {
  // A small declared body is read and dropped: closing a connection with
  // bytes unread makes the kernel reset it, and a client still reading the
  // answer then loses it ("fetch failed" instead of the 403).
  constexpr uint64_t kDrainedAtMost = 64 * 1024;
  if (req.has_header("Content-Length") &&
      std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) <= kDrainedAtMost) {
    (void)ReadBody(req, reader);
  }
  GuardedHttpServer::CloseAfterAnswer();
}

Result<std::string> ApiServer::ReadBody(const httplib::Request& req, const httplib::ContentReader& reader) const {
  const std::string too_large = fmt::format(
      "the request body is larger than the limit of {} MB (server.max_body_mb; a compressed body counts decoded)",
      options_.max_body_bytes >> 20);
  // httplib would read a declared length over its limit to the end before
  // refusing it: refuse it here, unread.
  if (req.has_header("Content-Length") &&
      std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10) > options_.max_body_bytes) {
    return Status::TooLarge(too_large);
  }
  if (req.is_multipart_form_data()) return Status::InvalidArgument("multipart bodies are not accepted; send JSON");
  // A request with neither header has no body (RFC 9112 §6.3): httplib's
  // reader would instead wait for one until the request deadline.
  if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding")) return std::string();
  std::string body;
  bool over = false;
  const bool complete = reader([&](const char* data, size_t size) {
    over = body.size() + size > options_.max_body_bytes;
    if (!over) body.append(data, size);
    return !over;
  });
  if (over) return Status::TooLarge(too_large);
  if (GuardedHttpServer::RequestTimedOut()) {
    return Status::InvalidArgument(fmt::format("the request body did not arrive within {} s (server.request_timeout_s)",
                                               options_.request_timeout_s));
  }
  if (!complete) {
    return Status::InvalidArgument(
        fmt::format("the request body could not be read (an unsupported Content-Encoding \"{}\", or a broken "
                    "chunked encoding)",
                    Printable(req.get_header_value("Content-Encoding"), 40)));
  }
  return body;
}

void ApiServer::Write(const httplib::Request& req, httplib::Response& res, Reply reply) {
  t_trace.answered = true;
  res.status = reply.status;
  for (auto& [name, value] : reply.headers) res.set_header(name, value);
  if (reply.stream) {
    res.set_chunked_content_provider(
        reply.content_type,
        [produce = ShieldedProducer(std::move(reply.stream), req.method, Printable(req.path, 200))](
            size_t, httplib::DataSink& sink) { return produce(sink); },
        std::move(reply.on_stream_end));
    return;
  }
  if (!reply.content_type.empty()) res.set_header("Content-Type", reply.content_type);
  res.body = std::move(reply.body);
}

Result<int> ApiServer::Start(const ListenAddress& address) {
  const int port = http_.Bind(address.host, address.port);
  if (port < 0) {
    return Status::IOError(fmt::format("cannot listen on {}:{} (in use by another process, or not an address of "
                                       "this machine)",
                                       address.host, address.port));
  }
  std::promise<void> done;
  listener_done_ = done.get_future();
  serving_ = true;
  listener_ = std::thread([this, done = std::move(done)]() mutable {
    http_.Serve();
    serving_ = false;
    done.set_value();
  });
  return port;
}

bool ApiServer::Shutdown(std::chrono::milliseconds grace) {
  http_.Stop();
  if (!listener_.joinable()) return true;
  if (listener_done_.wait_for(grace) != std::future_status::ready) return false;
  listener_.join();
  return true;
}

HandlerResponse ApiServer::BeforeRouting(const httplib::Request& req, httplib::Response& res) {
  t_trace = RequestTrace{Clock::now(), kUnmatchedRoute, true, false};
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
  // httplib calls this for every answer of 400 or more; those Dispatch wrote
  // are shaped already. The rest are httplib's own: a malformed request, a
  // body over the limit, a URI too long.
  if (t_trace.answered) return HandlerResponse::Unhandled;
  int http_status = res.status;
  std::string message;
  if (GuardedHttpServer::RequestTimedOut()) {
    message = fmt::format("the request did not arrive within {} s (server.request_timeout_s)", options_.request_timeout_s);
    http_status = 408;
  } else if (http_status == 413) {
    message = fmt::format("the request body is larger than the limit of {} MB (server.max_body_mb)",
                          options_.max_body_bytes >> 20);
  } else if (http_status == 400) {
    message = "malformed HTTP request";
  } else {
    message = fmt::format("HTTP {}", http_status);
  }
  Reply reply = ErrorReply(Status(CodeForHttpStatus(http_status), std::move(message)), StyleForPath(RawPath(req)));
  reply.status = http_status;  // e.g. 414 or 416 stay as httplib chose them
  Write(req, res, std::move(reply));
  return HandlerResponse::Handled;
}

void ApiServer::AfterResponse(const httplib::Request& req, const httplib::Response& res) {
  double seconds = t_trace.started ? std::chrono::duration<double>(Clock::now() - t_trace.start).count() : 0;
  std::string_view route = t_trace.started ? t_trace.route : kUnmatchedRoute;
  t_trace = RequestTrace{};
  metrics_.ObserveRequest(req.method, route, res.status, seconds);
  // The path only: a query may carry ?token=.
  if (res.status >= 500) {
    LogWarn("{} {} -> {} ({:.1f} ms)", Printable(req.method, 20), Printable(req.path, 200), res.status, seconds * 1000);
  } else {
    LogDebug("{} {} -> {} ({:.1f} ms)", Printable(req.method, 20), Printable(req.path, 200), res.status, seconds * 1000);
  }
}

ErrorStyle ApiServer::StyleForPath(std::string_view path) const {
  for (const Route& route : routes_) {
    if (std::regex_match(path.begin(), path.end(), route.path)) return route.style;
  }
  return ErrorStyle::kOpenAI;
}

bool ApiServer::OriginAllowed(const std::string& origin) const {
  const auto& allowed = options_.cors_origins;
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& o) { return o == "*" || o == origin; });
}

}  // namespace cilia::api
