#include "llm/chat_format.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::llm {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

json ToAnthropic(const std::string& openai_body) {
  auto converted = OpenAIRequestToAnthropic(json::parse(openai_body));
  EXPECT_TRUE(converted.ok()) << converted.status().ToString();
  return converted.ok() ? *converted : json();
}

json ToOpenAI(const std::string& anthropic_body) {
  auto converted = AnthropicRequestToOpenAI(json::parse(anthropic_body));
  EXPECT_TRUE(converted.ok()) << converted.status().ToString();
  return converted.ok() ? *converted : json();
}

// ---- OpenAI request → Anthropic ----------------------------------------------

TEST(OpenAIRequestToAnthropicTest, SystemAndDeveloperMessagesBecomeSystemBlocksWithTheirMarkers) {
  const json out = ToAnthropic(R"({"model":"m","messages":[
    {"role":"system","content":"You are kind."},
    {"role":"developer","content":[{"type":"text","text":"Rules.","cache_control":{"type":"ephemeral"}}]},
    {"role":"user","content":"你好 🙂"}]})");
  EXPECT_EQ(out["system"], json::parse(R"([{"type":"text","text":"You are kind."},
    {"type":"text","text":"Rules.","cache_control":{"type":"ephemeral"}}])"));
  EXPECT_EQ(out["messages"], json::parse(R"([{"role":"user","content":[{"type":"text","text":"你好 🙂"}]}])"));
  EXPECT_EQ(out["model"], "m");
}

TEST(OpenAIRequestToAnthropicTest, AMessageLevelMarkerGoesOnTheMessagesLastBlock) {
  const json out = ToAnthropic(R"({"messages":[
    {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"cache_control":{"type":"ephemeral","ttl":"1h"}}]})");
  EXPECT_FALSE(out["messages"][0]["content"][0].contains("cache_control"));
  EXPECT_EQ(out["messages"][0]["content"][1]["cache_control"], json::parse(R"({"type":"ephemeral","ttl":"1h"})"));
}

TEST(OpenAIRequestToAnthropicTest, ImagesBecomeBase64OrUrlSources) {
  const json out = ToAnthropic(R"({"messages":[{"role":"user","content":[
    {"type":"text","text":"what is this?"},
    {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},
    {"type":"image_url","image_url":{"url":"https://example.invalid/cat.jpg","detail":"high"}}]}]})");
  EXPECT_EQ(out["messages"][0]["content"], json::parse(R"([
    {"type":"text","text":"what is this?"},
    {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
    {"type":"image","source":{"type":"url","url":"https://example.invalid/cat.jpg"}}])"));
}

TEST(OpenAIRequestToAnthropicTest, ParallelToolCallsKeepTheirIdsAndToolResultsShareOneUserTurn) {
  const json out = ToAnthropic(R"({"messages":[
    {"role":"user","content":"weather in Paris and 東京?"},
    {"role":"assistant","content":"Let me look.","tool_calls":[
      {"id":"call_b2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
      {"id":"call_a1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"東京\"}"}}]},
    {"role":"tool","tool_call_id":"call_b2","content":"rain"},
    {"role":"tool","tool_call_id":"call_a1","content":[{"type":"text","text":"sun"}]},
    {"role":"user","content":"thanks"}]})");
  EXPECT_EQ(out["messages"], json::parse(R"([
    {"role":"user","content":[{"type":"text","text":"weather in Paris and 東京?"}]},
    {"role":"assistant","content":[{"type":"text","text":"Let me look."},
      {"type":"tool_use","id":"call_b2","name":"weather","input":{"city":"Paris"}},
      {"type":"tool_use","id":"call_a1","name":"weather","input":{"city":"東京"}}]},
    {"role":"user","content":[
      {"type":"tool_result","tool_use_id":"call_b2","content":"rain"},
      {"type":"tool_result","tool_use_id":"call_a1","content":[{"type":"text","text":"sun"}]},
      {"type":"text","text":"thanks"}]}])"));
}

