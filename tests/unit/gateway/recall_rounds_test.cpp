#include "gateway/recall_rounds.h"

#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "testing/test_namespace.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

llm::AssistantTurn Calls(std::vector<llm::ToolCall> calls, std::string text = "") {
  llm::AssistantTurn turn;
  turn.text = std::move(text);
  turn.tool_calls = std::move(calls);
  turn.finish = llm::FinishReason::kToolCalls;
  return turn;
}

class RecallRoundsTest : public ::testing::Test {
 protected:
  RecallRoundsTest() {
    ingest::IngestConversation earlier;
    earlier.conversation_id = "pets";
    earlier.messages.push_back({"p1", "user", "", "My cat is named Mochi.", space_.clock().Now() - 86'400'000});
    memory::Archive archive(space_.ns());
    auto stored = archive.Store(earlier);
    EXPECT_TRUE(stored.ok());
    EXPECT_TRUE(archive.IndexConversation(stored->conversation_row).ok());
    identity_.conversation_id = "now";
  }

  UpstreamRounds Rounds(Wire wire, int max_rounds = 3) {
    UpstreamRounds rounds;
    rounds.wire = wire;
    rounds.recall_offered = true;
    rounds.max_rounds = max_rounds;
    rounds.body = {{"messages", json::array({{{"role", "user"}, {"content", "what is my cat called?"}}})}};
    return rounds;
  }
  bool Continue(UpstreamRounds& rounds, const llm::AssistantTurn& answer) {
    return ContinueWithRecall(rounds, RecallRun{space_.ns(), identity_, {5, 6000, space_.clock().Now(), nullptr}},
                              answer, record_);
  }

  testing::TestNamespace space_;
  TurnIdentity identity_;
  store::TurnRecord record_;
};

