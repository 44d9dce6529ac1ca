#include "ingest/context_parts.h"

#include <gtest/gtest.h>

#include "ingest/ingest_request.h"

namespace cilia::ingest {
namespace {

using nlohmann::json;

TEST(ContextParts, TheShapesTheArchiveKeeps) {
  EXPECT_EQ(ToolCallPart("c1", "get_weather", R"({"city":"Paris"})"),
            json::parse(R"({"type":"tool_call","id":"c1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"})"));
  EXPECT_EQ(ToolResultPart("c1", "sunny", false),
            json::parse(R"({"type":"tool_result","tool_call_id":"c1","content":"sunny"})"))
      << "is_error only when true";
  EXPECT_EQ(
      ToolResultPart("c1", json::array({TextPart("boom")}), true),
      json::parse(
          R"({"type":"tool_result","tool_call_id":"c1","content":[{"type":"text","text":"boom"}],"is_error":true})"));
  EXPECT_EQ(SystemPromptPart("Be kind."), json::parse(R"({"type":"system_prompt","text":"Be kind."})"));
}

TEST(ContextParts, TheyCarryNoTextOfTheirOwn) {
  const json content = json::array({SystemPromptPart("You are Ada."), ToolResultPart("c1", "sunny", false)});
  EXPECT_EQ(ContentText(content), "") << "out of windows, indexes and the menu";
  EXPECT_TRUE(HoldsContextParts(content));
  EXPECT_FALSE(HoldsContextParts(json::array({TextPart("hi")})));
  EXPECT_FALSE(HoldsContextParts("tool_call"));
}

TEST(ContextKey, TheIdsOfCallsAndResultsInOrder) {
  EXPECT_EQ(
      ContextKey(json::array({TextPart("Checking."), ToolCallPart("c1", "a", "{}"), ToolCallPart("c2", "b", "{}")})),
      "call:c1,call:c2");
  EXPECT_EQ(ContextKey(json::array({ToolResultPart("c2", "x", false)})), "result:c2");
  EXPECT_EQ(ContextKey(json::array({SystemPromptPart("p")})), "") << "a prompt is compared by its text";
  EXPECT_EQ(ContextKey("plain text"), "");
  EXPECT_EQ(ContextKey(json::array({json::object(), 3})), "");
}

}  // namespace
}  // namespace cilia::ingest