TEST(OpenAIRequestToAnthropicTest, ConsecutiveSameRoleMessagesMergeAndEmptyOnesVanish) {
  const json out = ToAnthropic(R"({"messages":[
    {"role":"user","content":"one"},{"role":"user","content":""},{"role":"user","content":"two"},
    {"role":"assistant","content":""},{"role":"assistant","content":"three"}]})");
  EXPECT_EQ(out["messages"], json::parse(R"([
    {"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]},
    {"role":"assistant","content":[{"type":"text","text":"three"}]}])"));
}

TEST(OpenAIRequestToAnthropicTest, ToolCallWithoutArgumentsHasAnEmptyInput) {
  const json out = ToAnthropic(R"({"messages":[{"role":"assistant","content":null,"tool_calls":[
    {"id":"c1","type":"function","function":{"name":"now","arguments":""}}]}]})");
  EXPECT_EQ(out["messages"][0]["content"][0]["input"], json::object());
}

TEST(OpenAIRequestToAnthropicTest, ToolsKeepTheirOrderAndParametersBecomeTheInputSchema) {
  const json out = ToAnthropic(R"({"messages":[{"role":"user","content":"x"}],"tools":[
    {"type":"function","function":{"name":"zeta","description":"last letter","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}},
    {"type":"function","function":{"name":"alpha"},"cache_control":{"type":"ephemeral"}}]})");
  EXPECT_EQ(out["tools"], json::parse(R"([
    {"name":"zeta","description":"last letter","input_schema":{"type":"object","properties":{"q":{"type":"string"}}}},
    {"name":"alpha","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}])"));
}

TEST(OpenAIRequestToAnthropicTest, ToolChoiceMapsToTheAnthropicForm) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("auto")", R"({"type":"auto"})"},
      {R"("none")", R"({"type":"none"})"},
      {R"("required")", R"({"type":"any"})"},
      {R"({"type":"function","function":{"name":"zeta"}})", R"({"type":"tool","name":"zeta"})"},
  };
  for (const auto& [choice, expected] : cases) {
    const json out = ToAnthropic(R"({"messages":[],"tools":[{"type":"function","function":{"name":"zeta"}}],"tool_choice":)" +
                                 choice + "}");
    EXPECT_EQ(out["tool_choice"], json::parse(expected)) << choice;
  }
  const json serial = ToAnthropic(
      R"({"messages":[],"tools":[{"type":"function","function":{"name":"zeta"}}],"parallel_tool_calls":false})");
  EXPECT_EQ(serial["tool_choice"], json::parse(R"({"type":"auto","disable_parallel_tool_use":true})"));
}

TEST(OpenAIRequestToAnthropicTest, SamplingFieldsPassAndMaxTokensHasADefault) {
  const json out = ToAnthropic(R"({"messages":[],"temperature":0.3,"top_p":0.9,"stop":"END","stream":true,
    "user":"alice","presence_penalty":1,"max_tokens":100,"max_completion_tokens":200})");
  EXPECT_EQ(out["temperature"], 0.3);
  EXPECT_EQ(out["top_p"], 0.9);
  EXPECT_EQ(out["stop_sequences"], json::array({"END"}));
  EXPECT_EQ(out["stream"], true);
  EXPECT_EQ(out["metadata"], json::parse(R"({"user_id":"alice"})"));
  EXPECT_EQ(out["max_tokens"], 200);
  EXPECT_FALSE(out.contains("presence_penalty"));
  EXPECT_EQ(ToAnthropic(R"({"messages":[]})")["max_tokens"], kDefaultAnthropicMaxTokens);
  EXPECT_EQ(ToAnthropic(R"({"messages":[],"max_tokens":7})")["max_tokens"], 7);
  EXPECT_EQ(ToAnthropic(R"({"messages":[],"stop":["a","b"]})")["stop_sequences"], json::parse(R"(["a","b"])"));
}

