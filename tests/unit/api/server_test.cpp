#include "api/server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <filesystem>
#include <stdexcept>

#include "core/clock.h"
#include "core/version.h"
#include "testing/raw_client.h"

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using nlohmann::json;

constexpr char kEnvKey[] = "cilia_test_env_key_0123456789";

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-server-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    keys_ = std::move(store::KeyStore::Open(dir_ + "/system.db")).value();
    admin_ = keys_->Create("admin", "default", {"admin"})->secret;
    reader_ = keys_->Create("reader", "other", {"memory:read"})->secret;
    revoked_ = keys_->Create("old", "default", {"admin"})->secret;
    ASSERT_TRUE(keys_->Revoke(keys_->List().back().id).ok());
  }
  void TearDown() override {
    server_.reset();
    keys_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Starts a server with the test routes on a free loopback port.
  void Start(ServerOptions options = {}) {
    options.threads = 4;
    server_ = std::make_unique<ApiServer>(options, Authenticator(keys_.get(), kEnvKey));
    auto echo = [](const Request& req) -> Result<Reply> {
      json body = {{"namespace", req.who.name_space}, {"key_id", req.who.key_id}};
      if (!req.captures.empty()) body["item"] = req.captures[0];
      return Reply::Json(body);
    };
    server_->Handle("GET", "/v1/echo", Scope::kMemoryRead, echo);
    server_->Handle("POST", "/v1/echo", Scope::kMemoryWrite, echo);
    server_->Handle("GET", R"(/v1/items/([^/]+))", Scope::kMemoryRead, echo);
    server_->Handle("GET", "/mcp", Scope::kMemoryRead, echo, ErrorStyle::kOpenAI, /*allow_query_token=*/true);
    server_->Handle("POST", "/v1/messages", Scope::kChat, echo, ErrorStyle::kAnthropic);
    server_->Handle("GET", "/v1/refused", Scope::kMemoryRead, [](const Request&) -> Result<Reply> {
      return Status::Conflict("the handler says no");
    });
    server_->Handle("GET", "/v1/refused-anthropic", Scope::kMemoryRead,
                    [](const Request&) -> Result<Reply> { return Status::Busy("try later"); }, ErrorStyle::kAnthropic);
    server_->Handle("GET", "/v1/boom", Scope::kMemoryRead, [](const Request&) -> Result<Reply> {
      throw std::runtime_error("kaboom: secret detail");
    });
    server_->Handle("GET", "/v1/stream", Scope::kMemoryRead, [](const Request&) -> Result<Reply> {
      return Reply::Stream("text/event-stream", [](httplib::DataSink& sink) {
        sink.os << "data: 1\n\n";
        sink.done();
        return true;
      });
    });
    server_->Handle("GET", "/v1/broken-stream", Scope::kMemoryRead, [](const Request&) -> Result<Reply> {
      return Reply::Stream("text/event-stream",
                           [](httplib::DataSink&) -> bool { throw std::runtime_error("the producer died"); });
    });
    server_->Handle("GET", "/v1/half-stream", Scope::kMemoryRead, [](const Request&) -> Result<Reply> {
      Reply stream = Reply::Stream("text/event-stream", [](httplib::DataSink&) { return true; });
      (void)stream;
      throw std::runtime_error("failed after choosing to stream");
    });
    server_->HandlePublic("GET", "/admin", [](const Request&) -> Result<Reply> {
      return Reply::Text("<!doctype html>", "text/html");
    });
    auto port = server_->Start({"127.0.0.1", 0});
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }

  httplib::Result Get(const std::string& path, const std::string& key = "") {
    httplib::Headers headers;
    if (!key.empty()) headers.emplace("Authorization", "Bearer " + key);
    return client_->Get(path.c_str(), headers);
  }
  httplib::Result Post(const std::string& path, const std::string& body, const std::string& key = "") {
    httplib::Headers headers;
    if (!key.empty()) headers.emplace("Authorization", "Bearer " + key);
    return client_->Post(path.c_str(), headers, body, "application/json");
  }

  // The OpenAI-shaped error of a reply with `status`.
  static json OpenAIError(const httplib::Result& reply, int status) {
    EXPECT_TRUE(reply);
    if (!reply) return json();
    EXPECT_EQ(reply->status, status) << reply->body;
    EXPECT_THAT(reply->get_header_value("Content-Type"), HasSubstr("application/json"));
    json body = json::parse(reply->body, nullptr, false);
    EXPECT_TRUE(body.contains("error")) << reply->body;
    EXPECT_TRUE(body["error"]["message"].is_string()) << reply->body;
    EXPECT_TRUE(body["error"]["type"].is_string()) << reply->body;
    EXPECT_TRUE(body["error"]["code"].is_string()) << reply->body;
    return body["error"];
  }

  std::string dir_;
  std::unique_ptr<store::KeyStore> keys_;
  std::string admin_, reader_, revoked_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

TEST_F(ServerTest, RoutesListsEveryRouteAsRegisteredWithItsScopeAndErrorShape) {
  Start();
  const std::vector<ApiServer::RouteInfo> routes = server_->routes();
  ASSERT_GE(routes.size(), 3u);
  EXPECT_EQ(routes[0].method, "GET");  // the server's own routes come first
  EXPECT_EQ(routes[0].pattern, "/health");
  EXPECT_TRUE(routes[0].is_public);
  EXPECT_EQ(routes[1].pattern, "/metrics");
  EXPECT_EQ(routes[1].scope, Scope::kAdmin);
  auto find = [&](const std::string& method, const std::string& pattern) -> const ApiServer::RouteInfo* {
    for (const auto& route : routes) {
      if (route.method == method && route.pattern == pattern) return &route;
    }
    return nullptr;
  };
  const ApiServer::RouteInfo* item = find("GET", R"(/v1/items/([^/]+))");
  ASSERT_NE(item, nullptr);
  EXPECT_FALSE(item->is_public);
  EXPECT_EQ(item->scope, Scope::kMemoryRead);
  const ApiServer::RouteInfo* messages = find("POST", "/v1/messages");
  ASSERT_NE(messages, nullptr);
  EXPECT_EQ(messages->style, ErrorStyle::kAnthropic);
  ASSERT_NE(find("GET", "/admin"), nullptr);
  EXPECT_TRUE(find("GET", "/admin")->is_public);
  EXPECT_EQ(find("PUT", "/v1/echo"), nullptr);
}

TEST(RouteLabelTest, GroupsBecomeStarsAndEscapesAreUndone) {
  EXPECT_EQ(RouteLabel(R"(/v1/conversations/([^/]+)/messages/([^/]+))"), "/v1/conversations/*/messages/*");
  EXPECT_EQ(RouteLabel(R"(/v1/a\.b/((x)|y))"), "/v1/a.b/*");
  EXPECT_EQ(RouteLabel("/health"), "/health");
}

TEST_F(ServerTest, HealthNeedsNoKeyAndTellsTheVersion) {
  Start();
  auto reply = Get("/health");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(json::parse(reply->body), json({{"status", "ok"}, {"version", kVersion}}));
}

TEST_F(ServerTest, APublicRouteNeedsNoKey) {
  Start();
  auto reply = Get("/admin");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "<!doctype html>");
}

