#include "api/mcp/curation_tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "memory/excerpts/candidates.h"
#include "store/digest_repo.h"
#include "store/glossary_repo.h"
#include "testing/mcp_fixture.h"

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class CurationToolsTest : public testing::McpFixture {
 protected:
  void SetUp() override { Store("chat", {{"u1", "user", "Lena", "Big news: I moved to Beijing last week.", 1'779'900'000'000}}); }
  std::string Queued() {
    memory::NewExcerpt item;
    item.content = "Lena lives in Beijing.";
    item.quote = "I moved to Beijing";
    item.conversation_id = "chat";
    auto checked = memory::Excerpts(ns()).CheckQuote(item);
    EXPECT_TRUE(checked.ok());
    memory::Excerpts::Draft draft;
    draft.content = item.content;
    draft.quote = *checked;
    draft.confidence = 0.5;
    auto queued = memory::Candidates(ns()).Queue(draft, "2026-05-20", "low_confidence", std::nullopt);
    EXPECT_TRUE(queued.ok());
    return memory::CandidatePublicId(queued->id);
  }
};

TEST_F(CurationToolsTest, GlossarySetStoresWhatGetGlossaryShows) {
  json set = Tool("glossary_set", {{"term", " Mochi "}, {"definition", "Lena's cat."}, {"aliases", {"糯米", "糯米", " "}}});
  ASSERT_EQ(set["isError"], false) << set.dump();
  EXPECT_EQ(set["structuredContent"]["term"], "Mochi");
  EXPECT_EQ(set["structuredContent"]["aliases"], json({"糯米"}));
  EXPECT_THAT(Text(set), HasSubstr("Glossary: Mochi: Lena's cat. (also: 糯米)"));
  auto stored = ns().store().Read([](store::Database& db) { return store::GlossaryRepo(db).Get("Mochi"); });
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->definition, "Lena's cat.");
  EXPECT_EQ(Tool("glossary_set", {{"term", "x"}})["isError"], true);
}

TEST_F(CurationToolsTest, ProfileSetThenGet) {
  EXPECT_THAT(Text(Tool("profile_get", json::object())), HasSubstr("no documents yet"));
  json set = Tool("profile_set", {{"name", "user"}, {"content", "# Lena\nLives in Beijing."}});
  ASSERT_EQ(set["isError"], false) << set.dump();
  json got = Tool("profile_get", {{"name", "user"}});
  EXPECT_EQ(got["structuredContent"]["documents"][0]["content"], "# Lena\nLives in Beijing.");
  EXPECT_THAT(Text(got), HasSubstr("## user\n# Lena"));
  EXPECT_THAT(Text(Tool("profile_get", {{"name", "persona"}})), HasSubstr("no profile document \"persona\""));
  EXPECT_EQ(Tool("profile_set", {{"name", "Bad Name"}, {"content", "x"}})["isError"], true);
  EXPECT_EQ(Tool("profile_set", {{"name", "user"}, {"content", "x"}}, &reader_)["isError"], true);
}

TEST_F(CurationToolsTest, DigestGetSaysWhatThereIsAndIsNot) {
  json empty = Tool("digest_get", json::object());
  ASSERT_EQ(empty["isError"], false) << empty.dump();
  EXPECT_EQ(empty["structuredContent"]["day"], "2026-05-28") << "yesterday in Asia/Shanghai";
  EXPECT_EQ(empty["structuredContent"]["digest"], nullptr);
  EXPECT_THAT(Text(empty), HasSubstr("No digest has been written yet"));

  store::DailyLog log;
  log.day = "2026-05-27";
  log.title = "The move";
  log.entries = {{"Lena moved to Beijing.", {{"chat", "u1"}}}};
  log.messages = 1;
  ASSERT_TRUE(ns().store().Write([&](store::Database& db) { return store::DigestRepo(db).PutLog(log); }).ok());
  json day = Tool("digest_get", {{"day", "2026-05-27"}});
  EXPECT_EQ(day["structuredContent"]["log"]["title"], "The move");
  EXPECT_THAT(Text(day), HasSubstr("Lena moved to Beijing."));
  EXPECT_THAT(Text(Tool("digest_get", {{"day", "2026-13-01"}})), HasSubstr("day: must be a date YYYY-MM-DD"));
}

TEST_F(CurationToolsTest, CandidatesListAndReview) {
  const std::string id = Queued();
  json list = Tool("candidates_list", json::object());
  ASSERT_EQ(list["structuredContent"]["candidates"].size(), 1u) << list.dump();
  EXPECT_THAT(Text(list), HasSubstr("Lena lives in Beijing. — \"I moved to Beijing\" (2026-05-20, chat) · pending"));

  json missing_target = Tool("candidate_review", {{"id", id}, {"action", "merge"}});
  EXPECT_THAT(Text(missing_target), HasSubstr("target_id: required for merge"));
  json approved = Tool("candidate_review", {{"id", id}, {"action", "approve"}});
  ASSERT_EQ(approved["isError"], false) << approved.dump();
  EXPECT_EQ(approved["structuredContent"]["candidate"]["status"], "approved");
  EXPECT_EQ(approved["structuredContent"]["memory"]["content"], "Lena lives in Beijing.");
  EXPECT_THAT(Text(approved), HasSubstr("Candidate approved"));
  json again = Tool("candidate_review", {{"id", id}, {"action", "discard"}});
  EXPECT_EQ(again["isError"], true) << "already decided";
  EXPECT_TRUE(Tool("candidates_list", json::object())["structuredContent"]["candidates"].empty());
  EXPECT_THAT(Text(Tool("candidates_list", {{"status", "done"}})),
              HasSubstr("status: must be one of \"pending\", \"approved\", \"discarded\", \"merged\", \"all\", got \"done\""));
}

}  // namespace
}  // namespace cilia::api::mcp