TEST(OpenAIRequestToAnthropicTest, ReasoningEffortBecomesAThinkingBudgetWithinMaxTokens) {
  const json high = ToAnthropic(R"({"messages":[],"reasoning_effort":"high","max_tokens":1000,"temperature":0.2})");
  EXPECT_EQ(high["thinking"], json::parse(R"({"type":"enabled","budget_tokens":16384})"));
  EXPECT_EQ(high["max_tokens"], 16384 + 1000);  // the answer keeps the 1,000 the client asked for
  EXPECT_FALSE(high.contains("temperature"));    // Anthropic takes none with thinking
  const json low = ToAnthropic(R"({"messages":[],"reasoning_effort":"low","max_tokens":20000})");
  EXPECT_EQ(low["thinking"]["budget_tokens"], 2048);
  EXPECT_EQ(low["max_tokens"], 20000);
  EXPECT_FALSE(ToAnthropic(R"({"messages":[],"reasoning_effort":"none"})").contains("thinking"));
  // A client's own thinking field wins.
  EXPECT_EQ(ToAnthropic(R"({"messages":[],"reasoning_effort":"high","thinking":{"type":"disabled"}})")["thinking"],
            json::parse(R"({"type":"disabled"})"));
  auto unknown = OpenAIRequestToAnthropic(json::parse(R"({"messages":[],"reasoning_effort":"turbo"})"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("reasoning_effort"));
}

TEST(OpenAIRequestToAnthropicTest, WhatAnthropicCannotTakeIsRefusedNamingTheField) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"messages":[],"n":2})", "n"},
      {R"({"messages":"hi"})", "messages"},
      {R"({"messages":[{"role":"function","content":"x"}]})", "messages[0].role"},
      {R"({"messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]})", "messages[0].content[0]"},
      {R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"ftp://x/y.png"}}]}]})", "messages[0].content[0]"},
      {R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png,raw"}}]}]})", "image_url.url"},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{oops"}}]}]})", "messages[0].tool_calls[0].function.arguments"},
      {R"({"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"[1]"}}]}]})", "arguments"},
      {R"({"messages":[{"role":"tool","content":"x"}]})", "tool_call_id"},
      {R"({"messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"https://x/y"}}]}]})", "system message"},
      {R"({"messages":[],"tools":[{"type":"custom","custom":{"name":"x"}}]})", "tools[0]"},
      {R"({"messages":[],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"sometimes"})", "tool_choice"},
      {R"({"messages":[{"role":"user","content":42}]})", "messages[0].content"},
  };
  for (const auto& [body, named] : cases) {
    auto converted = OpenAIRequestToAnthropic(json::parse(body));
    ASSERT_FALSE(converted.ok()) << body;
    EXPECT_EQ(converted.status().code(), Code::kInvalidArgument) << body;
    EXPECT_THAT(converted.status().message(), HasSubstr(named)) << body;
  }
  EXPECT_FALSE(OpenAIRequestToAnthropic(json::array()).ok());
}

// ---- Anthropic request → OpenAI ----------------------------------------------

TEST(AnthropicRequestToOpenAITest, SystemBecomesTheFirstMessageAndMarkersAreDropped) {
  const json out = ToOpenAI(R"({"model":"m","max_tokens":50,"system":[
      {"type":"text","text":"Persona."},{"type":"text","text":"Rules.","cache_control":{"type":"ephemeral"}}],
    "messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]})");
  EXPECT_EQ(out["messages"], json::parse(R"([{"role":"system","content":"Persona.\n\nRules."},{"role":"user","content":"hi"}])"));
  EXPECT_EQ(out["max_tokens"], 50);
  EXPECT_EQ(ToOpenAI(R"({"system":"plain","messages":[]})")["messages"][0], json::parse(R"({"role":"system","content":"plain"})"));
}

