#include "core/json_read.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::json {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using json = nlohmann::json;

TEST(JsonPath, SpellsKeysAndIndexes) {
  EXPECT_EQ(PathKey("", "messages"), "messages");
  EXPECT_EQ(PathIndex("messages", 3), "messages[3]");
  EXPECT_EQ(PathKey(PathIndex("messages", 3), "role"), "messages[3].role");
  EXPECT_EQ(PathIndex("", 0), "[0]");
}

TEST(JsonPath, QuotesKeysThatAreNotIdentifiers) {
  EXPECT_EQ(PathKey("[0].mapping", "aaa-bbb"), "[0].mapping[\"aaa-bbb\"]");
  EXPECT_EQ(PathKey("", "session:abc"), "[\"session:abc\"]");
  EXPECT_EQ(PathKey("x", "1st"), "x[\"1st\"]");
  EXPECT_EQ(PathKey("x", "中文"), "x[\"中文\"]");
  EXPECT_EQ(PathKey("x", "say \"hi\""), "x[\"say \\\"hi\\\"\"]");
}

TEST(FieldError, PrefixesThePath) {
  Status error = FieldError("messages[0].id", "must be a string");
  EXPECT_EQ(error.code(), Code::kInvalidArgument);
  EXPECT_EQ(error.message(), "messages[0].id: must be a string");
  EXPECT_EQ(FieldError("", "must be an object").message(), "must be an object");
}

TEST(LineColumn, CountsLinesAndCodePoints) {
  std::string text = "第一行\n中文abc";
  EXPECT_EQ(LineColumn(text, 0), "line 1, column 1");
  EXPECT_EQ(LineColumn(text, text.find('a')), "line 2, column 3");
  EXPECT_EQ(LineColumn(text, text.size() + 10), "line 2, column 6");
  EXPECT_EQ(LineColumn("abc", 2, 17), "line 17, column 3");
}

TEST(ParseJsonText, ParsesADocument) {
  Result<json> parsed = ParseJsonText(R"({"名字": ["🙂", 1]})");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ((*parsed)["名字"][0], "🙂");
}

TEST(ParseJsonText, NamesTheLineAndColumnOfASyntaxError) {
  Result<json> parsed = ParseJsonText("{\n  \"a\": 1,\n  \"b\": tru\n}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), StartsWith("line 3, column"));
  EXPECT_THAT(parsed.status().message(), HasSubstr("invalid literal"));
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr("json.exception")));
}

TEST(ParseJsonText, CountsColumnsInCodePoints) {
  Result<json> parsed = ParseJsonText("[\"中文\" 1]");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), StartsWith("line 1, column 7:"));
}

TEST(ParseJsonText, ReportsTruncatedInput) {
  Result<json> parsed = ParseJsonText("[1, 2");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("unexpected end of input"));
}

