#include "api/mcp/schema_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const json kSchema = json::parse(R"({
  "type": "object",
  "additionalProperties": false,
  "required": ["query"],
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 5, "description": "what to look for"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "status": {"type": "string", "enum": ["active", "all"]},
    "fact_key": {"type": ["string", "null"]},
    "messages": {"type": "array", "maxItems": 2, "items": {
      "type": "object", "required": ["role"], "properties": {"role": {"type": "string", "enum": ["user"]}}}}
  }})");

std::string ErrorOf(const json& value) {
  Status s = CheckAgainstSchema(kSchema, value);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << value.dump();
  return s.message();
}

TEST(CheckAgainstSchema, AcceptsWhatFits) {
  EXPECT_TRUE(CheckAgainstSchema(kSchema, {{"query", "cat"}}).ok());
  EXPECT_TRUE(CheckAgainstSchema(kSchema, {{"query", "猫猫猫猫猫"}, {"limit", 100}, {"fact_key", nullptr}}).ok())
      << "lengths count code points";
  EXPECT_TRUE(CheckAgainstSchema(kSchema, {{"query", "a"}, {"limit", 5.0}}).ok()) << "5.0 is an integer";
  EXPECT_TRUE(CheckAgainstSchema(kSchema, {{"query", "a"}, {"messages", {{{"role", "user"}}}}}).ok());
}

TEST(CheckAgainstSchema, NamesTheArgumentAndWhatItMustBe) {
  EXPECT_THAT(ErrorOf(json::object()), HasSubstr("query: is required (what to look for)"));
  EXPECT_THAT(ErrorOf({{"query", 5}}), HasSubstr("query: must be a string, got 5"));
  EXPECT_THAT(ErrorOf({{"query", ""}}), HasSubstr("query: must not be empty"));
  EXPECT_THAT(ErrorOf({{"query", "abcdef"}}), HasSubstr("query: must be at most 5 characters long, got 6"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"limit", 500}}), HasSubstr("limit: must be at most 100, got 500"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"limit", 0}}), HasSubstr("limit: must be at least 1"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"limit", 2.5}}), HasSubstr("limit: must be an integer"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"status", "gone"}}), HasSubstr("status: must be one of \"active\", \"all\""));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"fact_key", 3}}), HasSubstr("fact_key: must be a string or null"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"qurey", "a"}}), HasSubstr("qurey: is not an argument of this tool"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"messages", {{{"role", "bot"}}}}}), HasSubstr("messages[0].role: must be one of"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"messages", {json::object()}}}), HasSubstr("messages[0].role: is required"));
  EXPECT_THAT(ErrorOf({{"query", "a"}, {"messages", {1, 2, 3}}}), HasSubstr("messages: must hold at most 2 items"));
  EXPECT_THAT(CheckAgainstSchema(kSchema, json::array()).message(), HasSubstr("must be an object"));
}

}  // namespace
}  // namespace cilia::api::mcp
