#include "api/memory_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/excerpt_routes.h"
#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class MemoryRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Get(const std::string& path) { return server_.client().Get(path.c_str(), server_.As(server_.admin)); }
  httplib::Result Delete(const std::string& path) {
    return server_.client().Delete(path.c_str(), server_.As(server_.admin));
  }
  // Ingests one conversation and checks it was stored.
  void Ingest(const json& body) {
    auto r = server_.client().Post("/v1/ingest/messages?sync=true", server_.As(server_.writer), body.dump(),
                                   "application/json");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }

  testing::RegistryServer server_{[](ApiServer& server, memory::Registry& registry) {
    RegisterMemoryRoutes(server, registry);
    RegisterExcerptRoutes(server, registry);
  }};
};

TEST_F(MemoryRoutesTest, IdsHoldingASlashAreReachableWhenPercentEncoded) {
  ASSERT_NO_FATAL_FAILURE(Ingest({{"conversation_id", "trips/2023"},
                                  {"messages",
                                   {{{"id", "day/1"}, {"role", "user"}, {"content", "We climbed Emei Shan."},
                                     {"created_at", "2026-05-01T09:00:00+08:00"}},
                                    {{"id", "day/2"}, {"role", "user"}, {"content", "Then the rain came."},
                                     {"created_at", "2026-05-02T09:00:00+08:00"}}}}}));
  auto messages = Get("/v1/conversations/trips%2F2023/messages");
  ASSERT_TRUE(messages);
  ASSERT_EQ(messages->status, 200) << messages->body;
  json body = json::parse(messages->body);
  EXPECT_EQ(body["conversation_id"], "trips/2023");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["id"], "day/1");

  auto forgot = Delete("/v1/conversations/trips%2F2023/messages/day%2F1");
  ASSERT_TRUE(forgot);
  ASSERT_EQ(forgot->status, 200) << forgot->body;
  EXPECT_EQ(json::parse(forgot->body)["message_id"], "day/1");
  auto after = Get("/v1/conversations/trips%2F2023/messages");
  ASSERT_TRUE(after);
  EXPECT_EQ(json::parse(after->body)["messages"].size(), 1u);

  auto gone = Delete("/v1/conversations/trips%2F2023");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 200) << gone->body;
}

TEST_F(MemoryRoutesTest, EveryListReadsLimitTheSameStrictWay) {
  // " 5" (sent as %205) was taken by /v1/conversations and refused by /v1/memories.
  for (const char* path : {"/v1/conversations?limit=%205", "/v1/memories?limit=%205",
                           "/v1/conversations?limit=5x", "/v1/memories?limit=+5"}) {
    auto r = Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path << " " << r->body;
    EXPECT_THAT(r->body, HasSubstr("limit: must be an integer")) << path;
  }
  for (const char* path : {"/v1/conversations?limit=5", "/v1/memories?limit=5"}) {
    auto r = Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << " " << r->body;
  }
}

TEST_F(MemoryRoutesTest, ADeeplyNestedBodyIsA400NotACrash) {
  const std::string deep = std::string(58'000, '[') + std::string(58'000, ']');
  for (const char* path : {"/v1/ingest/messages", "/v1/recall"}) {
    auto r = server_.client().Post(path, server_.As(server_.admin), deep, "application/json");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 400) << path;
    EXPECT_THAT(r->body, HasSubstr("nested deeper than 128 levels")) << path;
  }
}

TEST_F(MemoryRoutesTest, ANulInAnExactQueryIsA400WithoutSql) {
  ASSERT_NO_FATAL_FAILURE(Ingest({{"conversation_id", "c"},
                                  {"messages",
                                   {{{"id", "1"}, {"role", "user"}, {"content", "abc def"},
                                     {"created_at", "2026-05-01T09:00:00+08:00"}}}}}));
  const json body = {{"query", std::string("abc\0def", 7)}, {"exact", true}};
  auto r = server_.client().Post("/v1/recall", server_.As(server_.reader), body.dump(), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_THAT(r->body, HasSubstr("query: must not contain NUL"));
  EXPECT_THAT(r->body, ::testing::Not(HasSubstr("SELECT")));
}

}  // namespace
}  // namespace cilia::api