TEST_F(ServerTest, NoKeyIs401) {
  Start();
  json error = OpenAIError(Get("/v1/echo"), 401);
  EXPECT_EQ(error["type"], "authentication_error");
  EXPECT_EQ(error["code"], "unauthenticated");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("Authorization: Bearer"));
}

TEST_F(ServerTest, ABadOrRevokedKeyIs401) {
  Start();
  EXPECT_EQ(OpenAIError(Get("/v1/echo", admin_ + "x"), 401)["message"], "invalid API key");
  EXPECT_THAT(OpenAIError(Get("/v1/echo", revoked_), 401)["message"].get<std::string>(), HasSubstr("revoked"));
  EXPECT_EQ(OpenAIError(Get("/v1/echo", "密钥"), 401)["code"], "unauthenticated");
}

TEST_F(ServerTest, AKeyWithoutTheScopeIs403) {
  Start();
  json error = OpenAIError(Post("/v1/echo", "{}", reader_), 403);
  EXPECT_EQ(error["type"], "permission_error");
  EXPECT_EQ(error["code"], "permission_denied");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("memory:write"));
  OpenAIError(Get("/metrics", reader_), 403);
}

TEST_F(ServerTest, TheRightKeyReachesTheHandlerWithItsNamespace) {
  Start();
  auto reply = Get("/v1/echo", reader_);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(json::parse(reply->body)["namespace"], "other");
  auto admin = Post("/v1/echo", "{}", admin_);  // admin implies memory:write
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 200);
  EXPECT_EQ(json::parse(admin->body)["namespace"], "default");
}