TEST(AnthropicRequestToOpenAITest, ImagesBecomeImageUrlParts) {
  const json out = ToOpenAI(R"({"messages":[{"role":"user","content":[
    {"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"}},
    {"type":"image","source":{"type":"url","url":"https://example.invalid/a.png"}},
    {"type":"text","text":"两张图"}]}]})");
  EXPECT_EQ(out["messages"][0]["content"], json::parse(R"([
    {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQ"}},
    {"type":"image_url","image_url":{"url":"https://example.invalid/a.png"}},
    {"type":"text","text":"两张图"}])"));
}

TEST(AnthropicRequestToOpenAITest, ToolUseBecomesToolCallsAndThinkingIsDropped) {
  const json out = ToOpenAI(R"({"messages":[{"role":"assistant","content":[
    {"type":"thinking","thinking":"hmm","signature":"sig"},
    {"type":"text","text":"Checking "},{"type":"text","text":"both."},
    {"type":"tool_use","id":"toolu_2","name":"weather","input":{"city":"Paris"}},
    {"type":"tool_use","id":"toolu_1","name":"weather","input":{}}]}]})");
  EXPECT_EQ(out["messages"][0], json::parse(R"({"role":"assistant","content":"Checking both.","tool_calls":[
    {"id":"toolu_2","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}},
    {"id":"toolu_1","type":"function","function":{"name":"weather","arguments":"{}"}}]})"));
  const json only_tool = ToOpenAI(R"({"messages":[{"role":"assistant","content":[
    {"type":"redacted_thinking","data":"xx"},{"type":"tool_use","id":"t","name":"f","input":{}}]}]})");
  EXPECT_TRUE(only_tool["messages"][0]["content"].is_null());
}

TEST(AnthropicRequestToOpenAITest, ToolResultsBecomeToolMessagesBeforeTheRestOfTheTurn) {
  const json out = ToOpenAI(R"({"messages":[{"role":"user","content":[
    {"type":"tool_result","tool_use_id":"toolu_2","content":"rain"},
    {"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[
      {"type":"text","text":"line 1"},{"type":"text","text":"line 2"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},
    {"type":"text","text":"and now?"}]}]})");
  EXPECT_EQ(out["messages"], json::parse(R"([
    {"role":"tool","tool_call_id":"toolu_2","content":"rain"},
    {"role":"tool","tool_call_id":"toolu_1","content":"line 1\nline 2"},
    {"role":"user","content":[{"type":"text","text":"and now?"},
                              {"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}])"));
}

TEST(AnthropicRequestToOpenAITest, ToolsChoiceAndSamplingFieldsMap) {
  const json out = ToOpenAI(R"({"messages":[],"tools":[
      {"name":"zeta","description":"d","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}},
      {"name":"alpha","input_schema":{"type":"object","properties":{}}}],
    "tool_choice":{"type":"any","disable_parallel_tool_use":true},
    "stop_sequences":["END"],"temperature":1,"top_p":0.5,"top_k":40,"stream":true,
    "metadata":{"user_id":"u-1"},"thinking":{"type":"enabled","budget_tokens":2048}})");
  EXPECT_EQ(out["tools"], json::parse(R"([
    {"type":"function","function":{"name":"zeta","description":"d","parameters":{"type":"object"}}},
    {"type":"function","function":{"name":"alpha","parameters":{"type":"object","properties":{}}}}])"));
  EXPECT_EQ(out["tool_choice"], "required");
  EXPECT_EQ(out["parallel_tool_calls"], false);
  EXPECT_EQ(out["stop"], json::array({"END"}));
  EXPECT_EQ(out["user"], "u-1");
  EXPECT_EQ(out["stream"], true);
  EXPECT_FALSE(out.contains("top_k"));
  EXPECT_FALSE(out.contains("thinking"));

  const std::vector<std::pair<std::string, json>> choices = {
      {R"({"type":"auto"})", "auto"},
      {R"({"type":"none"})", "none"},
      {R"({"type":"tool","name":"zeta"})", json::parse(R"({"type":"function","function":{"name":"zeta"}})")}};
  for (const auto& [choice, expected] : choices) {
    EXPECT_EQ(ToOpenAI(R"({"messages":[],"tools":[{"name":"zeta","input_schema":{}}],"tool_choice":)" + choice + "}")["tool_choice"],
              expected);
  }
}

TEST(AnthropicRequestToOpenAITest, WhatOpenAICannotTakeIsRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"messages":[],"tools":[{"type":"web_search_20250305","name":"web_search"}]})", "tools[0]"},
      {R"({"messages":[{"role":"user","content":[{"type":"document","source":{}}]}]})", "messages[0].content[0]"},
      {R"({"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]})", "messages[0].content[0]"},
      {R"({"messages":[{"role":"system","content":"x"}]})", "messages[0].role"},
      {R"({"system":[{"type":"image"}],"messages":[]})", "system[0]"},
      {R"({"messages":{}})", "messages"},
  };
  for (const auto& [body, named] : cases) {
    auto converted = AnthropicRequestToOpenAI(json::parse(body));
    ASSERT_FALSE(converted.ok()) << body;
    EXPECT_THAT(converted.status().message(), HasSubstr(named)) << body;
  }
}

