#include "gateway/responses_turn.h"

#include <gtest/gtest.h>

#include "ingest/context_parts.h"
#include "memory/archive/archive.h"
#include "testing/test_namespace.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

class ResponsesTurnTest : public ::testing::Test {
 protected:
  memory::Namespace& ns() { return space_.ns(); }
  testing::TestNamespace space_;
  ResponseStore store_;
};

TEST_F(ResponsesTurnTest, ANewTurnIsItsInputAfterTheInstructions) {
  auto call = ReadResponsesCall(json::parse(R"({"model":"m","instructions":"be kind","input":"hi"})"), store_, "default",
                                &ns(), 5000);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->chat_body["messages"].size(), 2u);
  EXPECT_EQ(call->turn.chain, json::parse(R"([{"role":"user","content":"hi"}])")) << "instructions are not chained";
  EXPECT_TRUE(call->turn.continues.empty());
  EXPECT_TRUE(call->turn.keep);
  EXPECT_EQ(call->turn.created_at, 5000);
  auto unkept = ReadResponsesCall(json::parse(R"({"input":"hi","store":false})"), store_, "default", &ns(), 0);
  ASSERT_TRUE(unkept.ok());
  EXPECT_FALSE(unkept->turn.keep);
}

TEST_F(ResponsesTurnTest, AKeptResponseChainsWithItsMessagesAndOutput) {
  auto first = ReadResponsesCall(json::parse(R"({"input":"weather in Paris?"})"), store_, "default", &ns(), 0);
  ASSERT_TRUE(first.ok());
  const json response = json::parse(R"({"id":"resp_x","output":[{"type":"function_call","call_id":"call_1","name":"weather","arguments":"{}"}]})");
  store_.Put("default", "resp_x", KeptResponse(first->turn, response, "conv-1"));
  auto next = ReadResponsesCall(json::parse(R"({"previous_response_id":"resp_x","instructions":"new rules",
      "input":[{"type":"function_call_output","call_id":"call_1","output":"sunny"}]})"), store_, "default", &ns(), 0);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->turn.continues, "conv-1");
  const json& messages = next->chat_body["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0]["content"], "new rules");
  EXPECT_EQ(messages[1]["content"], "weather in Paris?");
  EXPECT_EQ(messages[2]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(messages[3]["role"], "tool");
  EXPECT_EQ(next->turn.chain.size(), 3u);
  auto elsewhere = ReadResponsesCall(json::parse(R"({"previous_response_id":"resp_x","input":"x"})"), store_, "other",
                                     nullptr, 0);
  EXPECT_EQ(elsewhere.status().code(), Code::kNotFound) << "another namespace's responses are not found";
}

TEST_F(ResponsesTurnTest, AResponseNoLongerKeptIsFoundThroughTheArchive) {
  ingest::IngestConversation c;
  c.conversation_id = "chat-1";
  c.messages.push_back({"s", "system", "", json::array({ingest::SystemPromptPart("be brief")}), 500});
  c.messages.push_back({"u", "user", "", "my cat is Mochi", 1000});
  c.messages.push_back({"t", "assistant", "", json::array({ingest::ToolCallPart("c1", "lookup", "{}")}), 1500});
  c.messages.push_back({"r", "tool", "", json::array({ingest::ToolResultPart("c1", "Mochi: a cat", false)}), 1600});
  c.messages.push_back({"a", "assistant", "", "lovely name", 2000});
  ASSERT_TRUE(memory::Archive(ns()).Store(c).ok());
  const std::string id = NewResponseId("chat-1", 3000, "0");
  auto next = ReadResponsesCall(json{{"previous_response_id", id}, {"input", "what is her name?"}}, store_, "default", &ns(), 0);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->turn.continues, "chat-1");
  EXPECT_EQ(next->chat_body["messages"], json::parse(R"([{"role":"user","content":"my cat is Mochi"},
      {"role":"assistant","content":"lovely name"},{"role":"user","content":"what is her name?"}])"))
      << "the words only: stored tool calls, results and prompts are no chat messages here";
  auto gone = ReadResponsesCall(json{{"previous_response_id", NewResponseId("chat-none", 1, "0")}, {"input", "x"}}, store_,
                                "default", &ns(), 0);
  EXPECT_EQ(gone.status().code(), Code::kNotFound);
  auto foreign = ReadResponsesCall(json{{"previous_response_id", "resp_from_elsewhere"}, {"input", "x"}}, store_, "default",
                                   &ns(), 0);
  EXPECT_EQ(foreign.status().code(), Code::kNotFound);
  EXPECT_NE(foreign.status().message().find("previous_response_id"), std::string::npos);
  auto bad = ReadResponsesCall(json{{"previous_response_id", 5}, {"input", "x"}}, store_, "default", &ns(), 0);
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
}

TEST_F(ResponsesTurnTest, TheUpstreamBodyIsTheClientsWithTheChainAsItemsInFront) {
  const json body = json::parse(R"({"model":"m","instructions":"rules","include":["reasoning.encrypted_content"],
      "prompt_cache_key":"k","tools":[{"type":"web_search"}],"store":false,
      "input":[{"type":"reasoning","id":"rs_0","summary":[],"encrypted_content":"gAAA=="},{"role":"user","content":"hi"}]})");
  auto first = ReadResponsesCall(body, store_, "default", &ns(), 0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->turn.upstream_body, body) << "nothing to resolve: the body as it came";
  EXPECT_EQ(first->turn.chat_refusal.code(), Code::kInvalidArgument) << "web_search: only for a Responses upstream";
  first->turn.pass_through = true;
  const json response = json::parse(R"({"id":"resp_p","status":"completed",
      "output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gBBB=="},
                {"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}]})");
  const StoredResponse kept = KeptResponse(first->turn, response, "conv-p");
  ASSERT_EQ(kept.items.size(), 4u);
  EXPECT_EQ(kept.items[0]["encrypted_content"], "gAAA==");
  EXPECT_EQ(kept.items[2]["encrypted_content"], "gBBB==");
  store_.Put("default", "resp_p", kept);

  auto next = ReadResponsesCall(json::parse(R"({"model":"m","previous_response_id":"resp_p","input":"and then?"})"), store_,
                                "default", &ns(), 0);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  const json& upstream = next->turn.upstream_body;
  EXPECT_FALSE(upstream.contains("previous_response_id")) << "the upstream never saw cilia's ids";
  ASSERT_EQ(upstream["input"].size(), 5u);
  EXPECT_EQ(upstream["input"][0], body["input"][0]);
  EXPECT_EQ(upstream["input"][2], response["output"][0]);
  EXPECT_EQ(upstream["input"][4], json::parse(R"({"type":"message","role":"user","content":"and then?"})"));
  EXPECT_TRUE(next->turn.chat_refusal.ok());

  // Kept from a converted turn (no items): its chat messages go as items.
  auto converted = ReadResponsesCall(json::parse(R"({"input":"weather?"})"), store_, "default", &ns(), 0);
  ASSERT_TRUE(converted.ok());
  store_.Put("default", "resp_c", KeptResponse(converted->turn, json::parse(R"({"output":[
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"sunny"}]}]})"), "conv-c"));
  auto after = ReadResponsesCall(json::parse(R"({"previous_response_id":"resp_c","input":"thanks"})"), store_, "default",
                                 &ns(), 0);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->turn.upstream_body["input"], json::parse(R"([{"type":"message","role":"user","content":"weather?"},
      {"type":"message","role":"assistant","content":"sunny"},{"type":"message","role":"user","content":"thanks"}])"));
}

}  // namespace
}  // namespace cilia::gateway
