#include "memory/recall/boot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/scripted_model.h"
#include "testing/test_namespace.h"
#include "memory/upkeep/digests.h"
#include "memory/upkeep/precious.h"
#include "store/profile_repo.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

using nlohmann::json;

TEST(BootPackTest, AnEmptyNamespaceHasNullsAndZeroCounts) {
  testing::TestNamespace t;
  auto pack = BootPack(t.ns(), t.clock().Now());
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ((*pack)["day"], "2026-05-29");
  EXPECT_TRUE((*pack)["digest"].is_null());
  EXPECT_TRUE((*pack)["yesterday"].is_null());
  EXPECT_EQ((*pack)["precious"], json::array());
  EXPECT_EQ((*pack)["counts"]["messages"], 0);
  EXPECT_EQ((*pack)["counts"]["excerpts"], 0);
}

TEST(BootPackTest, CarriesWhatTheNightWroteAndWhatTheOwnerKeeps) {
  testing::TestNamespace t;
  testing::ScriptedModel model([](const json& r) -> std::string {
    if (testing::ScriptedModel::Instructions(r).find("day's log") != std::string::npos) {
      return R"({"title": "t", "entries": [{"text": "she planned the move", "messages": [1]}]})";
    }
    return R"({"digest": "moving to Beijing in June", "summary": "s"})";
  });
  testing::Store(t.ns(), "chat", {{"D1:1", "user", "I move to Beijing in June.", testing::LocalTime(t.ns(), "2026-05-28", 9)}});
  ASSERT_TRUE(RunNightly(t.ns(), model.MakeConfig(), t.clock()).ok());
  ASSERT_TRUE(Pin(t.ns(), {"chat", {"D1:1"}, "Beijing in June", store::Author::kOwner}, 1).ok());
  ASSERT_TRUE(t.ns().store().Write([](store::Database& db) -> Status {
    CILIA_RETURN_IF_ERROR(store::ProfileRepo(db).Put("zeta", "last", 1));
    CILIA_RETURN_IF_ERROR(store::ProfileRepo(db).Put("rules", "be kind", 1));
    CILIA_RETURN_IF_ERROR(store::ProfileRepo(db).Put("persona", "Mira", 1));
    return store::GlossaryRepo(db).Put({"Beijing", {"北京"}, "the city", 0, 0}, 1).status();
  }).ok());

  auto pack = BootPack(t.ns(), t.clock().Now());
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ((*pack)["digest"]["text"], "moving to Beijing in June");
  EXPECT_EQ((*pack)["yesterday"]["day"], "2026-05-28");
  EXPECT_EQ((*pack)["yesterday"]["entries"][0]["sources"],
            json::parse(R"([{"conversation_id": "chat", "message_id": "D1:1"}])"));
  EXPECT_EQ((*pack)["precious"][0]["content"], "Beijing in June");
  EXPECT_EQ((*pack)["precious"][0]["id"], "p_1");
  EXPECT_EQ((*pack)["glossary"][0]["aliases"], json::array({"北京"}));
  std::vector<std::string> names;
  for (const json& d : (*pack)["profile"]) names.push_back(d["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"persona", "rules", "zeta"}));
  EXPECT_EQ((*pack)["counts"]["messages"], 1);
  EXPECT_EQ((*pack)["counts"]["conversations"], 1);
  EXPECT_EQ((*pack)["counts"]["precious"], 1);
  EXPECT_EQ((*pack)["counts"]["profile_documents"], 3);
}

TEST(PreciousIdTest, RoundTrips) {
  EXPECT_EQ(PreciousPublicId(12), "p_12");
  EXPECT_EQ(ParsePreciousId("p_12"), 12);
  EXPECT_FALSE(ParsePreciousId("p_").has_value());
  EXPECT_FALSE(ParsePreciousId("x_3").has_value());
  EXPECT_FALSE(ParsePreciousId("p_0").has_value());
}

}  // namespace
}  // namespace cilia::memory
