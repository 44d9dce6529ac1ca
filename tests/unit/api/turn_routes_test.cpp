#include "api/turn_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// The test clock, 2026-05-28T20:26:40Z, is already 2026-05-29 in Asia/Shanghai.
constexpr UnixMs kNow = 1'780'000'000'000;

class TurnRoutesTest : public ::testing::Test {
 protected:
  store::TurnRecord Turn(std::string conversation, std::string day = "2026-05-29", std::string model = "main/chat") {
    store::TurnRecord r;
    r.started_at = kNow;
    r.local_day = std::move(day);
    r.conversation_id = std::move(conversation);
    r.endpoint = "chat.completions";
    r.requested_model = "companion";
    r.upstream_model = std::move(model);
    r.input_tokens = 1000;
    r.output_tokens = 20;
    r.cache_read_tokens = 750;
    r.total_ms = 900;
    return r;
  }
  int64_t Append(const store::TurnRecord& r, const std::string& name_space = "default") {
    auto id = server_.ns(name_space).store().Write([&](store::Database& db) { return store::TurnRepo(db).Append(r); });
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : 0;
  }
  json GetJson(const std::string& path, const std::string& key, int expected_status = 200) {
    auto reply = server_.client().Get(path.c_str(), server_.As(key));
    if (!reply) {
      ADD_FAILURE() << "no reply for " << path;
      return nullptr;
    }
    EXPECT_EQ(reply->status, expected_status) << path << " -> " << reply->body;
    return json::parse(reply->body);
  }

  testing::RegistryServer server_{RegisterTurnRoutes, kNow};
};

TEST_F(TurnRoutesTest, ATurnShowsEveryFieldOfItsRecord) {
  store::TurnRecord r = Turn("trip-2023");
  r.streamed = true;
  r.cache_write_tokens = 250;
  r.reasoning_tokens = 12;
  r.first_byte_ms = 120;
  r.recall_rounds = 1;
  r.injected = {{"menu", {"05-08 她去了支持小组 🌈"}}, {"profile", {"persona"}}};
  r.sources = {{"trip-2023", "D1:3"}, {"other", "m_4"}};
  int64_t id = Append(r);

  json turns = GetJson("/v1/turns", server_.reader)["turns"];
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0], json({{"id", id},
                            {"started_at", "2026-05-29T04:26:40+08:00"},
                            {"local_day", "2026-05-29"},
                            {"conversation_id", "trip-2023"},
                            {"endpoint", "chat.completions"},
                            {"requested_model", "companion"},
                            {"upstream_model", "main/chat"},
                            {"streamed", true},
                            {"http_status", 200},
                            {"error", nullptr},
                            {"input_tokens", 1000},
                            {"output_tokens", 20},
                            {"cache_read_tokens", 750},
                            {"cache_write_tokens", 250},
                            {"reasoning_tokens", 12},
                            {"first_byte_ms", 120},
                            {"total_ms", 900},
                            {"recall_rounds", 1},
                            {"injected", r.injected},
                            {"sources",
                             {{{"conversation_id", "trip-2023"}, {"message_id", "D1:3"}},
                              {{"conversation_id", "other"}, {"message_id", "m_4"}}}}}));
}

TEST_F(TurnRoutesTest, EmptyFieldsAreNull) {
  store::TurnRecord r = Turn("");
  r.http_status = 502;
  r.error = "upstream unreachable";
  Append(r);
  json turn = GetJson("/v1/turns", server_.reader)["turns"][0];
  EXPECT_TRUE(turn["conversation_id"].is_null());
  EXPECT_TRUE(turn["first_byte_ms"].is_null());
  EXPECT_EQ(turn["error"], "upstream unreachable");
  EXPECT_EQ(turn["http_status"], 502);
}

TEST_F(TurnRoutesTest, TurnsPageNewestFirstUntilTheCursorIsNull) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Append(Turn("c")));
  std::vector<int64_t> seen;
  std::string path = "/v1/turns?limit=2";
  for (int page = 0; page < 5; ++page) {
    json reply = GetJson(path, server_.reader);
    for (const json& turn : reply["turns"]) seen.push_back(turn["id"]);
    if (reply["next_cursor"].is_null()) break;
    path = "/v1/turns?limit=2&cursor=" + reply["next_cursor"].get<std::string>();
  }
  EXPECT_EQ(seen, (std::vector<int64_t>{ids[4], ids[3], ids[2], ids[1], ids[0]}));
  EXPECT_TRUE(GetJson("/v1/turns?limit=5", server_.reader)["next_cursor"].is_null());
}

