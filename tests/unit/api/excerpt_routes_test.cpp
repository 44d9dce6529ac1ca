#include "api/excerpt_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"
#include "memory/archive/archive.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class ExcerptRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ingest::IngestConversation c;
    c.conversation_id = "chat";
    c.messages = {{"u1", "user", "Lena", "I live in Chengdu, near the university.", 1'779'900'000'000},
                  {"u2", "user", "Lena", "我上周搬到北京了，住在海淀。", 1'779'900'060'000}};
    ASSERT_TRUE(memory::Archive(server_.ns()).StoreAndIndex(c).ok());
  }
  httplib::Result Post(const std::string& path, const json& body, const std::string& key) {
    return server_.client().Post(path.c_str(), server_.As(key), body.dump(), "application/json");
  }
  httplib::Result Get(const std::string& path, const std::string& key) {
    return server_.client().Get(path.c_str(), server_.As(key));
  }
  // Posts a memory and checks it was stored (use with ASSERT_NO_FATAL_FAILURE).
  void Create(const json& body, const std::string& key) {
    auto r = Post("/v1/memories", body, key);
    ASSERT_TRUE(r);
    ASSERT_TRUE(r->status == 201 || r->status == 200) << r->body;
  }
  static json Chengdu() {
    return {{"content", "Lena lives in Chengdu."}, {"quote", "I live in Chengdu"}, {"conversation_id", "chat"},
            {"message_id", "u1"}, {"type", "fact"}, {"fact_key", "home_city"}};
  }

  testing::RegistryServer server_{RegisterExcerptRoutes};
};

TEST_F(ExcerptRoutesTest, PostCreatesAMemoryInTheContractShape) {
  auto r = Post("/v1/memories", Chengdu(), server_.writer);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  json body = json::parse(r->body);
  EXPECT_TRUE(body["created"]);
  const json m = body["memory"];
  EXPECT_EQ(m["id"], "x_1");
  EXPECT_EQ(m["content"], "Lena lives in Chengdu.");
  EXPECT_EQ(m["quote"], "I live in Chengdu");
  EXPECT_EQ(m["conversation_id"], "chat");
  EXPECT_EQ(m["message_ids"], json::array({"u1"}));
  EXPECT_EQ(m["type"], "fact");
  EXPECT_EQ(m["fact_key"], "home_city");
  EXPECT_EQ(m["status"], "active");
  EXPECT_EQ(m["confidence"], 1.0);
  EXPECT_EQ(m["pinned"], false);
  EXPECT_EQ(m["author"], "agent");
  EXPECT_EQ(m["created_at"], "2026-05-29T04:26:40+08:00");

  auto list = Get("/v1/memories", server_.reader);
  ASSERT_EQ(list->status, 200);
  EXPECT_EQ(json::parse(list->body), json({{"memories", {m}}, {"next_cursor", nullptr}}));
}

TEST_F(ExcerptRoutesTest, PostWithoutAQuoteStoresTheWordsAsANoteAndQuotesIt) {
  auto r = Post("/v1/memories", {{"content", "Lena's sister is called Mei."}}, server_.admin);
  ASSERT_EQ(r->status, 201) << r->body;
  const json m = json::parse(r->body)["memory"];
  EXPECT_EQ(m["conversation_id"], "notes");
  EXPECT_EQ(m["quote"], "Lena's sister is called Mei.");
  EXPECT_EQ(m["author"], "owner");
  auto refused = Post("/v1/memories", {{"content", "short"}}, server_.writer);
  EXPECT_EQ(refused->status, 400);
  EXPECT_THAT(json::parse(refused->body)["error"]["message"].get<std::string>(), HasSubstr("content: at least 8"));
}

TEST_F(ExcerptRoutesTest, PostWithAHeldFactKeyUpdatesAndAnAgentCannotOverwriteTheOwner) {
  ASSERT_NO_FATAL_FAILURE(Create(Chengdu(), server_.admin));
  json beijing = {{"content", "Lena lives in Beijing."}, {"quote", "我上周搬到北京了"}, {"conversation_id", "chat"},
                  {"fact_key", "home_city"}};
  auto refused = Post("/v1/memories", beijing, server_.writer);
  ASSERT_EQ(refused->status, 409);
  EXPECT_THAT(json::parse(refused->body)["error"]["message"].get<std::string>(), HasSubstr("the owner wrote"));
  auto updated = Post("/v1/memories", beijing, server_.admin);
  ASSERT_EQ(updated->status, 200) << updated->body;
  const json body = json::parse(updated->body);
  EXPECT_FALSE(body["created"]);
  EXPECT_EQ(body["memory"]["id"], "x_1");
  EXPECT_EQ(body["memory"]["message_ids"], json::array({"u2"}));
}

TEST_F(ExcerptRoutesTest, AQuoteThatIsNotInTheMessageIs400) {
  json body = Chengdu();
  body["quote"] = "I live in Shanghai";
  auto r = Post("/v1/memories", body, server_.writer);
  ASSERT_EQ(r->status, 400);
  EXPECT_THAT(json::parse(r->body)["error"]["message"].get<std::string>(), HasSubstr("quote: not found verbatim"));
}

