#include "api/mcp/memory_tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/excerpts/own_words.h"
#include "store/message_repo.h"
#include "testing/mcp_fixture.h"

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

class MemoryToolsTest : public testing::McpFixture {
 protected:
  void SetUp() override {
    Store("chat", {{"u1", "user", "Lena", "I live in Chengdu, near the university.", 1'779'900'000'000},
                   {"u2", "user", "Lena", "My cat Mochi loves the balcony.", 1'779'900'060'000}});
  }
  json Chengdu() {
    return {{"content", "Lena lives in Chengdu."}, {"quote", "I live in Chengdu"}, {"conversation_id", "chat"},
            {"message_id", "u1"}, {"type", "fact"}, {"fact_key", "home_city"}};
  }
};

TEST_F(MemoryToolsTest, SearchAnswersVerbatimPassagesWithDateSpeakerAndIdsLast) {
  json result = Tool("memory_search", {{"query", "Mochi balcony"}});
  ASSERT_EQ(result["isError"], false) << result.dump();
  const std::string text = Text(result);
  EXPECT_THAT(text, HasSubstr("Lena: I live in Chengdu, near the university.\nMy cat Mochi loves the balcony."));
  EXPECT_THAT(text, HasSubstr("[2026-05-28"));
  EXPECT_LT(text.find("Mochi loves"), text.find("· chat · messages"));
  ASSERT_FALSE(result["structuredContent"]["results"].empty());
  EXPECT_EQ(result["structuredContent"]["results"][0]["conversation_id"], "chat");

  json nothing = Tool("memory_search", {{"query", "zebra"}, {"exact", true}});
  EXPECT_THAT(Text(nothing), HasSubstr("Nothing stored matches \"zebra\""));
  json recall = Tool("memory_recall", {{"query", "Chengdu"}});
  EXPECT_THAT(Text(recall), HasSubstr("I live in Chengdu"));
}

TEST_F(MemoryToolsTest, BadArgumentsAreNamed) {
  json result = Tool("memory_search", {{"query", "cat"}, {"limit", 1000}});
  EXPECT_EQ(result["isError"], true);
  EXPECT_THAT(Text(result), HasSubstr("limit: must be at most 100, got 1000"));
  json dates = Tool("memory_search", {{"query", "cat"}, {"after", "yesterday-ish"}});
  EXPECT_EQ(dates["isError"], true);
  EXPECT_THAT(Text(dates), HasSubstr("after"));
}

TEST_F(MemoryToolsTest, UpsertWithAQuoteGetListSupersedeArchiveDelete) {
  json kept = Tool("memory_upsert", Chengdu());
  ASSERT_EQ(kept["isError"], false) << kept.dump();
  EXPECT_EQ(kept["structuredContent"]["created"], true);
  const std::string id = kept["structuredContent"]["memory"]["id"];
  EXPECT_THAT(Text(kept), HasSubstr("Kept: Lena lives in Chengdu. — \"I live in Chengdu\" (2026-05-28, chat)"));
  EXPECT_THAT(Text(kept), HasSubstr("fact_key home_city"));

  json got = Tool("memory_get", {{"id", id}});
  EXPECT_EQ(got["structuredContent"]["memory"]["content"], "Lena lives in Chengdu.");
  EXPECT_THAT(Text(Tool("memory_get", {{"id", "x_999"}})), HasSubstr("no memory \"x_999\""));
  EXPECT_EQ(Tool("memory_get", {{"id", "w_1"}})["isError"], true);

  json beijing = {{"content", "Lena moved to Beijing."}, {"quote", "My cat Mochi loves the balcony"},
                  {"conversation_id", "chat"}};
  json second = Tool("memory_upsert", beijing);
  const std::string second_id = second["structuredContent"]["memory"]["id"];
  json superseded = Tool("memory_supersede", {{"id", id}, {"by", second_id}});
  ASSERT_EQ(superseded["isError"], false) << superseded.dump();
  EXPECT_EQ(superseded["structuredContent"]["memory"]["status"], "superseded");

  json list = Tool("memory_list", {{"status", "superseded"}});
  ASSERT_EQ(list["structuredContent"]["memories"].size(), 1u);
  EXPECT_EQ(list["structuredContent"]["next_cursor"], nullptr);

  json archived = Tool("memory_archive", {{"id", second_id}});
  EXPECT_EQ(archived["structuredContent"]["memory"]["status"], "archived");
  json deleted = Tool("memory_delete", {{"id", second_id}});
  EXPECT_EQ(deleted["structuredContent"], json({{"deleted", true}, {"id", second_id}}));
  EXPECT_FALSE(memory::Excerpts(ns()).Get(*memory::ParseExcerptId(second_id))->has_value());
}