TEST(RequestConversionTest, ACanonicalOpenAIRequestSurvivesTheRoundTrip) {
  const json original = json::parse(R"({"model":"m","max_tokens":300,"stream":false,"messages":[
    {"role":"system","content":"Be brief."},
    {"role":"user","content":"look up ☔"},
    {"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"weather","arguments":"{\"q\":\"☔\"}"}}]},
    {"role":"tool","tool_call_id":"call_9","content":"wet"},
    {"role":"assistant","content":"It is wet."},
    {"role":"user","content":[{"type":"text","text":"pic"},{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lG"}}]}],
    "tools":[{"type":"function","function":{"name":"weather","description":"d","parameters":{"type":"object"}}}],
    "tool_choice":"required"})");
  auto anthropic = OpenAIRequestToAnthropic(original);
  ASSERT_TRUE(anthropic.ok());
  auto back = AnthropicRequestToOpenAI(*anthropic);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, original);
}

// ---- responses ----------------------------------------------------------------

TEST(ResponseConversionTest, AnAnthropicAnswerBecomesAChatCompletion) {
  const json out = AnthropicResponseToOpenAI(json::parse(R"({"id":"msg_1","type":"message","role":"assistant",
    "model":"claude-x","content":[{"type":"thinking","thinking":"Let me think.","signature":"s1"},
      {"type":"text","text":"Calling."},{"type":"tool_use","id":"toolu_7","name":"recall","input":{"query":"猫"}}],
    "stop_reason":"tool_use","stop_sequence":null,
    "usage":{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":1000,"output_tokens":42}})"),
                                             "companion");
  EXPECT_EQ(out["id"], "msg_1");
  EXPECT_EQ(out["object"], "chat.completion");
  EXPECT_EQ(out["model"], "companion");
  EXPECT_EQ(out["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(out["choices"][0]["message"], json::parse(R"({"role":"assistant","content":"Calling.",
    "reasoning_content":"Let me think.",
    "tool_calls":[{"id":"toolu_7","type":"function","function":{"name":"recall","arguments":"{\"query\":\"猫\"}"}}]})"));
  EXPECT_EQ(out["usage"], json::parse(R"({"prompt_tokens":1210,"completion_tokens":42,"total_tokens":1252,
    "prompt_tokens_details":{"cached_tokens":1000}})"));
}

TEST(ResponseConversionTest, AChatCompletionBecomesAnAnthropicMessage) {
  const json out = OpenAIResponseToAnthropic(json::parse(R"({"id":"chatcmpl-1","object":"chat.completion","model":"deepseek",
    "choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"Sure.",
      "reasoning_content":"思考中","tool_calls":[
        {"id":"call_1","type":"function","function":{"name":"a","arguments":"{\"x\":1}"}},
        {"id":"call_2","type":"function","function":{"name":"b","arguments":"not json"}}]}}],
    "usage":{"prompt_tokens":1500,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":1024}}})"),
                                             "companion");
  EXPECT_EQ(out["type"], "message");
  EXPECT_EQ(out["id"], "chatcmpl-1");
  EXPECT_EQ(out["model"], "companion");
  EXPECT_EQ(out["stop_reason"], "tool_use");
  EXPECT_EQ(out["content"], json::parse(R"([{"type":"thinking","thinking":"思考中","signature":""},
    {"type":"text","text":"Sure."},
    {"type":"tool_use","id":"call_1","name":"a","input":{"x":1}},
    {"type":"tool_use","id":"call_2","name":"b","input":{}}])"));
  EXPECT_EQ(out["usage"], json::parse(R"({"input_tokens":476,"output_tokens":20,
    "cache_creation_input_tokens":0,"cache_read_input_tokens":1024})"));
}

TEST(ResponseConversionTest, StopReasonsMapBothWays) {
  const std::vector<std::tuple<std::string, FinishReason, std::string>> anthropic = {
      {"end_turn", FinishReason::kStop, "stop"},
      {"max_tokens", FinishReason::kLength, "length"},
      {"tool_use", FinishReason::kToolCalls, "tool_calls"},
      {"stop_sequence", FinishReason::kStopSequence, "stop"},
      {"refusal", FinishReason::kContentFilter, "content_filter"},
      {"pause_turn", FinishReason::kStop, "stop"},
  };
  for (const auto& [stop, reason, finish] : anthropic) {
    EXPECT_EQ(FinishFromAnthropic(stop), reason) << stop;
    EXPECT_EQ(OpenAIFinishName(reason), finish) << stop;
    const json out = AnthropicResponseToOpenAI({{"content", json::array()}, {"stop_reason", stop}}, "m");
    EXPECT_EQ(out["choices"][0]["finish_reason"], finish) << stop;
  }
  const std::vector<std::pair<std::string, std::string>> openai = {
      {"stop", "end_turn"}, {"length", "max_tokens"}, {"tool_calls", "tool_use"},
      {"function_call", "tool_use"}, {"content_filter", "refusal"}};
  for (const auto& [finish, stop] : openai) {
    const json out = OpenAIResponseToAnthropic({{"choices", {{{"finish_reason", finish}, {"message", {{"content", "x"}}}}}}}, "m");
    EXPECT_EQ(out["stop_reason"], stop) << finish;
  }
  EXPECT_TRUE(OpenAIResponseToAnthropic(json::object(), "m")["stop_reason"].is_null());
  EXPECT_TRUE(AnthropicResponseToOpenAI(json::object(), "m")["choices"][0]["finish_reason"].is_null());
}

TEST(ResponseConversionTest, JunkInputGivesAnEmptyAnswerRatherThanAnException) {
  for (const json& junk : {json(), json(42), json::parse(R"({"content":"x","usage":[1]})"),
                           json::parse(R"({"choices":[{"message":7}]})")}) {
    EXPECT_NO_THROW(AnthropicResponseToOpenAI(junk, "m"));
    EXPECT_NO_THROW(OpenAIResponseToAnthropic(junk, "m"));
  }
}

// ---- usage ------------------------------------------------------------------

TEST(UsageTest, AnthropicInputCountsEveryPromptToken) {
  EXPECT_EQ(UsageFromAnthropic(json::parse(
                R"({"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":900,"output_tokens":7})")),
            (Usage{1005, 7, 900, 100}));
  EXPECT_EQ(UsageFromAnthropic(json::parse(R"({"input_tokens":5,"output_tokens":7,"cache_read_input_tokens":null})")),
            (Usage{5, 7, 0, 0}));
}

TEST(UsageTest, OpenAICachedTokensAndDeepSeekHitTokensAreCacheReads) {
  EXPECT_EQ(UsageFromOpenAI(json::parse(R"({"prompt_tokens":2048,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":1024}})")),
            (Usage{2048, 3, 1024, 0}));
  EXPECT_EQ(UsageFromOpenAI(json::parse(R"({"prompt_tokens":300,"completion_tokens":3,"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":44})")),
            (Usage{300, 3, 256, 0}));
  EXPECT_EQ(UsageFromOpenAI(json()), Usage{});
  EXPECT_EQ(UsageFromOpenAI(json::parse(R"({"prompt_tokens":-4,"completion_tokens":"x"})")), Usage{});
}

