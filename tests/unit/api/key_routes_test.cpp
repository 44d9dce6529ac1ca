#include "api/key_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

class KeyRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-key-routes-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    keys_ = std::move(store::KeyStore::Open(dir_ + "/system.db")).value();
    admin_ = *keys_->Create("admin", "default", {"admin"});
    other_admin_ = *keys_->Create("their admin", "other", {"admin"});
    reader_ = *keys_->Create("reader", "default", {"memory:read"});
    ServerOptions options;
    options.threads = 2;
    server_ = std::make_unique<ApiServer>(options, Authenticator(keys_.get(), ""));
    RegisterKeyRoutes(*server_, *keys_);
    auto port = server_->Start({"127.0.0.1", 0});
    ASSERT_TRUE(port.ok());
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
  }
  void TearDown() override {
    server_.reset();
    keys_.reset();
    std::filesystem::remove_all(dir_);
  }
  httplib::Headers As(const store::NewApiKey& key) { return {{"Authorization", "Bearer " + key.secret}}; }

  std::string dir_;
  std::unique_ptr<store::KeyStore> keys_;
  store::NewApiKey admin_, other_admin_, reader_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(KeyRoutesTest, ListShowsTheCallersNamespaceOnlyAndNoSecrets) {
  auto reply = client_->Get("/v1/keys", As(admin_));
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->body;
  json keys = json::parse(reply->body)["keys"];
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0]["id"], admin_.info.id);
  EXPECT_EQ(keys[0]["namespace"], "default");
  EXPECT_EQ(keys[0]["scopes"], json({"admin"}));
  EXPECT_TRUE(keys[0]["revoked_at"].is_null());
  EXPECT_EQ(keys[1]["name"], "reader");
  EXPECT_EQ(reply->body.find(admin_.secret), std::string::npos);
  EXPECT_EQ(reply->body.find(reader_.secret), std::string::npos);
  EXPECT_EQ(reply->body.find("their admin"), std::string::npos);
}

TEST_F(KeyRoutesTest, KeysNeedTheAdminScope) {
  auto reply = client_->Get("/v1/keys", As(reader_));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 403);
}

TEST_F(KeyRoutesTest, ACreatedKeyWorksAtOnceInTheCallersNamespace) {
  auto reply = client_->Post("/v1/keys", As(admin_), R"({"name": "手机", "scopes": ["memory:read", "chat"]})",
                             "application/json");
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->body;
  json created = json::parse(reply->body);
  EXPECT_EQ(created["name"], "手机");
  EXPECT_EQ(created["namespace"], "default");
  EXPECT_EQ(created["scopes"], json({"chat", "memory:read"}));
  std::string secret = created["key"];
  auto listed = client_->Get("/v1/keys", httplib::Headers{{"x-api-key", secret}});
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 403);  // it works, and it is not an admin key
  EXPECT_EQ(keys_->Verify(secret)->name_space, "default");
}

TEST_F(KeyRoutesTest, ScopesMayBeACommaSeparatedString) {
  auto reply = client_->Post("/v1/keys", As(admin_), R"({"scopes": "memory:write"})", "application/json");
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->body;
  EXPECT_EQ(json::parse(reply->body)["scopes"], json({"memory:write"}));
}

TEST_F(KeyRoutesTest, BadCreateRequestsAre400) {
  for (const char* body : {R"({})", R"({"scopes": []})", R"({"scopes": ["root"]})", R"({"scopes": [1]})",
                           R"({"scopes": "chat", "name": 5})", R"([1])", R"(not json)"}) {
    auto reply = client_->Post("/v1/keys", As(admin_), body, "application/json");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400) << body << " -> " << reply->body;
  }
}

TEST_F(KeyRoutesTest, AKeyMayBeCreatedWithItsOwnFeatureSwitches) {
  auto reply = client_->Post("/v1/keys", As(admin_),
                             R"({"scopes": ["chat"], "features": {"memory": false, "compression": true}})",
                             "application/json");
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->body;
  json created = json::parse(reply->body);
  EXPECT_EQ(created["features"], json({{"memory", false}, {"compression", true}}));
  auto verified = keys_->Verify(created["key"].get<std::string>());
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->features.memory, false);
  EXPECT_EQ(verified->features.compression, true);
  EXPECT_FALSE(verified->features.recall_tool);

  auto listed = client_->Get("/v1/keys", As(admin_));
  ASSERT_TRUE(listed);
  json keys = json::parse(listed->body)["keys"];
  EXPECT_EQ(keys[0]["features"], json::object()) << "a key without switches shows none";
  EXPECT_EQ(keys.back()["features"], json({{"memory", false}, {"compression", true}}));
}

TEST_F(KeyRoutesTest, BadFeatureSwitchesAre400NamingThem) {
  struct Case {
    const char* body;
    const char* named;
  };
  for (const Case& c : {Case{R"({"scopes": "chat", "features": {"telepathy": true}})", "telepathy"},
                        Case{R"({"scopes": "chat", "features": {"memory": "off"}})", "features.memory"},
                        Case{R"({"scopes": "chat", "features": "memory=off"})", "features"},
                        Case{R"({"scopes": "chat", "features": [true]})", "features"}}) {
    auto reply = client_->Post("/v1/keys", As(admin_), c.body, "application/json");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 400) << c.body << " -> " << reply->body;
    EXPECT_THAT(json::parse(reply->body)["error"]["message"].get<std::string>(), HasSubstr(c.named)) << c.body;
  }
  EXPECT_EQ(keys_->List().size(), 3u) << "nothing was created";
}

TEST_F(KeyRoutesTest, RevokingEndsAKeyOfTheCallersNamespace) {
  auto reply = client_->Delete(("/v1/keys/" + reader_.info.id).c_str(), As(admin_));
  ASSERT_TRUE(reply);
  ASSERT_EQ(reply->status, 200) << reply->body;
  EXPECT_EQ(json::parse(reply->body), json({{"id", reader_.info.id}, {"revoked", true}}));
  EXPECT_FALSE(keys_->Verify(reader_.secret).ok());
}

TEST_F(KeyRoutesTest, AnotherNamespacesKeyCannotBeRevoked) {
  auto reply = client_->Delete(("/v1/keys/" + other_admin_.info.id).c_str(), As(admin_));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 404);
  EXPECT_THAT(reply->body, HasSubstr(other_admin_.info.id));
  EXPECT_TRUE(keys_->Verify(other_admin_.secret).ok());
  auto unknown = client_->Delete("/v1/keys/key_nope", As(admin_));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

}  // namespace
}  // namespace cilia::api