TEST_F(ServerTest, XApiKeyIsAcceptedLikeABearerToken) {
  Start();
  auto reply = client_->Get("/v1/echo", httplib::Headers{{"x-api-key", reader_}});
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

TEST_F(ServerTest, TheEnvironmentKeyHasFullScopesForDefault) {
  Start();
  auto reply = Post("/v1/echo", "{}", kEnvKey);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(json::parse(reply->body), json({{"namespace", "default"}, {"key_id", "env"}}));
}

TEST_F(ServerTest, AQueryTokenCountsOnlyWhereTheRouteAllowsIt) {
  Start();
  OpenAIError(Get("/v1/echo?token=" + admin_), 401);
  auto reply = Get("/mcp?token=" + admin_);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

TEST_F(ServerTest, RegexRoutesSeeTheirCaptures) {
  Start();
  auto reply = Get("/v1/items/trip-2023", admin_);
  ASSERT_TRUE(reply);
  EXPECT_EQ(json::parse(reply->body)["item"], "trip-2023");
}

TEST_F(ServerTest, AnAnthropicRouteAnswersAnthropicShapedErrors) {
  Start();
  auto reply = Post("/v1/messages", "{}");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 401);
  json body = json::parse(reply->body);
  EXPECT_EQ(body["type"], "error");
  EXPECT_EQ(body["error"]["type"], "authentication_error");
  EXPECT_TRUE(body["error"]["message"].is_string());
  EXPECT_FALSE(body.contains("code"));
}

TEST_F(ServerTest, ABodyOverTheLimitIs413) {
  ServerOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  std::string big = "\"" + std::string(2048, 'x') + "\"";
  json error = OpenAIError(Post("/v1/echo", big, admin_), 413);
  EXPECT_EQ(error["code"], "too_large");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("server.max_body_mb"));
  auto anthropic = Post("/v1/messages", big, admin_);
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->status, 413);
  EXPECT_EQ(json::parse(anthropic->body)["error"]["type"], "request_too_large");
  auto small = Post("/v1/echo", "\"" + std::string(500, 'x') + "\"", admin_);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 200);
}

TEST_F(ServerTest, NoKeyIs401BeforeAnyOfTheBodyIsRead) {
  Start();
  testing::RawClient client(port_);
  // The body is announced and never sent: the answer must not wait for it.
  client.Send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n");
  const auto asked = std::chrono::steady_clock::now();
  std::string answer = client.ReadUntilClosed(std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(2));
  EXPECT_THAT(answer, ::testing::StartsWith("HTTP/1.1 401"));
  EXPECT_TRUE(client.closed());  // the unread body is not taken for a request
}

TEST_F(ServerTest, APostWithoutContentLengthHasAnEmptyBodyAndTheConnectionGoesOn) {
  Start();
  testing::RawClient client(port_);
  // No Content-Length and no Transfer-Encoding: no body (RFC 9112 §6.3), as
  // `curl -X POST` sends to /approve; then a second request on the same connection.
  const std::string auth = "Authorization: Bearer " + admin_ + "\r\n";
  client.Send("POST /v1/echo HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n" + "POST /v1/echo HTTP/1.1\r\nHost: x\r\n" + auth +
              "Content-Length: 0\r\nConnection: close\r\n\r\n");
  const auto asked = std::chrono::steady_clock::now();
  std::string answer = client.ReadUntilClosed(std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(2)) << "waited for a body";
  ASSERT_THAT(answer, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_THAT(answer.substr(1), HasSubstr("HTTP/1.1 200")) << answer;
}

TEST_F(ServerTest, AHugeDeclaredLengthIs413AtOnce) {
  Start();
  testing::RawClient client(port_);
  client.Send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin_ +
              "\r\nContent-Length: 1000000000000\r\n\r\n{");
  const auto asked = std::chrono::steady_clock::now();
  std::string answer = client.ReadUntilClosed(std::chrono::seconds(5));
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(2));
  EXPECT_THAT(answer, ::testing::StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(answer, HasSubstr("server.max_body_mb"));
}

