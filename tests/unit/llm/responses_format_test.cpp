#include "llm/responses_format.h"

#include <gtest/gtest.h>

namespace cilia::llm {
namespace {

using json = nlohmann::json;

TEST(ResponsesInputTest, AStringIsOneUserMessage) {
  auto messages = ResponsesInputToChatMessages("hello");
  ASSERT_TRUE(messages.ok());
  EXPECT_EQ(*messages, json::parse(R"([{"role":"user","content":"hello"}])"));
}

TEST(ResponsesInputTest, EveryItemTypeHasItsChatForm) {
  const json input = json::parse(R"([
    {"role":"developer","content":"be terse"},
    {"type":"message","role":"system","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]},
    {"type":"message","role":"user","content":[{"type":"input_text","text":"what is this?"},
                                               {"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"low"}]},
    {"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"opaque"},
    {"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me check.","annotations":[]}]},
    {"type":"function_call","call_id":"call_1","name":"weather","arguments":"{\"city\":\"Paris\"}"},
    {"type":"function_call","call_id":"call_2","name":"now","arguments":"{}"},
    {"type":"function_call_output","call_id":"call_1","output":"sunny"},
    {"type":"function_call_output","call_id":"call_2","output":[{"type":"input_text","text":"noon"}]},
    {"role":"user","content":"thanks"}
  ])");
  auto messages = ResponsesInputToChatMessages(input);
  ASSERT_TRUE(messages.ok()) << messages.status().ToString();
  const json expected = json::parse(R"([
    {"role":"system","content":"be terse"},
    {"role":"system","content":"a\nb"},
    {"role":"user","content":[{"type":"text","text":"what is this?"},
                              {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA","detail":"low"}}]},
    {"role":"assistant","content":"Let me check.","tool_calls":[
      {"id":"call_1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
      {"id":"call_2","type":"function","function":{"name":"now","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"sunny"},
    {"role":"tool","tool_call_id":"call_2","content":"noon"},
    {"role":"user","content":"thanks"}
  ])");
  EXPECT_EQ(*messages, expected);
}

TEST(ResponsesInputTest, AFunctionCallWithoutAMessageBeforeItOpensAnAssistantMessage) {
  auto messages = ResponsesInputToChatMessages(json::parse(R"([
    {"role":"user","content":"weather?"},
    {"type":"function_call","call_id":"c","name":"weather","arguments":"{}"}])"));
  ASSERT_TRUE(messages.ok());
  EXPECT_EQ((*messages)[1]["role"], "assistant");
  EXPECT_TRUE((*messages)[1]["content"].is_null());
  EXPECT_EQ((*messages)[1]["tool_calls"][0]["id"], "c");
}

TEST(ResponsesInputTest, WhatChatCompletionsCannotCarryIsRefusedNamingTheField) {
  struct Case {
    const char* input;
    const char* field;
  };
  for (const Case& c : std::vector<Case>{
           {R"([{"type":"item_reference","id":"msg_1"}])", "input[0]"},
           {R"([{"type":"web_search_call","id":"ws_1"}])", "input[0].type"},
           {R"([{"role":"user","content":[{"type":"input_image","file_id":"file_1"}]}])", "input[0].content[0]"},
           {R"([{"role":"user","content":[{"type":"input_file","file_id":"f"}]}])", "input[0].content[0]"},
           {R"([{"role":"assistant","content":[{"type":"input_image","image_url":"https://x/y.png"}]}])", "input[0].content"},
           {R"([{"role":"tool","content":"x"}])", "input[0].role"},
           {R"([{"type":"function_call_output","output":"x"}])", "input[0].call_id"},
           {R"([{"role":"user"}])", "input[0].content"},
           {R"([3])", "input[0]"},
           {R"(7)", "input"}}) {
    auto messages = ResponsesInputToChatMessages(json::parse(c.input));
    ASSERT_FALSE(messages.ok()) << c.input;
    EXPECT_EQ(messages.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(messages.status().message().rfind(std::string(c.field) + ":", 0), 0u) << messages.status().message();
  }
}

TEST(ResponsesRequestTest, TheRequestsSwitchesCarryOver) {
  const json body = json::parse(R"({
    "model":"companion","instructions":"You are kind.","input":"hi","stream":true,
    "tools":[{"type":"function","name":"weather","description":"the weather","parameters":{"type":"object"},"strict":true}],
    "tool_choice":{"type":"function","name":"weather"},
    "max_output_tokens":300,"reasoning":{"effort":"low","summary":"auto"},
    "text":{"format":{"type":"json_schema","name":"out","schema":{"type":"object"},"strict":true}},
    "temperature":0.5,"top_p":0.9,"parallel_tool_calls":false,"user":"u1",
    "store":false,"metadata":{"a":"b"},"truncation":"auto","include":["reasoning.encrypted_content"]})");
  const json history = json::parse(R"([{"role":"user","content":"before"},{"role":"assistant","content":"ok"}])");
  auto chat = ResponsesRequestToChat(body, history);
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_EQ((*chat)["model"], "companion");
  ASSERT_EQ((*chat)["messages"].size(), 4u);
  EXPECT_EQ((*chat)["messages"][0], json::parse(R"({"role":"system","content":"You are kind."})"));
  EXPECT_EQ((*chat)["messages"][1]["content"], "before");
  EXPECT_EQ((*chat)["messages"][3]["content"], "hi");
  EXPECT_EQ((*chat)["tools"][0], json::parse(R"({"type":"function","function":{"name":"weather","description":"the weather",
                                                 "parameters":{"type":"object"},"strict":true}})"));
  EXPECT_EQ((*chat)["tool_choice"], json::parse(R"({"type":"function","function":{"name":"weather"}})"));
  EXPECT_EQ((*chat)["max_tokens"], 300);
  EXPECT_EQ((*chat)["reasoning_effort"], "low");
  EXPECT_EQ((*chat)["response_format"]["type"], "json_schema");
  EXPECT_EQ((*chat)["response_format"]["json_schema"]["name"], "out");
  EXPECT_EQ((*chat)["temperature"], 0.5);
  EXPECT_EQ((*chat)["top_p"], 0.9);
  EXPECT_EQ((*chat)["parallel_tool_calls"], false);
  EXPECT_EQ((*chat)["user"], "u1");
  EXPECT_EQ((*chat)["stream"], true);
  EXPECT_EQ((*chat)["stream_options"]["include_usage"], true);
  EXPECT_FALSE(chat->contains("metadata"));
  EXPECT_FALSE(chat->contains("store"));
}

TEST(ResponsesRequestTest, BuiltInToolsAndModesCiliaCannotRunAreRefusedClearly) {
  struct Case {
    const char* body;
    const char* field;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"input":"x","tools":[{"type":"function","name":"f"},{"type":"web_search"}]})", "tools[1].type"},
           {R"({"input":"x","tools":[{"type":"function"}]})", "tools[0].name"},
           {R"({"input":"x","tool_choice":"sometimes"})", "tool_choice"},
           {R"({"input":"x","tool_choice":{"type":"file_search"}})", "tool_choice.type"},
           {R"({"input":"x","background":true})", "background"},
           {R"({"input":"x","conversation":"conv_1"})", "conversation"},
           {R"({"input":"x","prompt":{"id":"p"}})", "prompt"},
           {R"({"input":"x","max_output_tokens":0})", "max_output_tokens"},
           {R"({"input":"x","instructions":["a"]})", "instructions"},
           {R"({"input":"x","text":{"format":{"type":"grammar"}}})", "text.format.type"},
           {R"({"model":"m"})", "input"}}) {
    auto chat = ResponsesRequestToChat(json::parse(c.body), json::array());
    ASSERT_FALSE(chat.ok()) << c.body;
    EXPECT_EQ(chat.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(chat.status().message().rfind(std::string(c.field) + ":", 0), 0u) << chat.status().message();
  }
  auto web = ResponsesRequestToChat(json::parse(R"({"input":"x","tools":[{"type":"web_search"}]})"), json::array());
  EXPECT_NE(web.status().message().find("web_search"), std::string::npos);
}

TEST(ResponsesRequestTest, ReadForAResponsesUpstreamWhatOnlyItTakesIsLeftOutAndNoted) {
  const json body = json::parse(R"({"input":[
      {"role":"user","content":[{"type":"input_text","text":"read this"},{"type":"input_file","file_id":"file_1"}]},
      {"type":"custom_tool_call","call_id":"c1","name":"apply_patch","input":"*** Begin Patch"},
      {"type":"item_reference","id":"msg_0"},
      {"role":"user","content":"and search the web"}],
    "tools":[{"type":"web_search"},{"type":"function","name":"shell"}],
    "tool_choice":{"type":"web_search"},
    "text":{"format":{"type":"grammar"},"verbosity":"low"}})");
  Status upstream_only;
  auto chat = ResponsesRequestToChat(body, json::array(), &upstream_only);
  ASSERT_TRUE(chat.ok()) << chat.status().ToString();
  EXPECT_EQ(upstream_only.code(), Code::kInvalidArgument);
  EXPECT_EQ(upstream_only.message().rfind("input[0].content[1]:", 0), 0u) << "the first one: " << upstream_only.message();
  EXPECT_EQ((*chat)["messages"], json::parse(R"([{"role":"user","content":"read this"},{"role":"user","content":"and search the web"}])"));
  ASSERT_EQ((*chat)["tools"].size(), 1u);
  EXPECT_EQ((*chat)["tools"][0]["function"]["name"], "shell");
  EXPECT_FALSE(chat->contains("tool_choice"));
  EXPECT_FALSE(chat->contains("response_format"));
  Status none;
  ASSERT_TRUE(ResponsesRequestToChat(json::parse(R"({"input":"hi"})"), json::array(), &none).ok());
  EXPECT_TRUE(none.ok()) << "nothing left out";
  EXPECT_FALSE(ResponsesRequestToChat(body, json::array()).ok()) << "without upstream_only it is refused";
  Status still;
  EXPECT_EQ(ResponsesRequestToChat(json::parse(R"({"input":"x","background":true})"), json::array(), &still).status().code(),
            Code::kInvalidArgument)
      << "background is refused on every upstream";
}

TEST(ResponsesPassThroughTest, AResponseReadsAsATurnWithItsItemsAndAsTheClientsResponse) {
  const json response = json::parse(R"({"id":"resp_up","model":"gpt-5","status":"completed",
    "instructions":"client rules\n\n<profile name=\"user\">…</profile>","tool_choice":"none","previous_response_id":null,
    "tools":[{"type":"function","name":"recall"}],
    "output":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAA=="},
              {"type":"function_call","id":"fc_1","call_id":"call_r","name":"recall","arguments":"{}"},
              {"type":"function_call","id":"fc_2","call_id":"call_s","name":"shell","arguments":"{}"}],
    "usage":{"input_tokens":9,"output_tokens":3,"output_tokens_details":{"reasoning_tokens":2}}})");
  const AssistantTurn turn = TurnFromResponsesResponse(response);
  EXPECT_EQ(turn.items, response["output"]);
  ASSERT_EQ(turn.tool_calls.size(), 2u);
  EXPECT_EQ(turn.tool_calls[0].id, "call_r");
  EXPECT_EQ(turn.usage.reasoning, 2);
  const json visible = WithoutCallsTo(response["output"], "recall");
  ASSERT_EQ(visible.size(), 2u);
  EXPECT_EQ(visible[0]["encrypted_content"], "gAAA==");
  EXPECT_EQ(visible[1]["name"], "shell");

  const json request = json::parse(R"({"model":"companion","instructions":"client rules","previous_response_id":"resp_prev",
                                       "tools":[{"type":"web_search"}],"input":"x"})");
  const json client = AsClientResponse(response, request, {"resp_cilia", 7, "companion"});
  EXPECT_EQ(client["id"], "resp_cilia");
  EXPECT_EQ(client["model"], "companion");
  EXPECT_EQ(client["instructions"], "client rules") << "cilia's memory is not shown back";
  EXPECT_EQ(client["tools"], request["tools"]);
  EXPECT_EQ(client["tool_choice"], "auto");
  EXPECT_EQ(client["previous_response_id"], "resp_prev");
  EXPECT_EQ(client["output"], response["output"]);
  EXPECT_EQ(client["usage"], response["usage"]);
  EXPECT_EQ(client["status"], "completed");
  EXPECT_EQ(client["object"], "response") << "what the upstream left out, from the request";
  EXPECT_EQ(client["metadata"], json::object());
  EXPECT_EQ(InputItems("hi"), json::parse(R"([{"type":"message","role":"user","content":"hi"}])"));
  EXPECT_EQ(InputItems(request["tools"]), request["tools"]);
}

TEST(ResponsesResponseTest, AChatCompletionBecomesAResponseObject) {
  const json chat = json::parse(R"({"id":"cmpl","object":"chat.completion","model":"up",
    "choices":[{"index":0,"message":{"role":"assistant","content":"It is sunny.","reasoning_content":"think",
      "tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{}"}}]},"finish_reason":"tool_calls"}],
    "usage":{"prompt_tokens":100,"completion_tokens":10,"prompt_tokens_details":{"cached_tokens":60},
             "completion_tokens_details":{"reasoning_tokens":4}}})");
  const json request = json::parse(R"({"model":"companion","input":"hi","metadata":{"t":"1"},"store":false,
                                      "tools":[{"type":"function","name":"weather"}],"previous_response_id":"resp_prev"})");
  const json r = ChatResponseToResponses(chat, request, {"resp_1", 1780000000, "companion"});
  EXPECT_EQ(r["id"], "resp_1");
  EXPECT_EQ(r["object"], "response");
  EXPECT_EQ(r["created_at"], 1780000000);
  EXPECT_EQ(r["status"], "completed");
  EXPECT_EQ(r["model"], "companion");
  EXPECT_EQ(r["metadata"]["t"], "1");
  EXPECT_EQ(r["store"], false);
  EXPECT_EQ(r["previous_response_id"], "resp_prev");
  EXPECT_EQ(r["tool_choice"], "auto");
  EXPECT_EQ(r["tools"].size(), 1u);
  EXPECT_TRUE(r["error"].is_null());
  ASSERT_EQ(r["output"].size(), 3u);
  EXPECT_EQ(r["output"][0], json::parse(R"({"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"think"}]})"));
  EXPECT_EQ(r["output"][1], json::parse(R"({"id":"msg_1","type":"message","status":"completed","role":"assistant",
                                          "content":[{"type":"output_text","text":"It is sunny.","annotations":[]}]})"));
  EXPECT_EQ(r["output"][2], json::parse(R"({"id":"fc_1_0","type":"function_call","status":"completed","call_id":"call_1",
                                          "name":"weather","arguments":"{}"})"));
  EXPECT_EQ(r["usage"], json::parse(R"({"input_tokens":100,"input_tokens_details":{"cached_tokens":60},"output_tokens":10,
                                       "output_tokens_details":{"reasoning_tokens":4},"total_tokens":110})"));
  // Back as chat messages, for the chain a follow-up continues.
  EXPECT_EQ(ResponseOutputToChatMessages(r["output"]), json::parse(R"([{"role":"assistant","content":"It is sunny.",
    "tool_calls":[{"id":"call_1","type":"function","function":{"name":"weather","arguments":"{}"}}]}])"));
}