TEST(ParseJsonText, RejectsInvalidUtf8WithAReadableMessage) {
  Result<json> parsed = ParseJsonText("{\"a\": \"ok \xff\"}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), HasSubstr("UTF-8"));
  EXPECT_EQ(parsed.status().message().find('\xff'), std::string::npos);  // the bad byte is not echoed
}

TEST(ParseJsonText, NumbersLinesFromTheGivenFirstLine) {
  Result<json> parsed = ParseJsonText("{\"a\" 1}", 42);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.status().message(), StartsWith("line 42, column 6:"));
}

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(ParseJsonText, RefusesNestingDeeperThanTheLimit) {
  // 58,000 levels crashed the server when the value was serialised.
  Result<json> deep = ParseJsonText(Nested(58'000));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(deep.status().message(), "line 1, column 129: nested deeper than 128 levels");
  EXPECT_TRUE(ParseJsonText(Nested(128)).ok());
  EXPECT_FALSE(ParseJsonText("{\"a\":" + Nested(128) + "}").ok());
}

TEST(ParseJsonText, BracketsInsideStringsAreNotNesting) {
  const std::string text = "[\"" + std::string(500, '[') + "\\\"{\"]";
  Result<json> parsed = ParseJsonText(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ((*parsed)[0].get<std::string>().size(), 502u);
}

TEST(ParseJsonText, RefusesMoreValuesThanTheLimit) {
  ParseLimits limits;
  limits.max_values = 4;
  EXPECT_TRUE(ParseJsonText("[1,2,3]", 1, limits).ok());
  Result<json> many = ParseJsonText("[1,2,3,4,5]", 1, limits);
  ASSERT_FALSE(many.ok());
  EXPECT_THAT(many.status().message(), HasSubstr("more than 4 values"));
  EXPECT_TRUE(ParseJsonText("[\"a,b,c,d,e,f\"]", 1, limits).ok());
}

TEST(ParseJsonText, ANumberOutOfRangeIsAnInvalidArgument) {
  Result<json> parsed = ParseJsonText("{\"limit\": 1e999}");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("1e999"));
  EXPECT_THAT(parsed.status().message(), Not(HasSubstr("json.exception")));
}

TEST(FieldReaders, AStringArrayNamesTheItemThatIsNotAString) {
  json object = {{"aliases", {"Chengdu", "蓉城"}}, {"bad", {"a", 2}}, {"flat", "a,b"}};
  EXPECT_EQ(*OptionalStringArray(object, "aliases", ""), (std::vector<std::string>{"Chengdu", "蓉城"}));
  EXPECT_TRUE(OptionalStringArray(object, "missing", "")->empty());
  EXPECT_EQ(OptionalStringArray(object, "bad", "entry").status().message(), "entry.bad[1]: must be a string");
  EXPECT_EQ(OptionalStringArray(object, "flat", "").status().message(), "flat: must be an array");
}

TEST(FieldReaders, TreatAbsentAndNullAsNotGiven) {
  json object = {{"s", "x"}, {"n", nullptr}};
  EXPECT_EQ(*OptionalString(object, "s", ""), "x");
  EXPECT_EQ(*OptionalString(object, "n", ""), "");
  EXPECT_EQ(*OptionalString(object, "missing", ""), "");
  EXPECT_EQ(*OptionalArray(object, "n", "root"), nullptr);
  EXPECT_EQ(*OptionalObject(object, "missing", "root"), nullptr);
  EXPECT_FALSE(OptionalNumber(object, "n", "")->has_value());
  EXPECT_TRUE(*OptionalBool(object, "missing", "", true));
}

TEST(FieldReaders, NameTheFieldOfAWrongType) {
  json object = {{"s", 1}, {"a", "x"}, {"o", json::array()}, {"n", "1"}, {"b", 0}};
  EXPECT_EQ(OptionalString(object, "s", "m[0]").status().message(), "m[0].s: must be a string");
  EXPECT_EQ(OptionalArray(object, "a", "m[0]").status().message(), "m[0].a: must be an array");
  EXPECT_EQ(OptionalObject(object, "o", "m[0]").status().message(), "m[0].o: must be an object");
  EXPECT_EQ(OptionalNumber(object, "n", "m[0]").status().message(), "m[0].n: must be a number");
  EXPECT_EQ(OptionalBool(object, "b", "m[0]", false).status().message(), "m[0].b: must be true or false");
}

TEST(FieldReaders, RequiredOnesMustBeGiven) {
  json object = {{"empty", ""}, {"list", json::array({1})}};
  EXPECT_EQ(RequiredString(object, "missing", "").status().message(), "missing: is required");
  EXPECT_EQ(RequiredString(object, "empty", "").status().message(), "empty: must not be empty");
  EXPECT_EQ(RequiredArray(object, "missing", "x").status().message(), "x.missing: is required");
  EXPECT_EQ((*RequiredArray(object, "list", ""))->size(), 1u);
}

TEST(FieldReaders, ReadNumbersAndBooleans) {
  json object = {{"t", 1715000000.123}, {"i", 7}, {"yes", true}};
  EXPECT_DOUBLE_EQ(**OptionalNumber(object, "t", ""), 1715000000.123);
  EXPECT_DOUBLE_EQ(**OptionalNumber(object, "i", ""), 7.0);
  EXPECT_TRUE(*OptionalBool(object, "yes", "", false));
  // A number is not a boolean, and a boolean is not a number.
  EXPECT_FALSE(OptionalNumber(object, "yes", "").ok());
}

}  // namespace
}  // namespace cilia::json