TEST_F(ServerTest, AChunkedBodyIsCountedAsItArrives) {
  ServerOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  testing::RawClient client(port_);
  std::string request = "POST /v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + admin_ +
                        "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 4; ++i) request += "258\r\n" + std::string(600, ' ') + "\r\n";  // 0x258 = 600
  client.Send(request);  // no last chunk: the server must stop reading by itself
  std::string answer = client.ReadUntilClosed(std::chrono::seconds(5));
  EXPECT_THAT(answer, ::testing::StartsWith("HTTP/1.1 413"));
}

TEST_F(ServerTest, ACompressedBodyIsCountedDecoded) {
  ServerOptions options;
  options.max_body_bytes = 1024;
  Start(options);
  client_->set_compress(true);  // gzip: 100 KB of spaces is a few hundred bytes on the wire
  json error = OpenAIError(Post("/v1/echo", "\"" + std::string(100'000, ' ') + "\"", admin_), 413);
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("decoded"));
  auto small = Post("/v1/echo", "{\"a\": 1}", admin_);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->status, 200);
}

TEST_F(ServerTest, AKeyOverItsRateLimitIs429WithRetryAfter) {
  FakeClock clock(1'780'000'000'000);
  ServerOptions options;
  options.rate_limit_requests_per_minute = 2;
  options.clock = &clock;
  Start(options);
  for (int i = 0; i < 2; ++i) {
    auto ok = Get("/v1/echo", reader_);
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200);
  }
  auto limited = Get("/v1/echo", reader_);
  ASSERT_TRUE(limited);
  json error = OpenAIError(limited, 429);
  EXPECT_EQ(limited->get_header_value("Retry-After"), "30");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("rate_limit_requests_per_minute"));
  auto other = Get("/v1/echo", admin_);  // another key has its own allowance
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 200);
  clock.Advance(30'000);
  auto later = Get("/v1/echo", reader_);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, 200);
}

TEST_F(ServerTest, ChatBodiesCountAgainstTheTokenLimit) {
  FakeClock clock(1'780'000'000'000);
  ServerOptions options;
  options.rate_limit_tokens_per_minute = 100;
  options.clock = &clock;
  Start(options);
  const std::string big = "\"" + std::string(2000, 'a') + " " + std::string(2000, 'b') + "\"";
  auto first = Post("/v1/messages", big, admin_);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  auto second = Post("/v1/messages", big, admin_);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 429);
  EXPECT_TRUE(second->has_header("Retry-After"));
  auto rest = Post("/v1/echo", big, admin_);  // not a chat route: no tokens counted
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->status, 200);
}

TEST_F(ServerTest, AnUnknownRouteIs404) {
  Start();
  json error = OpenAIError(Get("/v1/nothing-here", admin_), 404);
  EXPECT_EQ(error["type"], "not_found_error");
  EXPECT_EQ(error["message"], "no route for GET /v1/nothing-here");
}

TEST_F(ServerTest, AKnownPathWithAnotherMethodIs405WithAllow) {
  Start();
  auto reply = client_->Put("/v1/echo", httplib::Headers{{"Authorization", "Bearer " + admin_}}, "{}",
                            "application/json");
  ASSERT_TRUE(reply);
  json error = OpenAIError(reply, 405);
  EXPECT_EQ(reply->get_header_value("Allow"), "GET, POST");
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("PUT is not allowed on /v1/echo"));
  auto health = Post("/health", "{}");
  ASSERT_TRUE(health);
  OpenAIError(health, 405);
  EXPECT_EQ(health->get_header_value("Allow"), "GET");
}

