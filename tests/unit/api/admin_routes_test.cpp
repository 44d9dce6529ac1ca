#include "api/admin_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "api/import_routes.h"
#include "store/turn_repo.h"
#include "testing/import_test_helpers.h"
#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class AdminRoutesTest : public ::testing::Test {
 protected:
  // Fills the namespace the page shows, as POST /v1/import would.
  void Import(const std::string& text) {
    auto imported = ImportFile(server_.ns(), server_.config(), text, "auto", "");
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  }
  testing::RegistryServer server_{RegisterAdminRoutes};
};

TEST_F(AdminRoutesTest, ThePageIsServedWithoutAKeyWithAnETagAndA304WhenUnchanged) {
  auto page = server_.client().Get("/admin");
  ASSERT_EQ(page->status, 200) << page->body;
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_THAT(page->body, HasSubstr("/admin/app.js"));
  EXPECT_THAT(page->get_header_value("Content-Security-Policy"), HasSubstr("default-src 'self'"));
  const std::string etag = page->get_header_value("ETag");
  ASSERT_THAT(etag, ::testing::StartsWith("W/\""));
  EXPECT_EQ(server_.client().Get("/admin/")->body, page->body);

  auto again = server_.client().Get("/admin", {{"If-None-Match", etag}});
  EXPECT_EQ(again->status, 304);
  EXPECT_TRUE(again->body.empty());
  EXPECT_EQ(server_.client().Get("/admin", {{"If-None-Match", "\"other\""}})->status, 200);

  auto script = server_.client().Get("/admin/app.js");
  ASSERT_EQ(script->status, 200);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_NE(script->get_header_value("ETag"), etag);
  auto view = server_.client().Get("/admin/views/today.js");
  EXPECT_EQ(view->status, 200);

  auto missing = server_.client().Get("/admin/../server.cpp");
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(server_.client().Get("/admin/nothing.js")->status, 404);
}

TEST_F(AdminRoutesTest, EveryEmbeddedFileHasAContentTypeAndTheBytesOfItsSource) {
  ASSERT_GT(kAdminAssetCount, 5u);
  for (size_t i = 0; i < kAdminAssetCount; ++i) {
    const AdminAsset& asset = kAdminAssets[i];
    EXPECT_STRNE(AdminContentType(asset.path), "application/octet-stream") << asset.path;
    EXPECT_EQ(FindAdminAsset(asset.path), &asset);
    EXPECT_EQ(std::strlen(asset.hash), 20u);
  }
  EXPECT_EQ(FindAdminAsset(""), FindAdminAsset("index.html"));
  EXPECT_EQ(FindAdminAsset("missing.css"), nullptr);
}

TEST_F(AdminRoutesTest, WhoamiTellsAnyKeyItsNamespaceAndScopes) {
  auto reader = server_.client().Get("/v1/whoami", server_.As(server_.reader));
  ASSERT_EQ(reader->status, 200) << reader->body;
  json body = json::parse(reader->body);
  EXPECT_EQ(body["namespace"], "default");
  EXPECT_EQ(body["scopes"], json::array({"memory:read"}));
  EXPECT_FALSE(body["key_id"].get<std::string>().empty());
  EXPECT_EQ(json::parse(server_.client().Get("/v1/whoami", server_.As(server_.chat))->body)["scopes"], json::array({"chat"}));
  EXPECT_EQ(json::parse(server_.client().Get("/v1/whoami", server_.As(server_.other_admin))->body)["namespace"], "other");
  auto none = server_.client().Get("/v1/whoami");
  EXPECT_EQ(none->status, 401);
  EXPECT_EQ(json::parse(none->body)["error"]["code"], "unauthenticated");
  EXPECT_EQ(server_.client().Get("/v1/whoami", server_.As("cilia_wrong"))->status, 401);
}

TEST_F(AdminRoutesTest, ExportIsForAdmins) {
  EXPECT_EQ(server_.client().Get("/v1/export", server_.As(server_.reader))->status, 403);
  auto dump = server_.client().Get("/v1/export", server_.As(server_.admin));
  ASSERT_EQ(dump->status, 200) << dump->body;
  EXPECT_THAT(dump->body, HasSubstr("\"cilia-export\""));
}

TEST_F(AdminRoutesTest, TheTimelineCountsMessagesPerLocalDayAndListsADaysConversations) {
  Import(ingest::testing::kTripChats);
  // 23:30 UTC is the next day in Asia/Shanghai, the owner's zone here.
  Import(
      "{\"conversation_id\": \"夜\", \"messages\": [{\"id\": \"n1\", \"role\": \"user\", "
      "\"content\": \"睡不着\", \"created_at\": \"2026-05-08T23:30:00Z\"}]}\n");
  auto timeline = server_.client().Get("/v1/timeline", server_.As(server_.reader));
  ASSERT_EQ(timeline->status, 200) << timeline->body;
  EXPECT_EQ(json::parse(timeline->body)["days"],
            json::parse(R"([{"day": "2026-05-08", "messages": 2}, {"day": "2026-05-09", "messages": 1}])"));

  auto day = server_.client().Get("/v1/timeline/2026-05-08", server_.As(server_.reader));
  ASSERT_EQ(day->status, 200) << day->body;
  json conversations = json::parse(day->body)["conversations"];
  ASSERT_EQ(conversations.size(), 1u);
  EXPECT_EQ(conversations[0]["id"], "旅行");
  EXPECT_EQ(conversations[0]["title"], "去大理");
  EXPECT_EQ(conversations[0]["messages"], 2);
  EXPECT_EQ(conversations[0]["first_message_id"], "a1");
  EXPECT_EQ(conversations[0]["first_at"], "2026-05-08T18:00:00+08:00");
  EXPECT_EQ(server_.client().Get("/v1/timeline/2026-13-01", server_.As(server_.reader))->status, 400);
  EXPECT_EQ(server_.client().Get("/v1/timeline", server_.As(server_.chat))->status, 403);
}

