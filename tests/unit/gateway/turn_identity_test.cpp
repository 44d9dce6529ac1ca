#include "gateway/turn_identity.h"

#include <gtest/gtest.h>

#include "ingest/context_parts.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_reads.h"
#include "testing/failing_reads.h"
#include "testing/test_namespace.h"

namespace cilia::gateway {
namespace {

ClientMessage Msg(const std::string& role, const std::string& text) { return {role, text, text}; }

class TurnIdentityTest : public ::testing::Test {
 protected:
  memory::Namespace& ns() { return space_.ns(); }
  UnixMs now() { return space_.clock().Now(); }

  // Runs a turn's identity and storage as the gateway does, and the answer.
  TurnIdentity Turn(const ClientTurn& client, const std::string& header, const std::string& answer) {
    llm::AssistantTurn reply;
    reply.text = answer;
    return Turn(client, header, reply);
  }
  TurnIdentity Turn(const ClientTurn& client, const std::string& header, const llm::AssistantTurn& answer) {
    auto found = FindTurnConversation(ns(), client, header, now());
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    auto stored = StoreTurn(ns(), found->storage, client.client_user, found->identity);
    EXPECT_TRUE(stored.ok()) << stored.status().ToString();
    memory::Archive archive(ns());
    EXPECT_TRUE(archive.Store(AnswerStorage(*stored, answer, "recall")).ok());
    space_.clock().Advance(1000);
    return *stored;
  }

  std::vector<store::MessageRecord> Messages(const std::string& conversation) {
    auto messages = memory::ConversationMessages(ns(), conversation);
    EXPECT_TRUE(messages.ok());
    return messages.ok() ? *messages : std::vector<store::MessageRecord>();
  }

  int64_t MessageCount(const std::string& conversation) {
    auto found = memory::FindConversation(ns(), conversation);
    EXPECT_TRUE(found.ok());
    return found.ok() && found->has_value() ? (*found)->message_count : 0;
  }

  testing::TestNamespace space_;
};

TEST_F(TurnIdentityTest, ANewConversationStoresItsHistoryAndTheNewMessage) {
  ClientTurn client;
  client.history = {Msg("user", "hello"), Msg("assistant", "hi there")};
  client.current = Msg("user", "how are you?");
  auto found = FindTurnConversation(ns(), client, "", now());
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE(found->storage.created);
  EXPECT_EQ(found->storage.ingest.messages.size(), 3u);
  EXPECT_EQ(found->identity.conversation_row, 0);
  EXPECT_EQ(found->identity.conversation_id.rfind("chat-", 0), 0u) << found->identity.conversation_id;
  EXPECT_EQ(found->storage.ingest.title, "hello");
}

TEST_F(TurnIdentityTest, TheTitleIsTheOwnersFirstWordsNotTheClientsHarnessText) {
  const std::string reminder =
      "<system-reminder>\nAttribution for git commits and pull requests you create.\n</system-reminder>\n";
  ClientTurn claude_code;
  claude_code.current = Msg("user", reminder + "My sister Lena moved to Lisbon.");
  auto found = FindTurnConversation(ns(), claude_code, "", now());
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->storage.ingest.title, "My sister Lena moved to Lisbon.");
  EXPECT_EQ(found->storage.ingest.messages.back().content, reminder + "My sister Lena moved to Lisbon.")
      << "stored verbatim";

  ClientTurn codex;  // a Codex session opens with a message that is only its context
  codex.history = {Msg("user", "<environment_context>\n  <cwd>/tmp/x</cwd>\n</environment_context>")};
  codex.current = Msg("user", "Remember this: my cat is called Pixel.");
  found = FindTurnConversation(ns(), codex, "", now());
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->storage.ingest.title, "Remember this: my cat is called Pixel.");
}

TEST_F(TurnIdentityTest, TheHistoryFindsTheConversationAgainAndOnlyTheNewMessageIsStored) {
  ClientTurn first;
  first.current = Msg("user", "my plant is called Fern");
  const TurnIdentity one = Turn(first, "", "nice name");
  ClientTurn second;
  second.history = {Msg("user", "my plant is called Fern"), Msg("assistant", "nice name")};
  second.current = Msg("user", "water it how often?");
  auto found = FindTurnConversation(ns(), second, "", now());
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->identity.conversation_id, one.conversation_id);
  EXPECT_EQ(found->identity.conversation_row, one.conversation_row);
  EXPECT_FALSE(found->storage.created);
  ASSERT_EQ(found->storage.ingest.messages.size(), 1u);
  EXPECT_EQ(found->identity.visible_from_seq, 0);
}