TEST_F(TurnRoutesTest, TurnsMayBeOfOneConversation) {
  int64_t mine = Append(Turn("旅行 2023"));
  Append(Turn("other"));
  json turns = GetJson("/v1/turns?conversation_id=%E6%97%85%E8%A1%8C%202023", server_.reader)["turns"];
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0]["id"], mine);
  EXPECT_EQ(GetJson("/v1/turns?conversation_id=", server_.reader)["turns"].size(), 2u) << "blank is no filter";
  EXPECT_TRUE(GetJson("/v1/turns?conversation_id=nobody", server_.reader)["turns"].empty());
}

TEST_F(TurnRoutesTest, BadParametersAre400NamingThem) {
  for (const char* query : {"limit=0", "limit=501", "limit=ten", "limit=", "limit=5x", "limit=%205"}) {
    json reply = GetJson(std::string("/v1/turns?") + query, server_.reader, 400);
    EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("limit")) << query;
  }
  for (const char* query : {"cursor=abc", "cursor=0", "cursor=-3", "cursor=99999999999999999999"}) {
    json reply = GetJson(std::string("/v1/turns?") + query, server_.reader, 400);
    EXPECT_THAT(reply["error"]["message"].get<std::string>(), HasSubstr("cursor")) << query;
  }
  json days = GetJson("/v1/stats/cache?days=0", server_.admin, 400);
  EXPECT_THAT(days["error"]["message"].get<std::string>(), HasSubstr("days"));
}

TEST_F(TurnRoutesTest, CacheStatsCountFromTheOwnersDaysAgo) {
  Append(Turn("c", "2026-04-29"));  // 31 local days ago: outside the default 30
  Append(Turn("c", "2026-04-30"));
  Append(Turn("c", "2026-05-29"));
  Append(Turn("c", "2026-05-29"));
  Append(Turn("c", "2026-05-29", "claude/sonnet"));
  store::TurnRecord failed = Turn("c", "2026-05-29");
  failed.http_status = 429;
  Append(failed);

  json reply = GetJson("/v1/stats/cache", server_.admin);
  EXPECT_EQ(reply["first_day"], "2026-04-30");
  json days = reply["days"];
  ASSERT_EQ(days.size(), 3u) << days.dump();
  EXPECT_EQ(days[0]["day"], "2026-04-30");
  EXPECT_EQ(days[1], json({{"day", "2026-05-29"},
                           {"model", "claude/sonnet"},
                           {"requests", 1},
                           {"input_tokens", 1000},
                           {"output_tokens", 20},
                           {"cache_read_tokens", 750},
                           {"cache_write_tokens", 0},
                           {"hit_rate", 0.75}}));
  EXPECT_EQ(days[2]["model"], "main/chat");
  EXPECT_EQ(days[2]["requests"], 2);
  EXPECT_EQ(days[2]["input_tokens"], 2000);

  // Today in Shanghai is already 05-29, though UTC still says 05-28.
  json today = GetJson("/v1/stats/cache?days=1", server_.admin);
  EXPECT_EQ(today["first_day"], "2026-05-29");
  EXPECT_EQ(today["days"].size(), 2u);
}

TEST_F(TurnRoutesTest, TurnsNeedMemoryReadAndStatsNeedAdmin) {
  EXPECT_EQ(server_.client().Get("/v1/turns", server_.As(server_.chat))->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/turns", server_.As(server_.admin))->status, 200);
  EXPECT_EQ(server_.client().Get("/v1/stats/cache", server_.As(server_.reader))->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/stats/cache", server_.As(server_.writer))->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/stats/cache")->status, 401);
}

TEST_F(TurnRoutesTest, AKeySeesOnlyItsOwnNamespacesTurns) {
  Append(Turn("mine"));
  Append(Turn("theirs"), "other");
  json mine = GetJson("/v1/turns", server_.reader)["turns"];
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0]["conversation_id"], "mine");
  json theirs = GetJson("/v1/turns", server_.other_admin)["turns"];
  ASSERT_EQ(theirs.size(), 1u);
  EXPECT_EQ(theirs[0]["conversation_id"], "theirs");
  EXPECT_EQ(GetJson("/v1/stats/cache", server_.other_admin)["days"].size(), 1u);
}

}  // namespace
}  // namespace cilia::api
