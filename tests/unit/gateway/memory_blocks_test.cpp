#include "gateway/memory_blocks.h"

#include <gtest/gtest.h>

#include "gateway/compression.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_reads.h"
#include "memory/upkeep/precious.h"
#include "store/glossary_repo.h"
#include "store/profile_repo.h"
#include "testing/failing_reads.h"
#include "testing/test_namespace.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

ClientMessage Msg(const std::string& role, const std::string& text) { return {role, text, text}; }

class MemoryBlocksTest : public ::testing::Test {
 protected:
  MemoryBlocksTest() {
    ingest::IngestConversation earlier;
    earlier.conversation_id = "pets";
    earlier.messages.push_back({"p1", "user", "", "My cat Mochi hates the vacuum cleaner.", now() - 86'400'000});
    memory::Archive archive(ns());
    auto stored = archive.Store(earlier);
    EXPECT_TRUE(stored.ok());
    EXPECT_TRUE(archive.IndexConversation(stored->conversation_row).ok());
    pets_row_ = stored->conversation_row;
  }
  memory::Namespace& ns() { return space_.ns(); }
  UnixMs now() { return space_.clock().Now(); }

  testing::TestNamespace space_;
  store::TurnRecord record_;
  int64_t pets_row_ = 0;
};

TEST_F(MemoryBlocksTest, TheProfileBlockHoldsEveryDocumentAndNamesThemInTheRecord) {
  EXPECT_TRUE(ProfileBlock(ns(), record_).empty());
  EXPECT_FALSE(record_.injected.contains("profile"));
  ASSERT_TRUE(ns().store().Write([&](store::Database& db) {
    return store::ProfileRepo(db).Put("user", "Likes cats.", now());
  }).ok());
  const auto profile = ProfileBlock(ns(), record_);
  ASSERT_EQ(profile.size(), 1u);
  EXPECT_EQ(profile[0], (std::pair<std::string, std::string>{"user", "Likes cats."}));
  EXPECT_EQ(record_.injected["profile"], json::array({"user"}));
}

TEST_F(MemoryBlocksTest, AProfileThatCannotBeReadLeavesTheBlockEmpty) {
  testing::FailingReads failing(ns(), "profile_documents");
  store::TurnRecord record;
  EXPECT_TRUE(ProfileBlock(ns(), record).empty());
  EXPECT_FALSE(record.injected.contains("profile"));
}

TEST_F(MemoryBlocksTest, PreciousPassagesAreVerbatimDatedAndTheSameBytesUntilOneIsPinned) {
  EXPECT_EQ(PreciousBlock(ns(), 800, record_), "");
  EXPECT_FALSE(record_.injected.contains("precious"));
  auto pinned = memory::Pin(ns(), {"pets", {"p1"}, "", store::Author::kOwner}, now());
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  const std::string block = PreciousBlock(ns(), 800, record_);
  EXPECT_EQ(block, "<passage date=\"" + ns().tz().FormatLocal(now() - 86'400'000, false) +
                       "\">\nMy cat Mochi hates the vacuum cleaner.\n</passage>")
      << "dated the day it was said, not the day it was pinned";
  EXPECT_EQ(record_.injected["precious"], json::array({"p_" + std::to_string(pinned->id)}));
  store::TurnRecord next_turn;
  EXPECT_EQ(PreciousBlock(ns(), 800, next_turn), block) << "byte-stable between turns: the cache keeps hitting";
  EXPECT_EQ(PreciousBlock(ns(), 0, next_turn), "") << "a budget of 0 turns the block off";
  EXPECT_EQ(PreciousBlock(ns(), 3, next_turn), "") << "a passage past the budget is left out, never cut";
}

TEST_F(MemoryBlocksTest, PreciousPassagesThatCannotBeReadLeaveTheBlockEmpty) {
  ASSERT_TRUE(memory::Pin(ns(), {"pets", {"p1"}, "", store::Author::kOwner}, now()).ok());
  testing::FailingReads failing(ns(), "precious");
  store::TurnRecord record;
  EXPECT_EQ(PreciousBlock(ns(), 800, record), "");
  EXPECT_FALSE(record.injected.contains("precious"));
}

TEST_F(MemoryBlocksTest, ThereIsNoDailyPackBeforeTheFirstNightlyRun) {
  EXPECT_EQ(DailyPackBlock(ns(), now(), record_), "");
  EXPECT_FALSE(record_.injected.contains("daily_pack"));
}

