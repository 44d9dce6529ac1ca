#include "gateway/chat_request.h"

#include <gtest/gtest.h>

namespace cilia::gateway {
namespace {

using nlohmann::json;

TEST(ReadClientTurn, OpenAIHistoryKeepsWhatPeopleSaidAndTheLastUserMessageIsCurrent) {
  const json body = json::parse(R"({
    "model": "companion", "user": "alice", "stream": true, "stream_options": {"include_usage": true},
    "messages": [
      {"role": "system", "content": "Be kind."},
      {"role": "user", "content": "我的猫叫年糕 🐱"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
      {"role": "assistant", "content": "好名字！"},
      {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}
    ]})");
  auto turn = ReadClientTurn(body, Wire::kOpenAI);
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(turn->history.size(), 4u);
  EXPECT_EQ(turn->history[0].text, "我的猫叫年糕 🐱");
  EXPECT_EQ(turn->history[0].content, "我的猫叫年糕 🐱");
  EXPECT_EQ(turn->history[1].role, "assistant");
  EXPECT_EQ(turn->history[1].text, "") << "a tool call is no words";
  EXPECT_EQ(turn->history[2].role, "tool");
  EXPECT_EQ(turn->history[3].text, "好名字！");
  EXPECT_EQ(turn->system_prompt, json::parse(R"([{"type":"system_prompt","text":"Be kind."}])"));
  ASSERT_TRUE(turn->current.has_value());
  EXPECT_EQ(turn->current->text, "look");
  ASSERT_TRUE(turn->current->content.is_array());
  EXPECT_EQ(turn->current->content[1]["type"], "image_url");
  EXPECT_TRUE(turn->has_images);
  EXPECT_EQ(turn->client_user, "alice");
  EXPECT_TRUE(turn->stream);
  EXPECT_TRUE(turn->include_usage);
}

TEST(ReadClientTurn, AnthropicToolResultTurnHasNoNewUserMessage) {
  const json body = json::parse(R"({
    "model": "m", "metadata": {"user_id": "u-7"},
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "weather?", "cache_control": {"type": "ephemeral"}}]},
      {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]}
    ]})");
  auto turn = ReadClientTurn(body, Wire::kAnthropic);
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  EXPECT_FALSE(turn->current.has_value());
  ASSERT_EQ(turn->history.size(), 3u);
  EXPECT_EQ(turn->history[0].content, json::parse(R"([{"type":"text","text":"weather?"}])")) << "cache_control is not content";
  EXPECT_EQ(turn->history[2].role, "tool");
  EXPECT_TRUE(turn->system_prompt.is_null()) << "no system prompt sent";
  EXPECT_EQ(turn->client_user, "u-7");
  EXPECT_FALSE(turn->stream);
}

TEST(ReadClientTurn, OpenAIToolCallsFollowTheTextAndToolMessagesHoldOneResult) {
  const json body = json::parse(R"({
    "messages": [
      {"role": "developer", "content": [{"type": "text", "text": "Rules."}]},
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "weather in Paris and Rome?"},
      {"role": "assistant", "content": "Checking.", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
        {"id": "c2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
      {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "rain"}]}
    ]})");
  auto turn = ReadClientTurn(body, Wire::kOpenAI);
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  EXPECT_FALSE(turn->current.has_value()) << "the request returns tool results";
  ASSERT_EQ(turn->history.size(), 4u);
  EXPECT_EQ(turn->history[1].text, "Checking.");
  EXPECT_EQ(turn->history[1].content, json::parse(R"([{"type":"text","text":"Checking."},
    {"type":"tool_call","id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
    {"type":"tool_call","id":"c2","name":"get_weather","arguments":"{\"city\":\"Rome\"}"}])"));
  EXPECT_EQ(turn->history[2].content, json::parse(R"([{"type":"tool_result","tool_call_id":"c1","content":"sunny"}])"));
  EXPECT_EQ(turn->history[3].content,
            json::parse(R"([{"type":"tool_result","tool_call_id":"c2","content":[{"type":"text","text":"rain"}]}])"));
  EXPECT_EQ(turn->history[3].text, "");
  EXPECT_EQ(turn->system_prompt,
            json::parse(R"([{"type":"system_prompt","text":"Rules."},{"type":"system_prompt","text":"Be brief."}])"));
}

