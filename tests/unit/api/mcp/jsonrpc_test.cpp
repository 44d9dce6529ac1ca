#include "api/mcp/jsonrpc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(ParseBody, ReadsARequestANotificationAndAResponse) {
  ParsedBody request = ParseBody(R"({"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":null}})");
  ASSERT_FALSE(request.error);
  ASSERT_EQ(request.messages.size(), 1u);
  EXPECT_FALSE(request.batch);
  EXPECT_EQ(request.messages[0].kind, MessageKind::kRequest);
  EXPECT_EQ(request.messages[0].id, 7);
  EXPECT_EQ(request.messages[0].method, "tools/list");
  EXPECT_TRUE(request.messages[0].params.is_object());

  ParsedBody notification = ParseBody(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(notification.messages.at(0).kind, MessageKind::kNotification);
  EXPECT_TRUE(notification.messages[0].id.is_null());

  ParsedBody response = ParseBody(R"({"jsonrpc":"2.0","id":"s1","result":{}})");
  EXPECT_EQ(response.messages.at(0).kind, MessageKind::kResponse);
}

TEST(ParseBody, TruncatedJsonIsAParseErrorSayingWhere) {
  for (const char* body : {R"({"jsonrpc":"2.0","id":1,"method":"tools/li)", "{", R"({"jsonrpc":"2.0",)", "[1,"}) {
    ParsedBody parsed = ParseBody(body);
    ASSERT_TRUE(parsed.error) << body;
    EXPECT_EQ(parsed.error->code, kParseError) << body;
    EXPECT_THAT(parsed.error->message, HasSubstr("line 1, column")) << body;
    EXPECT_TRUE(parsed.messages.empty());
  }
}

TEST(ParseBody, EmptyBodiesAndInvalidUtf8AreParseErrors) {
  EXPECT_EQ(ParseBody("").error->code, kParseError);
  EXPECT_EQ(ParseBody("  \n").error->code, kParseError);
  EXPECT_EQ(ParseBody("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").error->code, kParseError);
}

TEST(ParseBody, AWrongJsonrpcMemberIsAnInvalidRequestThatKeepsTheId) {
  for (const char* body : {R"({"jsonrpc":"1.0","id":3,"method":"ping"})", R"({"jsonrpc":2.0,"id":3,"method":"ping"})",
                           R"({"id":3,"method":"ping"})"}) {
    RpcMessage m = ParseBody(body).messages.at(0);
    EXPECT_EQ(m.kind, MessageKind::kInvalid) << body;
    EXPECT_EQ(m.error.code, kInvalidRequest);
    EXPECT_THAT(m.error.message, HasSubstr("jsonrpc"));
    EXPECT_EQ(m.id, 3) << "the error answer names the request";
  }
}

TEST(ParseBody, IdsAreStringsOrIntegersOnly) {
  EXPECT_EQ(ParseBody(R"({"jsonrpc":"2.0","id":"a-1","method":"ping"})").messages[0].id, "a-1");
  EXPECT_EQ(ParseBody(R"({"jsonrpc":"2.0","id":-5,"method":"ping"})").messages[0].id, -5);
  EXPECT_EQ(ParseBody(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"})").messages[0].kind,
            MessageKind::kRequest);
  for (const char* id : {"1.5", "true", "null", "{}", "[1]"}) {
    RpcMessage m = ParseBody(std::string(R"({"jsonrpc":"2.0","method":"ping","id":)") + id + "}").messages.at(0);
    EXPECT_EQ(m.kind, MessageKind::kInvalid) << id;
    EXPECT_THAT(m.error.message, HasSubstr("id: must be a string or an integer")) << id;
    EXPECT_TRUE(m.id.is_null()) << id;
  }
}

TEST(ParseBody, MethodAndParamsMustHaveTheirTypes) {
  EXPECT_THAT(ParseBody(R"({"jsonrpc":"2.0","id":1,"method":5})").messages[0].error.message, HasSubstr("method: must be"));
  EXPECT_THAT(ParseBody(R"({"jsonrpc":"2.0","id":1})").messages[0].error.message, HasSubstr("method: required"));
  EXPECT_THAT(ParseBody(R"({"jsonrpc":"2.0","id":1,"method":"x","params":"a"})").messages[0].error.message,
              HasSubstr("params: must be an object"));
}

TEST(ParseBody, TopLevelValuesOtherThanObjectsAndArraysAreInvalidRequests) {
  for (const char* body : {"42", "\"hi\"", "null", "true"}) {
    ParsedBody parsed = ParseBody(body);
    ASSERT_TRUE(parsed.error) << body;
    EXPECT_EQ(parsed.error->code, kInvalidRequest) << body;
  }
}

TEST(ParseBody, BatchesAreClassifiedOneByOneAndBounded) {
  ParsedBody batch = ParseBody(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}])");
  ASSERT_FALSE(batch.error);
  EXPECT_TRUE(batch.batch);
  ASSERT_EQ(batch.messages.size(), 3u);
  EXPECT_EQ(batch.messages[0].kind, MessageKind::kRequest);
  EXPECT_EQ(batch.messages[1].kind, MessageKind::kInvalid);
  EXPECT_EQ(batch.messages[2].kind, MessageKind::kNotification);

  EXPECT_THAT(ParseBody("[]").error->message, HasSubstr("empty batch"));

  std::string huge = "[";
  for (int i = 0; i < 10'000; ++i) huge += std::string(i ? "," : "") + R"({"jsonrpc":"2.0","id":1,"method":"ping"})";
  huge += "]";
  ParsedBody refused = ParseBody(huge, ParseLimits{32, 64});
  ASSERT_TRUE(refused.error);
  EXPECT_EQ(refused.error->code, kInvalidRequest);
  EXPECT_THAT(refused.error->message, HasSubstr("at most 32 messages; this one has 10000"));
  EXPECT_TRUE(refused.messages.empty());
}

TEST(ParseBody, DeepNestingIsRefusedBeforeParsing) {
  std::string deep(100'000, '[');
  ParsedBody parsed = ParseBody(deep);
  ASSERT_TRUE(parsed.error);
  EXPECT_EQ(parsed.error->code, kInvalidRequest);
  EXPECT_THAT(parsed.error->message, HasSubstr("nested deeper than 64"));
  // Brackets inside strings are text, not nesting.
  std::string quoted = R"({"jsonrpc":"2.0","id":1,"method":"x","params":{"q":")" + std::string(200, '[') + R"("}})";
  EXPECT_FALSE(ParseBody(quoted).error);
}

TEST(Responses, HaveTheJsonRpcShape) {
  EXPECT_EQ(ResultResponse(4, {{"ok", true}}), json::parse(R"({"jsonrpc":"2.0","id":4,"result":{"ok":true}})"));
  EXPECT_EQ(ErrorResponse(nullptr, {kMethodNotFound, "no", nullptr}),
            json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}})"));
  EXPECT_EQ(ErrorResponse("a", {kUnsupportedProtocolVersion, "v", {{"supported", {"x"}}}})["error"]["data"],
            json::parse(R"({"supported":["x"]})"));
  EXPECT_EQ(Dump(json("\xff")), "\"\xEF\xBF\xBD\"");
}

}  // namespace
}  // namespace cilia::api::mcp
