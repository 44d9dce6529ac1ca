#include "api/profile_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class ProfileRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Put(const std::string& name, const std::string& body, const std::string& key) {
    return server_.client().Put(("/v1/profile/" + name).c_str(), server_.As(key), body, "application/json");
  }
  httplib::Result Get(const std::string& path, const std::string& key) {
    return server_.client().Get(path.c_str(), server_.As(key));
  }
  static std::string Message(const httplib::Result& reply) {
    return json::parse(reply->body)["error"]["message"].get<std::string>();
  }

  testing::RegistryServer server_{RegisterProfileRoutes};
};

TEST_F(ProfileRoutesTest, APutDocumentIsListedAndFetchedVerbatim) {
  const std::string markdown = "# 关于我\n\n- 喜欢 🍵\n- *likes* `tea`\n";
  auto put = Put("user", json{{"content", markdown}}.dump(), server_.writer);
  ASSERT_TRUE(put);
  ASSERT_EQ(put->status, 200) << put->body;
  json document = json::parse(put->body);
  EXPECT_EQ(document, json({{"name", "user"}, {"content", markdown}, {"updated_at", "2026-05-28T20:26:40Z"}}));

  auto got = Get("/v1/profile/user", server_.reader);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->status, 200) << got->body;
  EXPECT_EQ(json::parse(got->body), document);

  ASSERT_EQ(Put("persona", R"({"content": "You are Mira."})", server_.writer)->status, 200);
  auto list = Get("/v1/profile", server_.reader);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200) << list->body;
  json documents = json::parse(list->body)["documents"];
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0]["name"], "persona");
  EXPECT_EQ(documents[1], document);
}

TEST_F(ProfileRoutesTest, AnEmptyProfileIsAnEmptyList) {
  auto list = Get("/v1/profile", server_.reader);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200);
  EXPECT_EQ(json::parse(list->body), json({{"documents", json::array()}}));
}

TEST_F(ProfileRoutesTest, PutReplacesAndStampsTheTime) {
  ASSERT_EQ(Put("rules", R"({"content": "old"})", server_.writer)->status, 200);
  server_.clock().Advance(90'000);
  auto put = Put("rules", R"({"content": "new", "ignored": 1})", server_.writer);
  ASSERT_EQ(put->status, 200) << put->body;
  auto got = json::parse(Get("/v1/profile/rules", server_.reader)->body);
  EXPECT_EQ(got["content"], "new");
  EXPECT_EQ(got["updated_at"], "2026-05-28T20:28:10Z");
}

TEST_F(ProfileRoutesTest, AMissingDocumentIs404) {
  auto got = Get("/v1/profile/persona", server_.reader);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 404);
  EXPECT_THAT(Message(got), HasSubstr("\"persona\""));
  auto deleted = server_.client().Delete("/v1/profile/persona", server_.As(server_.writer));
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 404);
}

TEST_F(ProfileRoutesTest, DeleteRemovesTheDocument) {
  ASSERT_EQ(Put("relationship", R"({"content": "friends since 2019"})", server_.writer)->status, 200);
  auto deleted = server_.client().Delete("/v1/profile/relationship", server_.As(server_.writer));
  ASSERT_TRUE(deleted);
  ASSERT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(json::parse(deleted->body), json({{"deleted", true}, {"name", "relationship"}}));
  EXPECT_EQ(Get("/v1/profile/relationship", server_.reader)->status, 404);
}

TEST_F(ProfileRoutesTest, BadBodiesAre400NamingTheField) {
  struct Case {
    const char* body;
    const char* named;
  };
  for (const Case& c :
       {Case{"{}", "content"}, Case{R"({"content": 5})", "content"}, Case{R"({"content": null})", "content"},
        Case{R"(["content"])", "object"}, Case{"not json", "JSON"}, Case{"", "empty"}}) {
    auto put = Put("user", c.body, server_.writer);
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 400) << c.body << " -> " << put->body;
    EXPECT_THAT(Message(put), HasSubstr(c.named)) << c.body;
  }
  EXPECT_EQ(Get("/v1/profile/user", server_.reader)->status, 404) << "nothing was stored";
}

