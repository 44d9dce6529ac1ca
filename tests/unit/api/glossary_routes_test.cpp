#include "api/glossary_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/upkeep_test_helpers.h"
#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;

class GlossaryRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Put(const std::string& path, const json& body, const std::string& key) {
    return server_.client().Put(path.c_str(), server_.As(key), body.dump(), "application/json");
  }
  httplib::Result Post(const std::string& path, const json& body, const std::string& key) {
    return server_.client().Post(path.c_str(), server_.As(key), body.dump(), "application/json");
  }
  httplib::Result Get(const std::string& path, const std::string& key) {
    return server_.client().Get(path.c_str(), server_.As(key));
  }

  testing::RegistryServer server_{RegisterGlossaryRoutes};
};

TEST_F(GlossaryRoutesTest, ATermIsPutListedFetchedAndDeleted) {
  auto put = Put("/v1/glossary/%E5%B0%8F%E6%BB%A1", {{"definition", "她的猫"}, {"aliases", {"Xiaoman", " Xiaoman ", ""}}},
                 server_.writer);
  ASSERT_EQ(put->status, 200) << put->body;
  json entry = json::parse(put->body);
  EXPECT_EQ(entry["term"], "小满");
  EXPECT_EQ(entry["aliases"], json::array({"Xiaoman"})) << "aliases are trimmed, empty and repeated ones dropped";
  EXPECT_EQ(json::parse(Get("/v1/glossary", server_.reader)->body)["terms"][0], entry);
  EXPECT_EQ(json::parse(Get("/v1/glossary/%E5%B0%8F%E6%BB%A1", server_.reader)->body), entry);
  EXPECT_EQ(server_.client().Delete("/v1/glossary/%E5%B0%8F%E6%BB%A1", server_.As(server_.writer))->status, 200);
  EXPECT_EQ(Get("/v1/glossary/%E5%B0%8F%E6%BB%A1", server_.reader)->status, 404);
}

TEST_F(GlossaryRoutesTest, WritesNeedTheWriteScopeAndAValidBody) {
  EXPECT_EQ(Put("/v1/glossary/cat", {{"definition", "Mochi"}}, server_.reader)->status, 403);
  EXPECT_EQ(Put("/v1/glossary/cat", {{"aliases", json::array()}}, server_.writer)->status, 400);
  EXPECT_EQ(Put("/v1/glossary/cat", {{"definition", "d"}, {"aliases", "x"}}, server_.writer)->status, 400);
}

TEST_F(GlossaryRoutesTest, PreciousIsAppendOnlyAndMustBeVerbatim) {
  testing::Store(server_.ns(), "chat", {{"D1:1", "user", "星星会替我们记得", 1000}});
  auto pinned = Post("/v1/precious", {{"conversation_id", "chat"}, {"message_ids", {"D1:1"}}, {"content", "替我们记得"}},
                     server_.writer);
  ASSERT_EQ(pinned->status, 201) << pinned->body;
  EXPECT_EQ(json::parse(pinned->body)["id"], "p_1");
  EXPECT_EQ(Post("/v1/precious", {{"conversation_id", "chat"}, {"message_ids", {"D1:1"}}, {"content", "记得我们"}},
                 server_.writer)->status,
            400);
  EXPECT_EQ(Post("/v1/precious", {{"conversation_id", "chat"}, {"message_ids", {"D9"}}}, server_.writer)->status, 404);
  auto list = json::parse(Get("/v1/precious", server_.reader)->body)["precious"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["message_ids"], json::array({"D1:1"}));
  // There is no way to delete: the path takes GET and POST only.
  EXPECT_EQ(server_.client().Delete("/v1/precious", server_.As(server_.admin))->status, 405) << "no way to delete";
}

TEST_F(GlossaryRoutesTest, BootNeedsTheReadScopeAndCarriesTheGlossary) {
  ASSERT_EQ(Put("/v1/glossary/cat", {{"definition", "Mochi"}}, server_.writer)->status, 200);
  EXPECT_EQ(Get("/v1/boot", server_.chat)->status, 403);
  auto boot = Get("/v1/boot", server_.reader);
  ASSERT_EQ(boot->status, 200) << boot->body;
  json pack = json::parse(boot->body);
  EXPECT_EQ(pack["glossary"][0]["term"], "cat");
  EXPECT_EQ(pack["counts"]["glossary"], 1);
  EXPECT_TRUE(pack["digest"].is_null());
}

}  // namespace
}  // namespace cilia::api
