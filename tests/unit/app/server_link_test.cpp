// Reaching the `cilia serve` that holds a data dir: found or not, the key it
// is reached with, and its errors turned into Status values.
#include "app/server_link.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/data_dir_lock.h"
#include "testing/local_server.h"
#include "testing/temp_dir.h"

namespace cilia::app {
namespace {

using ::testing::HasSubstr;

constexpr char kKey[] = "ck_test_admin";

// A stand-in server that knows one key, of namespace "default".
void Routes(httplib::Server& server) {
  server.Get("/v1/whoami", [](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != std::string("Bearer ") + kKey) {
      res.status = 401;
      res.set_content(R"({"error": {"message": "invalid API key", "type": "authentication_error"}})",
                      "application/json");
      return;
    }
    res.set_content(R"({"key_id": "k_1", "namespace": "default", "scopes": ["admin"]})", "application/json");
  });
  server.Post("/v1/import", [](const httplib::Request&, httplib::Response& res) {
    res.status = 413;
    res.set_content(R"({"error": {"message": "the request body is larger than the limit of 1 MB"}})",
                    "application/json");
  });
  server.Get("/v1/export", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"type\": \"cilia-export\"}\n", "application/x-ndjson");
  });
}

class ServerLinkTest : public ::testing::Test {
 protected:
  ServerLinkTest() { config_.server.data_dir = dir_.path(); }

  // This process as the `cilia serve` of the data dir, at the stand-in's URL.
  void HoldAsServer() {
    auto lock = DataDirLock::Acquire(dir_.path(), "cilia serve");
    ASSERT_TRUE(lock.ok());
    lock_.emplace(std::move(lock).value());
    ASSERT_TRUE(WriteServeFile(dir_.path(), {getpid(), "http://127.0.0.1:" + std::to_string(server_.port())}).ok());
  }
  void WriteAdminKey(const std::string& key) { std::ofstream(dir_.Sub("admin.key")) << key << "\n"; }

  testing::TempDir dir_;
  testing::LocalServer server_{Routes};
  Config config_;
  std::optional<DataDirLock> lock_;
};

TEST_F(ServerLinkTest, NoServerMeansWorkingDirectly) {
  auto link = FindServerLink(config_, "default", "importing x");
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  EXPECT_FALSE(link->has_value());
}

TEST_F(ServerLinkTest, ALiveServerIsReachedWithTheAdminKeyAndTheCommandSaysSo) {
  HoldAsServer();
  WriteAdminKey(kKey);
  ::testing::internal::CaptureStderr();
  auto link = FindServerLink(config_, "default", "importing chats.json");
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  ASSERT_TRUE(link->has_value());
  EXPECT_EQ((*link)->key, kKey);
  EXPECT_THAT(said, HasSubstr("`cilia serve` (pid " + std::to_string(getpid()) + ") holds " + dir_.path()));
  EXPECT_THAT(said, HasSubstr("importing chats.json through it at http://127.0.0.1:"));

  auto refused = CallServer(**link, "POST", "/v1/import", "x");
  EXPECT_EQ(refused.status().code(), Code::kTooLarge);
  EXPECT_EQ(refused.status().message(), "the server answered 413: the request body is larger than the limit of 1 MB");

  std::ostringstream dump;
  ASSERT_TRUE(DownloadFromServer(**link, "/v1/export", dump, nullptr).ok());
  EXPECT_EQ(dump.str(), "{\"type\": \"cilia-export\"}\n");
}

TEST_F(ServerLinkTest, WithoutAnyKeyTheErrorSaysWhatIsMissing) {
  HoldAsServer();
  auto link = FindServerLink(config_, "default", "importing x");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.status().code(), Code::kUnauthenticated);
  EXPECT_THAT(link.status().message(), HasSubstr("admin.key is missing and CILIA_API_KEY is not set"));
}

TEST_F(ServerLinkTest, CiliaApiKeyServesWhenThereIsNoAdminKeyFileAndABadKeyIsTheServersAnswer) {
  HoldAsServer();
  config_.client_api_key = kKey;
  EXPECT_EQ(AdminKeyFor(config_), kKey);
  WriteAdminKey("ck_revoked");
  EXPECT_EQ(AdminKeyFor(config_), "ck_revoked") << "the data dir's own key comes first";
  auto link = FindServerLink(config_, "default", "importing x");
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.status().code(), Code::kUnauthenticated);
  EXPECT_THAT(link.status().message(), HasSubstr("the server answered 401: invalid API key"));
}

TEST_F(ServerLinkTest, AnotherNamespaceCannotBeReachedWithTheAdminKey) {
  HoldAsServer();
  WriteAdminKey(kKey);
  auto link = FindServerLink(config_, "work", "importing x");
  ASSERT_FALSE(link.ok());
  EXPECT_THAT(link.status().message(), HasSubstr("its admin key is for namespace \"default\""));
  EXPECT_THAT(link.status().message(), HasSubstr("stop the server to work on \"work\" directly"));
}

TEST(PercentEncodeTest, KeepsUnreservedCharactersAndEncodesTheRest) {
  EXPECT_EQ(PercentEncode("Seraphina - 2024.jsonl"), "Seraphina%20-%202024.jsonl");
  EXPECT_EQ(PercentEncode("a/b?c&d=e"), "a%2Fb%3Fc%26d%3De");
  EXPECT_EQ(PercentEncode("数"), "%E6%95%B0");
}

}  // namespace
}  // namespace cilia::app