TEST_F(ServerTest, AFailedResultIsShapedLikeTheRoutesApi) {
  Start();
  json error = OpenAIError(Get("/v1/refused", admin_), 409);
  EXPECT_EQ(error["message"], "the handler says no");
  EXPECT_EQ(error["code"], "conflict");
  auto anthropic = Get("/v1/refused-anthropic", admin_);
  ASSERT_TRUE(anthropic);
  EXPECT_EQ(anthropic->status, 503);
  EXPECT_EQ(json::parse(anthropic->body),
            json({{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "try later"}}}}));
}

TEST_F(ServerTest, APercentEncodedSlashStaysInsideItsPathSegment) {
  Start();
  auto reply = Get("/v1/items/trip%2F2023", admin_);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(json::parse(reply->body)["item"], "trip/2023");
  OpenAIError(Get("/v1/items/trip/2023", admin_), 404);
}

TEST_F(ServerTest, AnExceptionInAHandlerIsAShaped500WithoutItsDetail) {
  Start();
  json error = OpenAIError(Get("/v1/boom", admin_), 500);
  EXPECT_EQ(error["type"], "server_error");
  EXPECT_EQ(error["code"], "internal");
  EXPECT_THAT(error["message"].get<std::string>(), Not(HasSubstr("kaboom")));
  auto health = Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ServerTest, AHandlerThatThrowsAfterSettingUpAStreamStillAnswersAShaped500) {
  Start();
  json error = OpenAIError(Get("/v1/half-stream", admin_), 500);
  EXPECT_EQ(error["code"], "internal");
}

TEST_F(ServerTest, AStreamIsPassedThrough) {
  Start();
  auto reply = Get("/v1/stream", admin_);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "data: 1\n\n");
  EXPECT_EQ(reply->get_header_value("Content-Type"), "text/event-stream");
}

TEST_F(ServerTest, AStreamWhoseProducerThrowsEndsAndTheServerGoesOn) {
  Start();
  auto reply = Get("/v1/broken-stream", admin_);
  if (reply) {
    EXPECT_EQ(reply->body, "");
  }
  auto health = Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(ServerTest, MetricsCountRequestsByRouteAndStatus) {
  Start();
  Get("/v1/echo", admin_);
  Get("/v1/echo", admin_);
  Get("/v1/echo");
  Get("/v1/items/a", admin_);
  Get("/v1/items/b", admin_);
  Get("/nowhere");
  // A request is counted once its last byte is out, which can be just after
  // the client has read it (and requests on other connections are counted
  // by other threads): poll briefly until every count shows.
  const std::vector<std::string> expected = {
      "cilia_http_requests_total{method=\"GET\",route=\"/v1/echo\",status=\"200\"} 2\n",
      "cilia_http_requests_total{method=\"GET\",route=\"/v1/echo\",status=\"401\"} 1\n",
      "cilia_http_requests_total{method=\"GET\",route=\"/v1/items/*\",status=\"200\"} 2\n",
      "cilia_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1\n"};
  auto all_counted = [&](const std::string& text) {
    return std::all_of(expected.begin(), expected.end(),
                       [&](const std::string& line) { return text.find(line) != std::string::npos; });
  };
  auto reply = Get("/metrics", admin_);
  for (int i = 0; i < 300 && reply && !all_counted(reply->body); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    reply = Get("/metrics", admin_);
  }
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_THAT(reply->get_header_value("Content-Type"), HasSubstr("text/plain"));
  const std::string& text = reply->body;
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_http_requests_total counter"));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"GET\",route=\"/v1/echo\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"GET\",route=\"/v1/echo\",status=\"401\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"GET\",route=\"/v1/items/*\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_http_request_duration_seconds histogram"));
  EXPECT_THAT(text, HasSubstr("cilia_http_request_duration_seconds_count{method=\"GET\",route=\"/v1/echo\"} 3\n"));
}

TEST_F(ServerTest, RoutesCanAddTheirOwnMetrics) {
  Start();
  server_->metrics().Counter("cilia_ingest_messages_total").Add(7);
  auto reply = Get("/metrics", admin_);
  ASSERT_TRUE(reply);
  EXPECT_THAT(reply->body, HasSubstr("cilia_ingest_messages_total 7\n"));
}

