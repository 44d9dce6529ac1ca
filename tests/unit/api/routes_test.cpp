#include "api/routes.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <map>
#include <set>

#include "core/clock.h"
#include "core/executor.h"
#include "testing/temp_dir.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

// An OpenAPI path as a route's label (RouteLabel): each template as "*",
// "/v1/keys/{id}" -> "/v1/keys/*".
std::string PathShape(const std::string& path) {
  std::string shape;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '{') {
      shape.push_back('*');
      i = path.find('}', i);
      if (i == std::string::npos) break;
    } else {
      shape.push_back(path[i]);
    }
  }
  return shape;
}

const char* ErrorResponseOf(ErrorStyle style) {
  switch (style) {
    case ErrorStyle::kAnthropic: return "#/components/responses/AnthropicError";
    case ErrorStyle::kJsonRpc: return "#/components/responses/JsonRpcError";
    case ErrorStyle::kOpenAI: break;
  }
  return "#/components/responses/Error";
}

// What the OpenAPI document and the server's routes disagree on, one line
// each: a route not described, an operation no route answers, a scope or an
// error shape other than the route's. Empty when they agree.
std::vector<std::string> Disagreements(const json& document, const std::vector<ApiServer::RouteInfo>& routes) {
  static const std::set<std::string> kMethods = {"get", "put", "post", "patch", "delete", "options"};
  struct Described {
    std::string path;
    const json* operation;
  };
  std::map<std::pair<std::string, std::string>, Described> described;  // (METHOD, shape)
  for (const auto& [path, item] : document.at("paths").items()) {
    for (const auto& [method, operation] : item.items()) {
      if (!kMethods.count(method)) continue;
      std::string upper;
      for (char c : method) upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
      described[{upper, PathShape(path)}] = {path, &operation};
    }
  }
  std::vector<std::string> problems;
  std::set<std::pair<std::string, std::string>> registered;
  for (const ApiServer::RouteInfo& route : routes) {
    const std::pair<std::string, std::string> key{route.method, RouteLabel(route.pattern)};
    registered.insert(key);
    auto found = described.find(key);
    if (found == described.end()) {
      problems.push_back(fmt::format("{} {} is registered but not described", key.first, key.second));
      continue;
    }
    const std::string where = key.first + " " + found->second.path;
    const json& operation = *found->second.operation;
    const std::string scope = operation.value("x-cilia-scope", "");
    const bool open = operation.contains("security") && operation["security"].empty();
    if (route.is_public) {
      // "any": the handler checks the key itself (GET /v1/whoami).
      if (scope != "none" && scope != "any") problems.push_back(where + ": a public route, described with scope " + scope);
      if ((scope == "none") != open) problems.push_back(where + ": security must be [] exactly when the scope is none");
    } else {
      if (scope != ScopeName(route.scope)) {
        problems.push_back(fmt::format("{}: described with scope \"{}\", the route needs \"{}\"", where, scope,
                                       ScopeName(route.scope)));
      }
      if (open) problems.push_back(where + ": needs a key, described with security []");
    }
    const std::string error = operation.at("responses").value("default", json::object()).value("$ref", "");
    if (error != ErrorResponseOf(route.style)) {
      problems.push_back(fmt::format("{}: errors described as \"{}\", the route answers \"{}\"", where, error,
                                     ErrorResponseOf(route.style)));
    }
  }
  for (const auto& [key, op] : described) {
    if (!registered.count(key)) problems.push_back(fmt::format("{} {} is described but no route answers it", key.first, op.path));
  }
  return problems;
}

// Every route `cilia serve` registers, on a server of a temporary data dir.
class RoutesTest : public ::testing::Test {
 protected:
  RoutesTest() {
    config_.server.data_dir = dir_.path();
    config_.server.time_zone = "UTC";
    registry_ = std::move(memory::Registry::Open(config_, clock_)).value();
    keys_ = std::move(store::KeyStore::Open(dir_.Sub("system.db"), clock_)).value();
    chat_ = std::make_unique<gateway::ChatService>(registry_->config(), *registry_, executor_);
    mcp_ = std::make_unique<mcp::McpService>(*registry_, config_.server);
  }