TEST_F(ExcerptRoutesTest, SupersedeReviveArchivePinAndHistory) {
  ASSERT_NO_FATAL_FAILURE(Create(Chengdu(), server_.writer));
  json beijing = {{"content", "Lena lives in Beijing."}, {"quote", "我上周搬到北京了"}, {"conversation_id", "chat"}};
  auto sup = Post("/v1/memories/x_1/supersede", beijing, server_.writer);
  ASSERT_EQ(sup->status, 200) << sup->body;
  json out = json::parse(sup->body);
  EXPECT_EQ(out["memory"]["status"], "superseded");
  EXPECT_EQ(out["memory"]["superseded_by"], "x_2");
  EXPECT_EQ(out["by"]["fact_key"], "home_city") << "the fact_key carries over";
  EXPECT_EQ(json::parse(Get("/v1/memories", server_.reader)->body)["memories"].size(), 1u);
  EXPECT_EQ(json::parse(Get("/v1/memories?status=all", server_.reader)->body)["memories"].size(), 2u);

  auto revived = Post("/v1/memories/x_1/revive", json::object(), server_.writer);
  ASSERT_EQ(revived->status, 200);
  EXPECT_EQ(json::parse(revived->body)["status"], "active");
  EXPECT_EQ(json::parse(Post("/v1/memories/x_2/pin", json::object(), server_.writer)->body)["pinned"], true);
  EXPECT_EQ(json::parse(Post("/v1/memories/x_2/archive", json::object(), server_.writer)->body)["status"], "archived");

  auto history = Get("/v1/memories/x_1/history", server_.reader);
  ASSERT_EQ(history->status, 200);
  const json h = json::parse(history->body)["history"];
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0]["action"], "create");
  EXPECT_EQ(h[1]["action"], "supersede");
  EXPECT_EQ(h[1]["new"], json({{"status", "superseded"}, {"superseded_by", 2}}));
  EXPECT_EQ(h[2]["action"], "revive");
  EXPECT_EQ(h[2]["who"], "agent");
}

TEST_F(ExcerptRoutesTest, PatchDeleteAndMissingIds) {
  ASSERT_NO_FATAL_FAILURE(Create(Chengdu(), server_.writer));
  auto patched = server_.client().Patch("/v1/memories/x_1", server_.As(server_.writer),
                                        R"({"content": "Lena lived in Chengdu.", "importance": 0.9})", "application/json");
  ASSERT_EQ(patched->status, 200) << patched->body;
  EXPECT_EQ(json::parse(patched->body)["importance"], 0.9);
  auto bad = server_.client().Patch("/v1/memories/x_1", server_.As(server_.writer), R"({"status": "archived"})",
                                    "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_EQ(server_.client().Delete("/v1/memories/x_1", server_.As(server_.writer))->status, 200);
  EXPECT_EQ(Get("/v1/memories/x_1", server_.reader)->status, 404);
  EXPECT_EQ(Get("/v1/memories/banana", server_.reader)->status, 404);
  EXPECT_EQ(Get("/v1/memories/x_1/history", server_.reader)->status, 200) << "a deletion stays traceable";
}

TEST_F(ExcerptRoutesTest, PagesComeNewestFirstWithACursor) {
  for (const char* quote : {"I live in Chengdu", "near the university", "我上周搬到北京了"}) {
    json body = Chengdu();
    body.erase("fact_key");
    body.erase("message_id");
    body["quote"] = quote;
    ASSERT_NO_FATAL_FAILURE(Create(body, server_.writer));
  }
  json first = json::parse(Get("/v1/memories?limit=2", server_.reader)->body);
  ASSERT_EQ(first["memories"].size(), 2u);
  EXPECT_EQ(first["memories"][0]["id"], "x_3");
  ASSERT_TRUE(first["next_cursor"].is_string());
  json second = json::parse(
      Get("/v1/memories?limit=2&cursor=" + first["next_cursor"].get<std::string>(), server_.reader)->body);
  ASSERT_EQ(second["memories"].size(), 1u);
  EXPECT_EQ(second["memories"][0]["id"], "x_1");
  EXPECT_TRUE(second["next_cursor"].is_null());
  EXPECT_EQ(Get("/v1/memories?cursor=abc", server_.reader)->status, 400);
  auto gone = Get("/v1/memories?status=gone", server_.reader);
  EXPECT_EQ(gone->status, 400);
  EXPECT_EQ(json::parse(gone->body)["error"]["message"], "status: \"gone\" is not one of active, superseded, archived, all");
}

TEST_F(ExcerptRoutesTest, ScopesAreChecked) {
  EXPECT_EQ(Post("/v1/memories", Chengdu(), server_.reader)->status, 403);
  EXPECT_EQ(Get("/v1/memories", server_.chat)->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/memories")->status, 401);
  ASSERT_NO_FATAL_FAILURE(Create(Chengdu(), server_.writer));
  EXPECT_TRUE(json::parse(Get("/v1/memories", server_.other_admin)->body)["memories"].empty())
      << "another namespace sees none";
}

}  // namespace
}  // namespace cilia::api