TEST(ReadClientTurn, AnthropicToolResultsComeJustBeforeTheRestOfTheirUserMessage) {
  const json body = json::parse(R"({
    "system": [{"type": "text", "text": "You are Ada.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
      {"role": "user", "content": "look this up"},
      {"role": "assistant", "content": [{"type": "thinking", "thinking": "hm", "signature": "s"},
                                        {"type": "text", "text": "On it."},
                                        {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "x"}}]},
      {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": true,
         "content": [{"type": "text", "text": "failed", "cache_control": {"type": "ephemeral"}},
                     {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]},
        {"type": "text", "text": "try again"}]}
    ]})");
  auto turn = ReadClientTurn(body, Wire::kAnthropic);
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(turn->history.size(), 3u);
  EXPECT_EQ(turn->history[1].content, json::parse(R"([{"type":"text","text":"On it."},
    {"type":"tool_call","id":"t1","name":"search","arguments":"{\"q\":\"x\"}"}])"));
  EXPECT_EQ(turn->history[2].role, "tool");
  EXPECT_EQ(turn->history[2].content, json::parse(R"([{"type":"tool_result","tool_call_id":"t1","is_error":true,
    "content":[{"type":"text","text":"failed"},
               {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}])"));
  ASSERT_TRUE(turn->current.has_value());
  EXPECT_EQ(turn->current->text, "try again");
  EXPECT_EQ(turn->system_prompt, json::parse(R"([{"type":"system_prompt","text":"You are Ada."}])"))
      << "cache_control left out";
  EXPECT_FALSE(turn->has_images) << "an image in a tool result does not pick the vision model";
}

TEST(ReadClientTurn, BadBodiesNameTheField) {
  EXPECT_EQ(ReadClientTurn(json::array(), Wire::kOpenAI).status().message(), "body: must be a JSON object");
  EXPECT_EQ(ReadClientTurn(json{{"model", "m"}}, Wire::kOpenAI).status().message(), "messages: required, an array of messages");
  EXPECT_EQ(ReadClientTurn(json{{"messages", json::array()}}, Wire::kOpenAI).status().message(), "messages: must not be empty");
  EXPECT_EQ(ReadClientTurn(json{{"messages", json::array({1})}}, Wire::kOpenAI).status().message(), "messages[0]: must be an object");
  EXPECT_EQ(ReadClientTurn(json{{"messages", json::array({json::object()})}}, Wire::kAnthropic).status().message(),
            "messages[0].role: required, a string");
  const json two_choices = {{"n", 2}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  EXPECT_EQ(ReadClientTurn(two_choices, Wire::kOpenAI).status().message(), "n: only 1 is supported");
  const json one_choice = {{"n", 1}, {"messages", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  EXPECT_TRUE(ReadClientTurn(one_choice, Wire::kOpenAI).ok());
}

TEST(MenuQueryOf, NewestUserTextsAndThePreviousReply) {
  ClientTurn turn;
  turn.history = {{"user", "one", "one"}, {"assistant", "reply one", "reply one"}, {"user", "two", "two"},
                  {"assistant", "reply two", "reply two"}};
  turn.current = ClientMessage{"user", "three", "three"};
  const MenuQuery query = MenuQueryOf(turn);
  EXPECT_EQ(query.user_texts, (std::vector<std::string>{"two", "three"}));
  EXPECT_EQ(query.previous_assistant, "reply two");
}

TEST(MenuQueryOf, TheOwnersWordsOnlyAndHarnessOnlyMessagesAreNoUserText) {
  ClientTurn turn;
  const std::string context = "<environment_context><cwd>/tmp/x</cwd></environment_context>";
  turn.history = {{"user", "one", "one"}, {"user", context, context}};
  const std::string current = "<system-reminder>git commits</system-reminder>\nWhat is my cat called?";
  turn.current = ClientMessage{"user", current, current};
  const MenuQuery query = MenuQueryOf(turn);
  EXPECT_EQ(query.user_texts, (std::vector<std::string>{"one", "What is my cat called?"}));
}

TEST(MessageText, JoinsTextPartsOfEitherFormat) {
  EXPECT_EQ(MessageText(json{{"role", "user"}, {"content", "plain"}}), "plain");
  EXPECT_EQ(MessageText(json::parse(R"({"content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]})")),
            "a\nb");
  EXPECT_EQ(MessageText(json{{"content", nullptr}}), "");
}

}  // namespace
}  // namespace cilia::gateway