TEST(UsageTest, RenderingKeepsTotalsAndTheUncachedAnthropicPartNeverGoesNegative) {
  const Usage usage{1000, 10, 600, 300};
  EXPECT_EQ(UsageFromAnthropic(UsageToAnthropic(usage)), usage);
  EXPECT_EQ(UsageToAnthropic(usage)["input_tokens"], 100);
  EXPECT_EQ(UsageFromOpenAI(UsageToOpenAI(usage)), (Usage{1000, 10, 600, 0}));
  EXPECT_EQ(UsageToAnthropic(Usage{10, 0, 50, 0})["input_tokens"], 0);
}

TEST(UsageTest, ReasoningTokensAreReadAndWrittenOnTheOpenAIWireAndAnthropicHasNone) {
  const Usage read = UsageFromOpenAI(json::parse(
      R"({"prompt_tokens":100,"completion_tokens":40,"completion_tokens_details":{"reasoning_tokens":25}})"));
  EXPECT_EQ(read, (Usage{100, 40, 0, 0, 25}));
  EXPECT_EQ(UsageToOpenAI(read)["completion_tokens_details"]["reasoning_tokens"], 25);
  EXPECT_EQ(UsageFromOpenAI(UsageToOpenAI(read)), read);
  EXPECT_FALSE(UsageToOpenAI(Usage{100, 40, 0, 0}).contains("completion_tokens_details")) << "none: not written";
  EXPECT_EQ(UsageFromOpenAI(json::parse(R"({"completion_tokens_details":{"reasoning_tokens":-3}})")).reasoning, 0);
  EXPECT_EQ(UsageFromAnthropic(json::parse(R"({"input_tokens":10,"output_tokens":5})")).reasoning, 0);
}