TEST_F(ProfileRoutesTest, BadNamesAre400NamingTheName) {
  for (const char* name : {"Persona", "_x", "rules.md", "%E7%94%A8%E6%88%B7"}) {
    auto put = Put(name, R"({"content": "x"})", server_.writer);
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 400) << name << " -> " << put->body;
    EXPECT_THAT(Message(put), HasSubstr("name")) << name;
    EXPECT_EQ(Get(std::string("/v1/profile/") + name, server_.reader)->status, 400) << name;
  }
  auto cjk = Put("%E7%94%A8%E6%88%B7", R"({"content": "x"})", server_.writer);
  EXPECT_THAT(Message(cjk), HasSubstr("\"用户\""));
}

TEST_F(ProfileRoutesTest, ContentPast256KiBIsRefusedNamingIt) {
  std::string largest(store::kMaxProfileContentBytes, 'x');
  ASSERT_EQ(Put("user", json{{"content", largest}}.dump(), server_.writer)->status, 200);
  auto put = Put("user", json{{"content", largest + "y"}}.dump(), server_.writer);
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 413) << put->body;
  EXPECT_THAT(Message(put), HasSubstr("content"));
  EXPECT_EQ(json::parse(Get("/v1/profile/user", server_.reader)->body)["content"], largest);
}

TEST_F(ProfileRoutesTest, ReadingNeedsMemoryReadAndWritingMemoryWrite) {
  EXPECT_EQ(Get("/v1/profile", server_.chat)->status, 403);
  EXPECT_EQ(Get("/v1/profile/user", server_.chat)->status, 403);
  EXPECT_EQ(Put("user", R"({"content": "x"})", server_.reader)->status, 403);
  EXPECT_EQ(server_.client().Delete("/v1/profile/user", server_.As(server_.reader))->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/profile")->status, 401);
  EXPECT_EQ(Put("user", R"({"content": "by admin"})", server_.admin)->status, 200);
}

TEST_F(ProfileRoutesTest, AKeySeesOnlyItsOwnNamespacesProfile) {
  ASSERT_EQ(Put("user", R"({"content": "default's"})", server_.writer)->status, 200);
  EXPECT_EQ(Get("/v1/profile/user", server_.other_admin)->status, 404);
  ASSERT_EQ(Put("user", R"({"content": "other's"})", server_.other_admin)->status, 200);
  EXPECT_EQ(json::parse(Get("/v1/profile/user", server_.reader)->body)["content"], "default's");
  EXPECT_EQ(json::parse(Get("/v1/profile/user", server_.other_admin)->body)["content"], "other's");
}

}  // namespace
}  // namespace cilia::api

namespace cilia::api {
namespace {

TEST(ProfileVersionsRouteTest, EveryChangingPutKeepsThePreviousContent) {
  testing::RegistryServer server{RegisterProfileRoutes};
  auto put = [&](const std::string& content) {
    return server.client().Put("/v1/profile/user", server.As(server.writer),
                               nlohmann::json{{"content", content}}.dump(), "application/json");
  };
  ASSERT_EQ(put("v1")->status, 200);
  server.clock().Advance(1000);
  ASSERT_EQ(put("v2 🌸")->status, 200);
  ASSERT_EQ(put("v3")->status, 200);
  auto got = server.client().Get("/v1/profile/user/versions", server.As(server.reader));
  ASSERT_EQ(got->status, 200) << got->body;
  auto body = nlohmann::json::parse(got->body);
  EXPECT_EQ(body["name"], "user");
  ASSERT_EQ(body["versions"].size(), 2u);
  EXPECT_EQ(body["versions"][0]["content"], "v2 🌸");
  EXPECT_EQ(body["versions"][1]["content"], "v1");
  EXPECT_EQ(body["versions"][1]["updated_at"], "2026-05-28T20:26:40Z");
  EXPECT_EQ(server.client().Get("/v1/profile/Bad!/versions", server.As(server.reader))->status, 400);
}

}  // namespace
}  // namespace cilia::api