  std::unique_ptr<ApiServer> Server() {
    ServerOptions options;
    options.threads = 2;
    auto server = std::make_unique<ApiServer>(options, Authenticator(keys_.get(), "client-key"));
    RegisterRoutes(*server, *keys_, *registry_, *chat_, *mcp_);
    return server;
  }

  // The document as the running server serves it.
  json Served() {
    auto server = Server();
    httplib::Client client("127.0.0.1", server->Start({"127.0.0.1", 0}).value());
    auto got = client.Get("/openapi.json");
    server->Shutdown(5s);
    if (!got || got->status != 200) return nullptr;
    return json::parse(got->body, nullptr, false);
  }

  testing::TempDir dir_;
  FakeClock clock_{1'780'000'000'000};
  Config config_;
  Executor executor_{2, 4};
  std::unique_ptr<memory::Registry> registry_;
  std::unique_ptr<store::KeyStore> keys_;
  std::unique_ptr<gateway::ChatService> chat_;
  std::unique_ptr<mcp::McpService> mcp_;
};

TEST_F(RoutesTest, TheServedDescriptionHasEveryRouteAndNothingElse) {
  const json document = Served();
  ASSERT_TRUE(document.is_object());
  EXPECT_THAT(Disagreements(document, Server()->routes()), IsEmpty());
}

TEST_F(RoutesTest, ARouteAddedWithoutItsDescriptionIsReported) {
  const json document = Served();
  ASSERT_TRUE(document.is_object());
  auto server = Server();
  server->Handle("GET", R"(/v1/undescribed/([^/]+))", Scope::kMemoryRead,
                 [](const Request&) -> Result<Reply> { return Reply::Json(json::object()); });
  EXPECT_THAT(Disagreements(document, server->routes()),
              ElementsAre("GET /v1/undescribed/* is registered but not described"));
}

TEST_F(RoutesTest, AnOperationNoRouteAnswersIsReported) {
  json document = Served();
  ASSERT_TRUE(document.is_object());
  document["paths"]["/v1/ghosts/{id}"]["delete"] = {{"summary", "no such route"}, {"responses", json::object()}};
  EXPECT_THAT(Disagreements(document, Server()->routes()),
              ElementsAre("DELETE /v1/ghosts/{id} is described but no route answers it"));
}

TEST_F(RoutesTest, AWrongScopeOrErrorShapeIsReported) {
  json document = Served();
  ASSERT_TRUE(document.is_object());
  document["paths"]["/v1/keys"]["get"]["x-cilia-scope"] = "memory:read";
  document["paths"]["/v1/messages"]["post"]["responses"]["default"]["$ref"] = "#/components/responses/Error";
  document["paths"]["/health"]["get"].erase("security");
  EXPECT_THAT(Disagreements(document, Server()->routes()),
              ::testing::UnorderedElementsAre(
                  "GET /health: security must be [] exactly when the scope is none",
                  "GET /v1/keys: described with scope \"memory:read\", the route needs \"admin\"",
                  "POST /v1/messages: errors described as \"#/components/responses/Error\", the route answers "
                  "\"#/components/responses/AnthropicError\""));
}

TEST(RouteShapeTest, AnOpenApiTemplateMeetsTheRouteGroupItStandsFor) {
  EXPECT_EQ(PathShape("/v1/conversations/{conversation_id}/messages/{message_id}"),
            RouteLabel(R"(/v1/conversations/([^/]+)/messages/([^/]+))"));
  EXPECT_EQ(PathShape("/admin/{path}"), RouteLabel(R"(/admin/(.+))"));
  EXPECT_EQ(PathShape("/openapi.json"), RouteLabel("/openapi.json"));
}

}  // namespace
}  // namespace cilia::api