TEST(AssistantTurnTest, RendersAsEitherFormatsAssistantMessage) {
  AssistantTurn turn;
  turn.thinking = {{"a", "sig-a", ""}, {"", "", "opaque"}, {"b", "sig-b", ""}};
  turn.text = "done";
  turn.tool_calls = {{"toolu_1", "recall", R"({"query":"x"})"}};
  EXPECT_EQ(turn.ReasoningText(), "ab");
  EXPECT_TRUE(turn.CalledTool("recall"));
  EXPECT_FALSE(turn.CalledTool("weather"));
  EXPECT_EQ(AnthropicAssistantContent(turn), json::parse(R"([
    {"type":"thinking","thinking":"a","signature":"sig-a"},{"type":"redacted_thinking","data":"opaque"},
    {"type":"thinking","thinking":"b","signature":"sig-b"},{"type":"text","text":"done"},
    {"type":"tool_use","id":"toolu_1","name":"recall","input":{"query":"x"}}])"));
  EXPECT_EQ(OpenAIAssistantMessage(turn), json::parse(R"({"role":"assistant","content":"done","reasoning_content":"ab",
    "tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"recall","arguments":"{\"query\":\"x\"}"}}]})"));
  EXPECT_EQ(OpenAIAssistantMessage(AssistantTurn{}), json::parse(R"({"role":"assistant","content":null})"));
}

}  // namespace
}  // namespace cilia::llm