TEST_F(RecallRoundsTest, ARecallCallIsRunAndItsResultAppendedInTheOpenAIShape) {
  UpstreamRounds rounds = Rounds(Wire::kOpenAI);
  ASSERT_TRUE(Continue(rounds, Calls({{"call_1", "recall", R"({"query":"cat named"})"}}, "Let me look. ")));
  const json& messages = rounds.body["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1]["role"], "assistant");
  EXPECT_EQ(messages[1]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(messages[2]["role"], "tool");
  EXPECT_EQ(messages[2]["tool_call_id"], "call_1");
  EXPECT_NE(messages[2]["content"].get<std::string>().find("Mochi"), std::string::npos);
  EXPECT_EQ(rounds.recall_rounds, 1);
  EXPECT_FALSE(rounds.body.contains("tool_choice"));
  EXPECT_EQ(record_.injected["recall"][0][0]["query"], "cat named");
  ASSERT_FALSE(record_.sources.empty());
  EXPECT_EQ(record_.sources[0].first, "pets");
}

TEST_F(RecallRoundsTest, AnthropicGetsToolUseAndToolResultBlocks) {
  UpstreamRounds rounds = Rounds(Wire::kAnthropic);
  ASSERT_TRUE(Continue(rounds, Calls({{"toolu_1", "recall", R"({"query":"cat"})"}})));
  const json& messages = rounds.body["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[1]["content"][0]["type"], "tool_use");
  EXPECT_EQ(messages[2]["role"], "user");
  EXPECT_EQ(messages[2]["content"][0]["type"], "tool_result");
  EXPECT_EQ(messages[2]["content"][0]["tool_use_id"], "toolu_1");
}

TEST_F(RecallRoundsTest, NoRecallACallBesideAClientToolOrNotOfferedEndsTheTurn) {
  UpstreamRounds rounds = Rounds(Wire::kOpenAI);
  EXPECT_FALSE(Continue(rounds, Calls({})));
  EXPECT_FALSE(Continue(rounds, Calls({{"c1", "recall", "{}"}, {"c2", "weather", "{}"}})));
  rounds.recall_offered = false;
  EXPECT_FALSE(Continue(rounds, Calls({{"c1", "recall", "{}"}})));
  EXPECT_EQ(rounds.body["messages"].size(), 1u);
  EXPECT_EQ(rounds.recall_rounds, 0);
}

TEST_F(RecallRoundsTest, TheLastRoundAllowedTellsTheModelToAnswer) {
  UpstreamRounds rounds = Rounds(Wire::kOpenAI, 2);
  ASSERT_TRUE(Continue(rounds, Calls({{"c1", "recall", R"({"query":"cat"})"}})));
  EXPECT_FALSE(rounds.body.contains("tool_choice"));
  ASSERT_TRUE(Continue(rounds, Calls({{"c2", "recall", R"({"query":"cat"})"}})));
  EXPECT_EQ(rounds.body["tool_choice"], "none");
  EXPECT_FALSE(Continue(rounds, Calls({{"c3", "recall", R"({"query":"cat"})"}})));
  UpstreamRounds anthropic = Rounds(Wire::kAnthropic, 1);
  ASSERT_TRUE(Continue(anthropic, Calls({{"c1", "recall", R"({"query":"cat"})"}})));
  EXPECT_EQ(anthropic.body["tool_choice"], json({{"type", "none"}}));
}

TEST_F(RecallRoundsTest, WhatTheClientSendsIsLeftOutOfTheResults) {
  identity_.conversation_id = "pets";
  identity_.visible_from_ms = 0;
  UpstreamRounds rounds = Rounds(Wire::kOpenAI);
  ASSERT_TRUE(Continue(rounds, Calls({{"c1", "recall", R"({"query":"cat named"})"}})));
  EXPECT_EQ(rounds.body["messages"][2]["content"].get<std::string>().find("Mochi"), std::string::npos);
}

TEST_F(RecallRoundsTest, JoinRoundsKeepsEveryRoundsTextAndSumsUsage) {
  llm::AssistantTurn a = Calls({{"c1", "recall", "{}"}}, "Let me look. ");
  a.id = "first";
  a.usage = {100, 10, 50, 0};
  a.thinking.push_back({"hmm", "", ""});
  llm::AssistantTurn b;
  b.id = "second";
  b.text = "Mochi.";
  b.finish = llm::FinishReason::kStop;
  b.usage = {120, 5, 100, 0};
  const llm::AssistantTurn all = JoinRounds({a, b});
  EXPECT_EQ(all.id, "first");
  EXPECT_EQ(all.text, "Let me look. Mochi.");
  EXPECT_EQ(all.thinking.size(), 1u);
  EXPECT_TRUE(all.tool_calls.empty());
  EXPECT_EQ(all.finish, llm::FinishReason::kStop);
  EXPECT_EQ(all.usage, (llm::Usage{220, 15, 150, 0}));
  EXPECT_TRUE(JoinRounds({}).text.empty());
}

TEST_F(RecallRoundsTest, MergeRoundsReadsAsOneAnswerWithoutCiliasToolCalls) {
  const llm::AssistantTurn earlier = Calls({{"c1", "recall", "{}"}}, "Let me look. ");
  const llm::Usage total{220, 15, 150, 0};
  json openai = {{"choices", json::array({{{"index", 0},
                                           {"message", {{"role", "assistant"}, {"content", "Mochi."},
                                                        {"tool_calls", json::array({{{"id", "c9"}, {"type", "function"},
                                                                                     {"function", {{"name", "recall"}, {"arguments", "{}"}}}}})}}},
                                           {"finish_reason", "tool_calls"}}})}};
  const json merged = MergeRounds(openai, {earlier}, total, Wire::kOpenAI, true);
  EXPECT_EQ(merged["choices"][0]["message"]["content"], "Let me look. Mochi.");
  EXPECT_FALSE(merged["choices"][0]["message"].contains("tool_calls"));
  EXPECT_EQ(merged["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(merged["usage"]["prompt_tokens"], 220);

  json anthropic = {{"content", json::array({{{"type", "text"}, {"text", "Mochi."}},
                                             {{"type", "tool_use"}, {"id", "t1"}, {"name", "weather"}, {"input", json::object()}}})},
                    {"stop_reason", "tool_use"}};
  const json kept = MergeRounds(anthropic, {earlier}, total, Wire::kAnthropic, true);
  ASSERT_EQ(kept["content"].size(), 3u);
  EXPECT_EQ(kept["content"][0]["text"], "Let me look. ");
  EXPECT_EQ(kept["content"][2]["name"], "weather");
  EXPECT_EQ(kept["stop_reason"], "tool_use") << "the client's own tool call stays";
}

TEST_F(RecallRoundsTest, AResponsesRoundSendsBackTheItemsAsTheUpstreamSentThemThenTheResults) {
  UpstreamRounds rounds = Rounds(Wire::kResponses, 1);
  rounds.body = {{"input", "what is my cat called?"}, {"store", false}};
  llm::AssistantTurn answer = Calls({{"call_r", "recall", R"({"query":"cat named"})"}});
  answer.items = json::parse(R"([{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA=="},
                                 {"type":"reasoning","id":"rs_2","summary":[]},
                                 {"type":"function_call","id":"fc_1","call_id":"call_r","name":"recall","arguments":"{\"query\":\"cat named\"}"}])");
  ASSERT_TRUE(Continue(rounds, answer));
  const json& input = rounds.body["input"];
  ASSERT_EQ(input.size(), 4u);
  EXPECT_EQ(input[0], json::parse(R"({"type":"message","role":"user","content":"what is my cat called?"})"));
  EXPECT_EQ(input[1], answer.items[0]) << "encrypted reasoning goes back unchanged";
  EXPECT_EQ(input[2], answer.items[2]) << "store false: a reasoning item without its content names nothing the upstream kept";
  EXPECT_EQ(input[3]["type"], "function_call_output");
  EXPECT_EQ(input[3]["call_id"], "call_r");
  EXPECT_NE(input[3]["output"].get<std::string>().find("Mochi"), std::string::npos);
  EXPECT_EQ(rounds.body["tool_choice"], "none") << "the last round allowed";
}

TEST_F(RecallRoundsTest, MergedResponsesRoundsShowEveryRoundsItemsButCiliasCalls) {
  llm::AssistantTurn earlier = Calls({{"call_r", "recall", "{}"}});
  earlier.items = json::parse(R"([{"type":"reasoning","id":"rs_1","summary":[]},
                                  {"type":"function_call","id":"fc_1","call_id":"call_r","name":"recall","arguments":"{}"}])");
  const json last = json::parse(R"({"id":"resp_2","status":"completed",
      "output":[{"type":"message","id":"msg_2","content":[{"type":"output_text","text":"Mochi."}]}],
      "usage":{"input_tokens":150,"output_tokens":5}})");
  const json merged = MergeRounds(last, {earlier}, {250, 15, 100, 0, 3}, Wire::kResponses, true);
  ASSERT_EQ(merged["output"].size(), 2u);
  EXPECT_EQ(merged["output"][0]["id"], "rs_1");
  EXPECT_EQ(merged["output"][1]["id"], "msg_2");
  EXPECT_EQ(merged["usage"]["input_tokens"], 250);
  EXPECT_EQ(merged["usage"]["input_tokens_details"]["cached_tokens"], 100);
  EXPECT_EQ(merged["usage"]["output_tokens_details"]["reasoning_tokens"], 3);
  EXPECT_EQ(merged["status"], "completed");
}

}  // namespace
}  // namespace cilia::gateway