TEST_F(AdminRoutesTest, SettingsShowTheIndexAndNoSecret) {
  auto settings = server_.client().Get("/v1/settings", server_.As(server_.admin));
  ASSERT_EQ(settings->status, 200) << settings->body;
  json body = json::parse(settings->body);
  EXPECT_EQ(body["namespace"], "default");
  EXPECT_EQ(body["config"]["server"]["time_zone"], "Asia/Shanghai");
  EXPECT_EQ(body["embedder"]["remote"], false);
  EXPECT_EQ(body["index"]["windows"], 0);
  EXPECT_EQ(body["index"]["windows_without_vector"], 0);
  EXPECT_EQ(server_.client().Get("/v1/settings", server_.As(server_.writer))->status, 403);
}

TEST(SettingsConfigJson, MasksProviderKeysAndURLCredentials) {
  Config config;
  ProviderConfig provider;
  provider.name = "main";
  provider.base_url = "https://user:hunter2@api.example.invalid/v1";
  provider.api_key = "sk-very-secret-0123456789";
  config.providers.push_back(provider);
  provider.name = "bare";
  provider.base_url = "https://api.example.invalid/v1?x=a@b";
  provider.api_key.clear();
  config.providers.push_back(provider);
  config.client_api_key = "cilia_client_secret";
  config.prices.push_back({"main/big", 3, 15, 0.3, 3.75, "USD"});
  const json out = SettingsConfigJson(config);
  const std::string text = out.dump();
  EXPECT_THAT(text, Not(HasSubstr("sk-very-secret")));
  EXPECT_THAT(text, Not(HasSubstr("hunter2")));
  EXPECT_THAT(text, Not(HasSubstr("cilia_client_secret")));
  EXPECT_EQ(out["providers"][0]["api_key"], "set");
  EXPECT_EQ(out["providers"][0]["base_url"], "https://•••@api.example.invalid/v1");
  EXPECT_EQ(out["providers"][1]["api_key"], "not set");
  EXPECT_EQ(out["providers"][1]["base_url"], "https://api.example.invalid/v1?x=a@b");
  EXPECT_EQ(out["prices"][0]["model"], "main/big");
  EXPECT_EQ(out["jobs"]["nightly_at"], "04:10");
}

TEST(UsageCost, PricesUncachedInputCacheAndOutputApart) {
  store::TurnRepo::Usage usage;
  usage.input_tokens = 1'000'000;  // of which cached: read 600k, written 100k
  usage.cache_read_tokens = 600'000;
  usage.cache_write_tokens = 100'000;
  usage.output_tokens = 200'000;
  PriceConfig price{"main/big", 3.0, 15.0, 0.3, 3.75, "USD"};
  // 300k uncached × 3 + 200k × 15 + 600k × 0.3 + 100k × 3.75, per million.
  EXPECT_NEAR(*UsageCost(usage, &price), 0.9 + 3.0 + 0.18 + 0.375, 1e-9);
  EXPECT_FALSE(UsageCost(usage, nullptr).has_value());
}

TEST_F(AdminRoutesTest, UsageSumsTurnsPerDayAndModelWithCostOnlyWherePriced) {
  store::TurnRecord turn;
  turn.started_at = 1'780'000'000'000;
  turn.local_day = "2026-05-29";  // the fake clock's day in Asia/Shanghai
  turn.upstream_model = "main/chat";
  turn.input_tokens = 1000;
  turn.cache_read_tokens = 800;
  turn.output_tokens = 10;
  turn.reasoning_tokens = 4;
  turn.first_byte_ms = 300;
  turn.total_ms = 900;
  turn.recall_rounds = 1;
  ASSERT_TRUE(server_.ns().store().Write([&](store::Database& db) { return store::TurnRepo(db).Append(turn).status(); }).ok());
  auto usage = server_.client().Get("/v1/stats/usage?days=7", server_.As(server_.admin));
  ASSERT_EQ(usage->status, 200) << usage->body;
  json body = json::parse(usage->body);
  EXPECT_EQ(body["first_day"], "2026-05-23");
  ASSERT_EQ(body["days"].size(), 1u);
  const json& row = body["days"][0];
  EXPECT_EQ(row["model"], "main/chat");
  EXPECT_EQ(row["requests"], 1);
  EXPECT_DOUBLE_EQ(row["hit_rate"].get<double>(), 0.8);
  EXPECT_EQ(row["recall_rounds"], 1);
  EXPECT_EQ(row["reasoning_tokens"], 4);
  EXPECT_DOUBLE_EQ(row["first_byte_ms_avg"].get<double>(), 300);
  EXPECT_TRUE(row["cost"].is_null()) << "no [[prices]] in this config";
  EXPECT_EQ(server_.client().Get("/v1/stats/usage?days=0", server_.As(server_.admin))->status, 400);
  EXPECT_EQ(server_.client().Get("/v1/stats/usage", server_.As(server_.writer))->status, 403);
}

}  // namespace
}  // namespace cilia::api