TEST_F(ServerTest, CorsAnswersPreflightsOfConfiguredOriginsOnly) {
  ServerOptions options;
  options.cors_origins = {"https://chat.example.com"};
  Start(options);
  auto preflight = client_->Options("/v1/echo", httplib::Headers{{"Origin", "https://chat.example.com"},
                                                                   {"Access-Control-Request-Method", "POST"},
                                                                   {"Access-Control-Request-Headers", "authorization, x-stainless-os"}});
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 204);
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Origin"), "https://chat.example.com");
  EXPECT_THAT(preflight->get_header_value("Access-Control-Allow-Methods"), HasSubstr("POST"));
  EXPECT_EQ(preflight->get_header_value("Access-Control-Allow-Headers"), "authorization, x-stainless-os");

  auto allowed = client_->Get("/v1/echo", httplib::Headers{{"Origin", "https://chat.example.com"},
                                                             {"Authorization", "Bearer " + reader_}});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_EQ(allowed->get_header_value("Access-Control-Allow-Origin"), "https://chat.example.com");

  auto stranger = client_->Get("/v1/echo", httplib::Headers{{"Origin", "https://evil.example"},
                                                              {"Authorization", "Bearer " + reader_}});
  ASSERT_TRUE(stranger);
  EXPECT_FALSE(stranger->has_header("Access-Control-Allow-Origin"));
  auto stranger_preflight = client_->Options(
      "/v1/echo", httplib::Headers{{"Origin", "https://evil.example"}, {"Access-Control-Request-Method", "POST"}});
  ASSERT_TRUE(stranger_preflight);
  EXPECT_FALSE(stranger_preflight->has_header("Access-Control-Allow-Origin"));
}

TEST_F(ServerTest, WithoutConfiguredOriginsThereAreNoCorsHeaders) {
  Start();
  auto reply = client_->Get("/health", httplib::Headers{{"Origin", "https://chat.example.com"}});
  ASSERT_TRUE(reply);
  EXPECT_FALSE(reply->has_header("Access-Control-Allow-Origin"));
}

TEST_F(ServerTest, ShutdownWithNothingInFlightFinishes) {
  Start();
  ASSERT_TRUE(Get("/health"));
  EXPECT_TRUE(server_->serving());
  EXPECT_TRUE(server_->Shutdown(std::chrono::seconds(10)));
  EXPECT_FALSE(server_->serving());
  EXPECT_FALSE(Get("/health"));
}

TEST_F(ServerTest, ARouteWithABadPatternIsSkippedNotThrown) {
  ApiServer server(ServerOptions{}, Authenticator(nullptr, ""));
  auto fine = [](const Request&) -> Result<Reply> { return Reply::Json({{"fine", true}}); };
  server.HandlePublic("GET", "/v1/(unclosed", fine);
  server.HandlePublic("GET", "[", fine);
  server.HandlePublic("GET", "/v1/after", fine);
  auto port = server.Start({"127.0.0.1", 0});
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  httplib::Client client("127.0.0.1", *port);
  auto after = client.Get("/v1/after");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
  json error = OpenAIError(client.Get("/v1/(unclosed"), 404);
  EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("no route"));
}

TEST_F(ServerTest, ABusyPortIsAClearError) {
  Start();
  ApiServer second(ServerOptions{}, Authenticator(nullptr, ""));
  auto port = second.Start({"127.0.0.1", port_});
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), Code::kIOError);
  EXPECT_THAT(port.status().message(), HasSubstr("127.0.0.1:" + std::to_string(port_)));
}

TEST(ServerOptionsTest, FollowTheServerConfig) {
  ServerConfig config;
  config.threads = 300;
  config.max_body_mb = 2;
  config.cors_origins = {"*"};
  ServerOptions options = ServerOptions::FromConfig(config);
  EXPECT_EQ(options.threads, 300);
  EXPECT_EQ(options.max_body_bytes, 2u << 20);
  EXPECT_EQ(options.keep_alive_timeout_s, 5);
  EXPECT_EQ(options.cors_origins, std::vector<std::string>{"*"});
}

}  // namespace
}  // namespace cilia::api