TEST_F(MemoryToolsTest, UpsertInOwnWordsStoresANoteMessageFromMcpAndQuotesIt) {
  json kept = Tool("memory_upsert", {{"content", "Lena prefers tea to coffee."}, {"type", "preference"}});
  ASSERT_EQ(kept["isError"], false) << kept.dump();
  const json memory = kept["structuredContent"]["memory"];
  EXPECT_EQ(memory["conversation_id"], memory::kNotesConversation);
  EXPECT_EQ(memory["quote"], "Lena prefers tea to coffee.");
  ASSERT_EQ(memory["message_ids"].size(), 1u);
  auto stored = ns().store().Read([&](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
    store::MessageRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto conversation, repo.FindConversation(memory::kNotesConversation));
    if (!conversation) return Status::NotFound("no notes");
    return repo.MessagesFrom(conversation->id, 0);
  });
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ((*stored)[0].source, "mcp");
  EXPECT_EQ((*stored)[0].name, "unit-test") << "the client's name speaks the note";
  EXPECT_EQ((*stored)[0].text, "Lena prefers tea to coffee.");
  EXPECT_EQ(memory["author"], "agent");
}

TEST_F(MemoryToolsTest, PinIngestBootAndExport) {
  json pinned = Tool("memory_pin", {{"conversation_id", "chat"}, {"message_ids", {"u2"}}, {"content", "Mochi loves the balcony"}});
  ASSERT_EQ(pinned["isError"], false) << pinned.dump();
  EXPECT_THAT(Text(pinned), HasSubstr("Pinned \"Mochi loves the balcony\""));
  EXPECT_EQ(Tool("memory_pin", {{"conversation_id", "chat"}, {"message_ids", {"u2"}}, {"content", "not said at all"}})["isError"],
            true);

  json ingested = Tool("memory_ingest", {{"conversation_id", "trip"},
                                         {"messages", {{{"id", "t1"}, {"role", "user"}, {"content", "We hiked Emei Shan in May."}}}}});
  ASSERT_EQ(ingested["isError"], false) << ingested.dump();
  EXPECT_EQ(ingested["structuredContent"], json({{"conversation_id", "trip"}, {"stored", 1}, {"duplicates", 0}}));
  EXPECT_THAT(Text(Tool("memory_search", {{"query", "Emei Shan"}})), HasSubstr("We hiked Emei Shan")) << "searchable at once";
  json role = Tool("memory_ingest", {{"conversation_id", "trip"}, {"messages", {{{"role", "bot"}, {"content", "x"}}}}});
  EXPECT_THAT(Text(role), HasSubstr("messages[0].role: must be one of"));

  json boot = Tool("memory_boot", json::object());
  ASSERT_EQ(boot["isError"], false) << boot.dump();
  EXPECT_THAT(Text(boot), HasSubstr("## Precious passages"));
  EXPECT_EQ(boot["structuredContent"]["counts"]["conversations"], 2);

  json refused = Tool("memory_export", json::object());
  EXPECT_EQ(refused["isError"], true);
  EXPECT_THAT(Text(refused), HasSubstr("\"admin\" scope"));
  json exported = Tool("memory_export", json::object(), &admin_);
  ASSERT_EQ(exported["isError"], false) << exported.dump();
  EXPECT_GT(exported["structuredContent"]["lines"].get<int>(), 3);
  EXPECT_THAT(Text(exported), HasSubstr("We hiked Emei Shan in May."));
}

TEST_F(MemoryToolsTest, AReadOnlyKeySeesAndRunsOnlyTheReadTools) {
  const std::string session = Initialize("2025-11-25", &reader_);
  json listed = Call(session, "tools/list", json::object(), &reader_)["result"]["tools"];
  std::vector<std::string> names;
  for (const json& tool : listed) names.push_back(tool["name"]);
  EXPECT_THAT(names, ::testing::UnorderedElementsAre("memory_search", "memory_recall", "memory_get", "memory_list",
                                                     "memory_boot", "profile_get", "digest_get", "candidates_list"));
  for (const json& tool : listed) {
    if (tool["name"] != "memory_recall") {
      EXPECT_EQ(tool["annotations"]["readOnlyHint"], true) << tool["name"];
    }
  }
  json write = Tool("memory_upsert", Chengdu(), &reader_);
  EXPECT_EQ(write["isError"], true);
  EXPECT_THAT(Text(write), HasSubstr("memory:write"));
  EXPECT_THAT(Text(Tool("memory_list", json::object())), Not(HasSubstr("Chengdu"))) << "nothing was written";
}

TEST_F(MemoryToolsTest, AnotherNamespaceIsInvisible) {
  Principal other = Key("other", kAllScopes, "other");
  json elsewhere = Tool("memory_search", {{"query", "Mochi"}}, &other);
  EXPECT_EQ(elsewhere["isError"], false);
  EXPECT_TRUE(elsewhere["structuredContent"]["results"].empty());
  EXPECT_EQ(Tool("memory_pin", {{"conversation_id", "chat"}, {"message_ids", {"u2"}}}, &other)["isError"], true);
}

}  // namespace
}  // namespace cilia::api::mcp