TEST(ResponsesResponseTest, ALengthFinishIsIncomplete) {
  const json chat = json::parse(R"({"choices":[{"message":{"role":"assistant","content":"cut"},"finish_reason":"length"}]})");
  const json r = ChatResponseToResponses(chat, json::object(), {"resp_2", 0, "m"});
  EXPECT_EQ(r["status"], "incomplete");
  EXPECT_EQ(r["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(r["output"][0]["status"], "incomplete");
}

TEST(ResponsesUpstreamTest, AChatRequestGoesOutAsResponsesItemsInOrder) {
  const json chat = json::parse(R"({"model":"gpt-up","stream":true,"max_tokens":500,"reasoning_effort":"high",
    "messages":[{"role":"system","content":"persona"},{"role":"user","content":[{"type":"text","text":"see"},
               {"type":"image_url","image_url":{"url":"https://x/y.png"}}]},
               {"role":"assistant","content":"Looking.","tool_calls":[{"id":"c1","type":"function","function":{"name":"recall","arguments":"{\"query\":\"cat\"}"}}]},
               {"role":"tool","tool_call_id":"c1","content":"Mochi"},
               {"role":"user","content":"and?\n\n<turn_context>now</turn_context>"}],
    "tools":[{"type":"function","function":{"name":"recall","description":"search","parameters":{"type":"object"}}}],
    "tool_choice":"none","response_format":{"type":"json_object"}})");
  const json r = ChatRequestToResponses(chat);
  EXPECT_EQ(r["model"], "gpt-up");
  EXPECT_EQ(r["store"], false);
  EXPECT_EQ(r["stream"], true);
  EXPECT_EQ(r["max_output_tokens"], 500);
  EXPECT_EQ(r["reasoning"]["effort"], "high");
  EXPECT_EQ(r["tool_choice"], "none");
  EXPECT_EQ(r["text"]["format"]["type"], "json_object");
  EXPECT_EQ(r["tools"][0], json::parse(R"({"type":"function","name":"recall","description":"search","parameters":{"type":"object"}})"));
  const json& input = r["input"];
  ASSERT_EQ(input.size(), 6u);
  EXPECT_EQ(input[0], json::parse(R"({"type":"message","role":"system","content":"persona"})")) << "the cached prefix stays first";
  EXPECT_EQ(input[1]["content"][1], json::parse(R"({"type":"input_image","image_url":"https://x/y.png","detail":"auto"})"));
  EXPECT_EQ(input[2]["role"], "assistant");
  EXPECT_EQ(input[3], json::parse(R"({"type":"function_call","call_id":"c1","name":"recall","arguments":"{\"query\":\"cat\"}"})"));
  EXPECT_EQ(input[4], json::parse(R"({"type":"function_call_output","call_id":"c1","output":"Mochi"})"));
  EXPECT_EQ(input[5]["content"], "and?\n\n<turn_context>now</turn_context>") << "the per-turn block stays last";
}

TEST(ResponsesUpstreamTest, AResponseReadsAsAChatCompletion) {
  const json response = json::parse(R"({"id":"resp_u","created_at":5,"model":"gpt-up","status":"completed",
    "output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"hm"}]},
              {"type":"message","content":[{"type":"output_text","text":"Hi"}]},
              {"type":"function_call","call_id":"c9","name":"recall","arguments":"{}"}],
    "usage":{"input_tokens":50,"input_tokens_details":{"cached_tokens":40},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":2}}})");
  const json chat = ResponsesResponseToChat(response);
  const AssistantTurn turn = TurnFromOpenAIResponse(chat);
  EXPECT_EQ(turn.id, "resp_u");
  EXPECT_EQ(turn.text, "Hi");
  EXPECT_EQ(turn.ReasoningText(), "hm");
  ASSERT_EQ(turn.tool_calls.size(), 1u);
  EXPECT_EQ(turn.tool_calls[0], (ToolCall{"c9", "recall", "{}"}));
  EXPECT_EQ(turn.finish, FinishReason::kToolCalls);
  EXPECT_EQ(turn.usage, (Usage{50, 5, 40, 0, 2}));
  EXPECT_EQ(chat["usage"]["completion_tokens_details"]["reasoning_tokens"], 2);
  const json cut = ResponsesResponseToChat(json::parse(R"({"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},
                                                          "output":[{"type":"message","content":[{"type":"output_text","text":"a"}]}]})"));
  EXPECT_EQ(cut["choices"][0]["finish_reason"], "length");
}

TEST(ResponsesUsageTest, UsageBothWays) {
  const Usage usage{1000, 50, 800, 0, 5};
  const json r = UsageToResponses(usage);
  EXPECT_EQ(r["total_tokens"], 1050);
  EXPECT_EQ(r["output_tokens_details"]["reasoning_tokens"], 5);
  EXPECT_EQ(UsageFromResponses(r), usage);
  EXPECT_EQ(UsageFromResponses(json()), Usage{});
}

}  // namespace
}  // namespace cilia::llm