TEST_F(MemoryBlocksTest, TheSummaryIsUsedWhileTheBodyHoldsTheMessageItsRawPartBeginsWith) {
  const ClientTurn client{{Msg("user", "old words"), Msg("assistant", "old reply"), Msg("user", "recent words")},
                          Msg("user", "now"), "", false, false, false};
  EXPECT_FALSE(SummaryBlock(ns(), pets_row_, json::object(), Wire::kOpenAI, client).has_value());
  store::ConversationSummary summary;
  summary.conversation_row = pets_row_;
  summary.text = "They talked about old things.";
  summary.kept_from_key = MessageKey("user", "recent words");
  summary.created_at = now();
  ASSERT_TRUE(memory::AddSummary(ns(), summary).ok());
  const json body = {{"messages", json::array({{{"role", "system"}, {"content", "be kind"}},
                                               {{"role", "user"}, {"content", "old words"}},
                                               {{"role", "assistant"}, {"content", "old reply"}},
                                               {{"role", "user"}, {"content", "recent words"}},
                                               {{"role", "user"}, {"content", "now"}}})}};
  const auto in_use = SummaryBlock(ns(), pets_row_, body, Wire::kOpenAI, client);
  ASSERT_TRUE(in_use.has_value());
  EXPECT_EQ(in_use->text, "They talked about old things.");
  EXPECT_EQ(in_use->upstream_keep_from, 2u) << "counted after the system message";
  EXPECT_EQ(in_use->raw_from, 2u);
  const json edited = {{"messages", json::array({{{"role", "user"}, {"content", "now"}}})}};
  EXPECT_FALSE(SummaryBlock(ns(), pets_row_, edited, Wire::kOpenAI, client).has_value());
  EXPECT_FALSE(SummaryBlock(ns(), 0, body, Wire::kOpenAI, client).has_value()) << "a new conversation has none";
}

TEST(MemoryGuide, NamesTheBlocksAndMentionsRecallOnlyWhenOffered) {
  const std::string with_tool = MemoryGuide(true);
  for (const char* tag : {"profile", "precious_passages", "recent_days", "conversation_summary", "turn_context"}) {
    EXPECT_NE(with_tool.find(tag), std::string::npos) << tag;
  }
  EXPECT_EQ(with_tool.find('<'), std::string::npos) << "names, not tags: a tag here would read as a block";
  EXPECT_NE(with_tool.find("newer wins"), std::string::npos);
  EXPECT_NE(with_tool.find("`recall`"), std::string::npos);
  EXPECT_EQ(MemoryGuide(false).find("recall"), std::string::npos) << "no tool named that the model does not have";
  EXPECT_EQ(MemoryGuide(true), MemoryGuide(true)) << "the same bytes every turn: it is in BP1";
}

TEST(ClockLine, SaysTheWeekdayTheLocalTimeAndTheZone) {
  const TimeZone shanghai = *TimeZone::Load("Asia/Shanghai");
  EXPECT_EQ(ClockLine(shanghai, *ParseRfc3339("2026-06-20T12:00:00+08:00")),
            "Current time: Saturday 2026-06-20 12:00 (Asia/Shanghai)");
  EXPECT_EQ(ClockLine(shanghai, *ParseRfc3339("2026-06-21T23:30:00+08:00")),
            "Current time: Sunday 2026-06-21 23:30 (Asia/Shanghai)");
  // 2026-06-21 16:30 UTC is already Monday in Shanghai.
  EXPECT_EQ(ClockLine(shanghai, *ParseRfc3339("2026-06-21T16:30:00Z")),
            "Current time: Monday 2026-06-22 00:30 (Asia/Shanghai)");
}

TEST_F(MemoryBlocksTest, TheVolatileBlockHasTheTermsAndTheMenu) {
  ASSERT_TRUE(ns().store().Write([&](store::Database& db) {
    store::GlossaryEntry entry;
    entry.term = "Mochi";
    entry.definition = "the cat";
    return store::GlossaryRepo(db).Put(entry, now());
  }).ok());
  ClientTurn client;
  client.current = Msg("user", "does Mochi still hate the vacuum cleaner?");
  TurnIdentity identity;
  identity.conversation_id = "today";
  GatewayConfig gw;
  const std::string text = VolatileBlock(ns(), VolatileInputs{client, identity, now(), true, gw}, record_);
  EXPECT_EQ(text.rfind("Terms in this message:\n- Mochi: the cat", 0), 0u) << "the clock is a block of its own: " << text;
  EXPECT_EQ(text.find("Current time"), std::string::npos) << text;
  EXPECT_EQ(record_.injected["glossary"].size(), 1u);
  ASSERT_TRUE(record_.injected.contains("menu")) << text;
  EXPECT_FALSE(record_.sources.empty());
  EXPECT_FALSE(record_.injected.contains("snippets"));
}

TEST_F(MemoryBlocksTest, WithoutTheRecallToolAFewShortPassagesStandInForTheMenu) {
  ClientTurn client;
  client.current = Msg("user", "what does my cat hate?");
  TurnIdentity identity;
  identity.conversation_id = "today";
  GatewayConfig gw;
  gw.snippets = 1;
  gw.snippet_chars = 40;
  const std::string text = VolatileBlock(ns(), VolatileInputs{client, identity, now(), false, gw}, record_);
  EXPECT_NE(text.find("Passages from earlier conversations"), std::string::npos) << text;
  EXPECT_NE(text.find("My cat"), std::string::npos) << text;
  EXPECT_NE(text.find("…"), std::string::npos) << "cut at snippet_chars: " << text;
  EXPECT_EQ(text.find("vacuum cleaner."), std::string::npos) << text;
  EXPECT_EQ(record_.injected["snippets"], 1);
  EXPECT_FALSE(record_.injected.contains("menu"));
  // The same passage in what the client sends: left out.
  store::TurnRecord again;
  identity.conversation_id = "pets";
  identity.visible_from_ms = 0;
  const std::string seen = VolatileBlock(ns(), VolatileInputs{client, identity, now(), false, gw}, again);
  EXPECT_EQ(seen.find("Passages"), std::string::npos) << seen;
}

}  // namespace
}  // namespace cilia::gateway