TEST_F(TurnIdentityTest, ARetriedTurnStoresNothingTwice) {
  ClientTurn client;
  client.current = Msg("user", "ok");
  Turn(client, "c1", "fine");
  ClientTurn retry;
  retry.current = Msg("user", "ok");
  // The same request again, before the client saw the answer.
  auto found = FindTurnConversation(ns(), retry, "c1", now());
  ASSERT_TRUE(found.ok());
  auto stored = StoreTurn(ns(), found->storage, "", found->identity);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(MessageCount("c1"), 2);
}

TEST_F(TurnIdentityTest, OneCommonMessageIsNoEvidenceUnlessItIsTheNewest) {
  ClientTurn a;
  a.current = Msg("user", "hi");
  const TurnIdentity first = Turn(a, "", "hello!");
  ClientTurn b;
  b.history = {Msg("user", "hi"), Msg("assistant", "a different reply")};
  b.current = Msg("user", "something else");
  auto found = FindTurnConversation(ns(), b, "", now());
  ASSERT_TRUE(found.ok());
  EXPECT_NE(found->identity.conversation_id, first.conversation_id);
  EXPECT_TRUE(found->storage.created);
}

TEST_F(TurnIdentityTest, AFailedReadFailsTheTurnInsteadOfStartingASecondCopy) {
  ClientTurn client;
  client.current = Msg("user", "the first thing");
  Turn(client, "kept", "noted");
  const int64_t before = MessageCount("kept");
  ASSERT_EQ(before, 2);

  // Named by the header only: the read of that conversation fails.
  ClientTurn by_header;
  by_header.current = Msg("user", "the second thing");
  // Found by the history: the match's read fails.
  ClientTurn by_history;
  by_history.history = {Msg("user", "the first thing"), Msg("assistant", "noted")};
  by_history.current = Msg("user", "the second thing");
  for (const auto& [client_turn, header] : {std::pair{by_header, "kept"}, std::pair{by_history, ""}}) {
    testing::FailingReads failing(ns(), "conversations");
    auto found = FindTurnConversation(ns(), client_turn, header, now());
    ASSERT_FALSE(found.ok()) << "a conversation that could not be read is not a new one";
    EXPECT_EQ(found.status().code(), Code::kBusy) << found.status().ToString();
    EXPECT_NE(found.status().message().find("finding the conversation"), std::string::npos);
  }
  EXPECT_EQ(MessageCount("kept"), before);
  // Once the database reads again, the same turn continues the conversation.
  auto found = FindTurnConversation(ns(), by_header, "kept", now());
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_FALSE(found->storage.created);
}

TEST_F(TurnIdentityTest, AConversationNamedByTheHeaderThatTheHistoryDoesNotMatchKeepsWhatItHas) {
  ClientTurn client;
  client.current = Msg("user", "start");
  Turn(client, "named", "started");
  ClientTurn other;
  other.history = {Msg("user", "something never said here")};
  other.current = Msg("user", "next");
  auto found = FindTurnConversation(ns(), other, "named", now());
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->storage.created);
  ASSERT_EQ(found->storage.ingest.messages.size(), 1u) << "only the new message";
  EXPECT_EQ(found->identity.reply_anchor, 1) << "anchored at the conversation's newest message";
}

nlohmann::json Prompt(const std::string& text) { return nlohmann::json::array({ingest::SystemPromptPart(text)}); }

