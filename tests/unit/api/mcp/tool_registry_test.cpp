#include "api/mcp/tool_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/mcp/tool_support.h"
#include "testing/mcp_fixture.h"

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class ToolRegistryTest : public testing::McpFixture {
 protected:
  ToolRegistryTest() {
    registry_tools_.Add({"echo", "Echo", "Says it back.", Scope::kMemoryRead, ToolHints{},
                         ObjectSchema({{"word", Field("string", "a word", {{"minLength", 1}})}}, {"word"}),
                         ObjectSchema({{"word", Field("string", "the word")}}),
                         [](const ToolContext& call) -> Result<ToolOutput> {
                           std::string word = call.arguments["word"];
                           if (word == "missing") return Status::NotFound("id: no memory \"x_9\"");
                           if (word == "broken") return Status::Internal("disk on fire");
                           return ToolOutput{"said " + word + " in " + call.ns.name(), json{{"word", word}}};
                         }});
    registry_tools_.Add({"erase", "Erase", "Erases.", Scope::kMemoryWrite, ToolHints{false, true, true},
                         ObjectSchema(json::object()), ObjectSchema(json::object()),
                         [](const ToolContext&) -> Result<ToolOutput> { return ToolOutput{"gone", json::object()}; }});
  }
  json Run(const char* name, const json& arguments, const Principal& who, ToolShape shape = {}) {
    return registry_tools_.Call(*registry_tools_.Find(name), *registry_, who, arguments, "", shape);
  }
  ToolRegistry registry_tools_;
};

TEST_F(ToolRegistryTest, ListsOnlyWhatTheKeysScopesAllowInOrder) {
  json read_only = registry_tools_.List(reader_, {});
  ASSERT_EQ(read_only["tools"].size(), 1u);
  EXPECT_EQ(read_only["tools"][0]["name"], "echo");
  json writer = registry_tools_.List(writer_, {});
  ASSERT_EQ(writer["tools"].size(), 2u);
  EXPECT_EQ(writer["tools"][1]["name"], "erase");
  EXPECT_EQ(writer["tools"][1]["annotations"],
            json({{"title", "Erase"}, {"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", true},
                  {"openWorldHint", false}}));
  EXPECT_EQ(writer["tools"][0]["title"], "Echo");
  EXPECT_TRUE(writer["tools"][0].contains("outputSchema"));
  json old_shape = registry_tools_.List(writer_, ToolShape{false});
  EXPECT_FALSE(old_shape["tools"][0].contains("outputSchema"));
  EXPECT_FALSE(old_shape["tools"][0].contains("title"));
  EXPECT_EQ(old_shape["tools"][0]["annotations"]["title"], "Echo");
}

TEST_F(ToolRegistryTest, ACallAnswersTextAndStructuredContentInTheCallersNamespace) {
  json result = Run("echo", {{"word", "hi"}}, Key("k", ScopeBit(Scope::kMemoryRead), "team"));
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(Text(result), "said hi in team");
  EXPECT_EQ(result["structuredContent"], json({{"word", "hi"}}));
  EXPECT_FALSE(Run("echo", {{"word", "hi"}}, reader_, ToolShape{false}).contains("structuredContent"));
}

TEST_F(ToolRegistryTest, FailuresAreIsErrorResultsSayingWhatToDo) {
  json bad = Run("echo", {{"word", 3}}, reader_);
  EXPECT_EQ(bad["isError"], true);
  EXPECT_THAT(Text(bad), HasSubstr("echo was not run: word: must be a string, got 3. Correct that argument"));
  EXPECT_FALSE(bad.contains("structuredContent"));
  EXPECT_THAT(Text(Run("echo", json::object(), reader_)), HasSubstr("word: is required (a word)"));
  EXPECT_THAT(Text(Run("echo", {{"word", "missing"}}, reader_)), HasSubstr("Check the id or name"));
  EXPECT_THAT(Text(Run("echo", {{"word", "broken"}}, reader_)), HasSubstr("failed inside cilia: disk on fire"));
  json refused = Run("erase", json::object(), reader_);
  EXPECT_EQ(refused["isError"], true);
  EXPECT_THAT(Text(refused), HasSubstr("erase needs a key with the \"memory:write\" scope, and this key has only memory:read"));
}

TEST_F(ToolRegistryTest, ABadNamespaceIsAFailedCallNotACrash) {
  json result = Run("echo", {{"word", "hi"}}, Key("k", ScopeBit(Scope::kMemoryRead), "Bad Name!"));
  EXPECT_EQ(result["isError"], true);
}

}  // namespace
}  // namespace cilia::api::mcp
