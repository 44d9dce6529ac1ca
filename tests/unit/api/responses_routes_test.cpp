#include "api/responses_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include "api/chat_routes.h"
#include "core/clock.h"
#include "core/executor.h"
#include "memory/registry.h"
#include "testing/local_server.h"
#include "testing/temp_dir.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class ResponsesRoutesTest : public ::testing::Test {
 protected:
  ResponsesRoutesTest()
      : clock_(1'780'000'000'000), upstream_([](httplib::Server& s) {
          s.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
            res.set_content(R"({"id":"c","object":"chat.completion","model":"up","choices":[{"index":0,
              "message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],
              "usage":{"prompt_tokens":10,"completion_tokens":2}})",
                            "application/json");
          });
        }) {
    config_.server.data_dir = dir_.path();
    config_.server.time_zone = "UTC";
    ProviderConfig provider;
    provider.name = "up";
    provider.base_url = upstream_.Url("/v1");
    config_.providers.push_back(provider);
    config_.models.chat = "up/model";
    config_.client_api_key = "client-key";
    registry_ = std::move(memory::Registry::Open(config_, clock_)).value();
    service_ = std::make_unique<gateway::ChatService>(registry_->config(), *registry_, executor_);
    ServerOptions options;
    options.threads = 4;
    server_ = std::make_unique<ApiServer>(options, Authenticator(nullptr, "client-key"));
    RegisterChatRoutes(*server_, *service_, registry_->config());
    RegisterResponsesRoutes(*server_, *service_);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->Start({"127.0.0.1", 0}).value());
  }
  ~ResponsesRoutesTest() override { server_->Shutdown(5s); }

  httplib::Headers Key() const { return {{"Authorization", "Bearer client-key"}}; }

  testing::TempDir dir_;
  FakeClock clock_;
  testing::LocalServer upstream_;
  Config config_;
  Executor executor_{2, 8};
  std::unique_ptr<memory::Registry> registry_;
  std::unique_ptr<gateway::ChatService> service_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ResponsesRoutesTest, AKeptResponseIsReadForgottenAndNotCancelled) {
  auto created = client_->Post("/v1/responses", Key(), R"({"model":"companion","input":"hi"})", "application/json");
  ASSERT_TRUE(created);
  ASSERT_EQ(created->status, 200) << created->body;
  const json response = json::parse(created->body);
  const std::string id = response["id"];
  auto read = client_->Get("/v1/responses/" + id, Key());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
  EXPECT_EQ(json::parse(read->body), response);

  auto cancel = client_->Post("/v1/responses/" + id + "/cancel", Key(), "", "application/json");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 400);
  EXPECT_NE(json::parse(cancel->body)["error"]["message"].get<std::string>().find("background"), std::string::npos);

  auto deleted = client_->Delete("/v1/responses/" + id, Key());
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 200);
  EXPECT_EQ(json::parse(deleted->body), (json{{"id", id}, {"object", "response"}, {"deleted", true}}));
  auto expect_gone = [](const httplib::Result& gone) {
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 404);
    EXPECT_TRUE(json::parse(gone->body)["error"].contains("message"));
  };
  expect_gone(client_->Get("/v1/responses/" + id, Key()));
  expect_gone(client_->Delete("/v1/responses/" + id, Key()));
  expect_gone(client_->Post("/v1/responses/" + id + "/cancel", Key(), "", "application/json"));
}

TEST_F(ResponsesRoutesTest, TheRoutesNeedAKey) {
  auto read = client_->Get("/v1/responses/resp_x");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 401);
}

}  // namespace
}  // namespace cilia::api