TEST_F(TurnIdentityTest, ToolCallsAndResultsAreStoredOnceAndTheSystemPromptOnlyWhenItChanges) {
  const nlohmann::json call = ingest::ToolCallPart("c1", "get_weather", R"({"city":"Paris"})");
  ClientTurn first;
  first.system_prompt = Prompt("You are Ada.\nCurrent time: 2026-06-19 21:03");
  first.current = Msg("user", "weather in Paris?");
  llm::AssistantTurn calls;
  calls.tool_calls = {{"r1", "recall", R"({"query":"Paris"})"}, {"c1", "get_weather", R"({"city":"Paris"})"}};
  Turn(first, "tools", calls);

  // The client returns the result; its clock line moved on.
  ClientTurn second;
  second.system_prompt = Prompt("You are Ada.\nCurrent time: 2026-06-19 21:04");
  const ClientMessage asked = Msg("user", "weather in Paris?");
  const ClientMessage called{"assistant", "", nlohmann::json::array({call})};
  const ClientMessage result{"tool", "", nlohmann::json::array({ingest::ToolResultPart("c1", "sunny", false)})};
  second.history = {asked, called, result};
  auto found = FindTurnConversation(ns(), second, "", now());
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->identity.conversation_id, "tools") << "matched by the call's id";
  ASSERT_EQ(found->storage.ingest.messages.size(), 1u) << "only the result is new";
  EXPECT_EQ(found->storage.ingest.messages[0].role, "tool");
  Turn(second, "", "Sunny in Paris.");
  // The same request again stores nothing twice.
  Turn(second, "", "Sunny in Paris.");

  ClientTurn third;
  third.system_prompt = Prompt("You are Ada. Be brief.\nCurrent time: 2026-06-19 21:05");
  third.history = {asked, called, result, Msg("assistant", "Sunny in Paris.")};
  third.current = Msg("user", "thanks");
  Turn(third, "", "You're welcome.");

  const std::vector<store::MessageRecord> stored = Messages("tools");
  std::vector<std::string> roles;
  for (const store::MessageRecord& m : stored) roles.push_back(m.role);
  EXPECT_EQ(roles, (std::vector<std::string>{"system", "user", "assistant", "tool", "assistant", "system", "user",
                                             "assistant"}));
  ASSERT_EQ(stored.size(), 8u);
  EXPECT_EQ(nlohmann::json::parse(stored[0].content), first.system_prompt) << "the prompt as the client sent it";
  EXPECT_EQ(nlohmann::json::parse(stored[2].content), nlohmann::json::array({call})) << "cilia's recall is not kept";
  EXPECT_EQ(nlohmann::json::parse(stored[5].content), third.system_prompt);
  for (size_t i : {0, 2, 3, 5}) EXPECT_EQ(stored[i].text, "") << i;
}

TEST_F(TurnIdentityTest, APromptChangedBackIsStoredAgain) {
  for (const std::string& prompt : {"A", "B", "A"}) {
    ClientTurn client;
    client.system_prompt = Prompt(prompt);
    client.current = Msg("user", "say " + prompt);
    Turn(client, "flip", "ok");
  }
  int prompts = 0;
  for (const store::MessageRecord& m : Messages("flip")) prompts += m.role == "system";
  EXPECT_EQ(prompts, 3);
}

TEST(AnswerStorage, TextThenToolCallsAndAPlainAnswerStaysAString) {
  TurnIdentity identity;
  identity.conversation_id = "c";
  llm::AssistantTurn answer;
  answer.text = "Let me look.";
  answer.tool_calls = {{"c1", "search", "{}"}, {"r1", "recall", "{}"}};
  const ingest::IngestConversation with_calls = AnswerStorage(identity, answer, "recall");
  ASSERT_EQ(with_calls.messages.size(), 1u);
  EXPECT_EQ(with_calls.messages[0].content,
            nlohmann::json::array({ingest::TextPart("Let me look."), ingest::ToolCallPart("c1", "search", "{}")}));
  // A client tool that happens to share the name is kept when cilia offered no recall.
  EXPECT_EQ(AnswerStorage(identity, answer, "").messages[0].content.size(), 3u);
  answer.tool_calls.clear();
  EXPECT_EQ(AnswerStorage(identity, answer, "recall").messages[0].content, "Let me look.");
  answer.text.clear();
  answer.tool_calls = {{"r1", "recall", "{}"}};
  EXPECT_TRUE(AnswerStorage(identity, answer, "recall").messages.empty())
      << "nothing said, nothing of the client's called";
}

TEST_F(TurnIdentityTest, ClientSendsIsTheVisiblePartOfThisConversationOnly) {
  TurnIdentity identity;
  identity.conversation_id = "c";
  identity.visible_from_ms = 1000;
  memory::RecallResult r;
  r.conversation_id = "c";
  r.created_at = 1000;
  EXPECT_TRUE(identity.ClientSends(r));
  r.created_at = 999;
  EXPECT_FALSE(identity.ClientSends(r));
  r.conversation_id = "other";
  r.created_at = 2000;
  EXPECT_FALSE(identity.ClientSends(r));
}

}  // namespace
}  // namespace cilia::gateway
