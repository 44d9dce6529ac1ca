#include "api/http_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

TEST(HttpStatusForTest, EachCodeHasItsStatus) {
  EXPECT_EQ(HttpStatusFor(Code::kOk), 200);
  EXPECT_EQ(HttpStatusFor(Code::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFor(Code::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusFor(Code::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusFor(Code::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(Code::kConflict), 409);
  EXPECT_EQ(HttpStatusFor(Code::kTooLarge), 413);
  EXPECT_EQ(HttpStatusFor(Code::kBusy), 503);
  EXPECT_EQ(HttpStatusFor(Code::kDiskFull), 507) << "Insufficient Storage: nothing was kept";
  EXPECT_EQ(HttpStatusFor(Code::kUnavailable), 502);
  EXPECT_EQ(HttpStatusFor(Code::kTimeout), 504);
  EXPECT_EQ(HttpStatusFor(Code::kIOError), 500);
  EXPECT_EQ(HttpStatusFor(Code::kInternal), 500);
}

TEST(CodeForHttpStatusTest, MapsBackTheStatusesTheServerAnswersItself) {
  EXPECT_EQ(CodeForHttpStatus(404), Code::kNotFound);
  EXPECT_EQ(CodeForHttpStatus(413), Code::kTooLarge);
  EXPECT_EQ(CodeForHttpStatus(400), Code::kInvalidArgument);
  EXPECT_EQ(CodeForHttpStatus(414), Code::kInvalidArgument);
  EXPECT_EQ(CodeForHttpStatus(500), Code::kInternal);
  EXPECT_EQ(CodeForHttpStatus(503), Code::kBusy);
}

TEST(ErrorReplyTest, OpenAIShape) {
  Reply res = ErrorReply(Status::Conflict("message id \"D1:3\" was stored with other content"), ErrorStyle::kOpenAI);
  EXPECT_EQ(res.status, 409);
  EXPECT_EQ(res.content_type, "application/json");
  EXPECT_EQ(json::parse(res.body), json({{"error",
                                          {{"message", "message id \"D1:3\" was stored with other content"},
                                           {"type", "conflict_error"},
                                           {"code", "conflict"}}}}));
}

TEST(ErrorReplyTest, AnthropicShape) {
  Reply res = ErrorReply(Status::Busy("the data dir is busy"), ErrorStyle::kAnthropic);
  EXPECT_EQ(res.status, 503);
  EXPECT_EQ(json::parse(res.body),
            json({{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "the data dir is busy"}}}}));
}

TEST(ErrorReplyTest, JsonRpcShapeAndA401SaysHowToAuthenticate) {
  Reply res = ErrorReply(Status::Unauthenticated("a key is required"), ErrorStyle::kJsonRpc);
  EXPECT_EQ(res.status, 401);
  ASSERT_EQ(res.headers.count("WWW-Authenticate"), 1u);
  EXPECT_EQ(res.headers.find("WWW-Authenticate")->second, "Bearer realm=\"cilia\"");
  EXPECT_EQ(json::parse(res.body),
            json({{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32001}, {"message", "a key is required"}}}}));
  Reply large = ErrorReply(Status::TooLarge("too big"), ErrorStyle::kJsonRpc);
  EXPECT_EQ(large.status, 413);
  EXPECT_EQ(json::parse(large.body)["error"]["code"], -32600);
  EXPECT_EQ(large.headers.count("WWW-Authenticate"), 0u);
}

TEST(ErrorReplyTest, ErrorTypesFollowTheCode) {
  auto openai_type = [](Status status) {
    Reply res = ErrorReply(status, ErrorStyle::kOpenAI);
    return json::parse(res.body)["error"]["type"].get<std::string>();
  };
  EXPECT_EQ(openai_type(Status::InvalidArgument("x")), "invalid_request_error");
  EXPECT_EQ(openai_type(Status::Unauthenticated("x")), "authentication_error");
  EXPECT_EQ(openai_type(Status::PermissionDenied("x")), "permission_error");
  EXPECT_EQ(openai_type(Status::NotFound("x")), "not_found_error");
  EXPECT_EQ(openai_type(Status::Unavailable("x")), "server_error");
  auto anthropic_type = [](Status status) {
    Reply res = ErrorReply(status, ErrorStyle::kAnthropic);
    return json::parse(res.body)["error"]["type"].get<std::string>();
  };
  EXPECT_EQ(anthropic_type(Status::TooLarge("x")), "request_too_large");
  EXPECT_EQ(anthropic_type(Status::Timeout("x")), "api_error");
  EXPECT_EQ(anthropic_type(Status::NotFound("x")), "not_found_error");
}

TEST(PercentDecodeTest, DecodesEscapesAndKeepsTheRest) {
  EXPECT_EQ(PercentDecode("trip%2F2023"), "trip/2023");
  EXPECT_EQ(PercentDecode("%E5%B1%B1 a+b"), "山 a+b");
  EXPECT_EQ(PercentDecode("100%"), "100%");
  EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(PercentDecode("%2f%2F"), "//");
}

TEST(ParseJsonBodyTest, ParsesJson) {
  auto body = ParseJsonBody(R"({"query": "湖", "limit": 3, "emoji": "🌸"})");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ((*body)["query"], "湖");
  EXPECT_EQ((*body)["limit"], 3);
  EXPECT_TRUE(ParseJsonBody("[1, 2]")->is_array());
}

TEST(ParseJsonBodyTest, AnEmptyBodyIsInvalid) {
  auto body = ParseJsonBody("");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("empty"));
}

TEST(ParseJsonBodyTest, InvalidJsonSaysWhere) {
  auto body = ParseJsonBody(R"({"query": "x",})");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("not valid JSON: line 1, column 15"));
  EXPECT_THAT(body.status().message(), ::testing::Not(HasSubstr("[json.exception")));
  EXPECT_FALSE(ParseJsonBody("{\"a\": 1} trailing").ok());
}

TEST(ParseJsonBodyTest, InvalidUtf8SaysWhere) {
  auto body = ParseJsonBody("{\"query\": \"caf\xc3\"}");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("not valid UTF-8 (at byte 14)"));
}

TEST(ParseJsonBodyTest, DeepNestingAndHugeNumbersAreInvalidArguments) {
  auto deep = ParseJsonBody(std::string(58'000, '[') + std::string(58'000, ']'));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(deep.status().message(), HasSubstr("nested deeper than 128 levels"));
  auto huge = ParseJsonBody(R"({"limit": 1e999})");
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), Code::kInvalidArgument);
  std::string many = "[0";
  for (int i = 0; i < 1'000'001; ++i) many += ",0";
  auto crowded = ParseJsonBody(many + "]");
  ASSERT_FALSE(crowded.ok());
  EXPECT_THAT(crowded.status().message(), HasSubstr("more than 1000000 values"));
}

TEST(ParseJsonBodyTest, AHugeBodyParses) {
  std::string text(1 << 20, 'a');
  auto body = ParseJsonBody(json{{"content", text}}.dump());
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["content"].get<std::string>().size(), text.size());
}

}  // namespace
}  // namespace cilia::api
