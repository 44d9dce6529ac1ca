#include "api/http_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

httplib::Request WithBody(std::string body) {
  httplib::Request req;
  req.body = std::move(body);
  return req;
}

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

TEST(ReplyErrorTest, OpenAIShape) {
  httplib::Response res;
  ReplyError(res, Status::Conflict("message id \"D1:3\" was stored with other content"));
  EXPECT_EQ(res.status, 409);
  EXPECT_THAT(res.get_header_value("Content-Type"), HasSubstr("application/json"));
  EXPECT_EQ(json::parse(res.body), json({{"error",
                                          {{"message", "message id \"D1:3\" was stored with other content"},
                                           {"type", "conflict_error"},
                                           {"code", "conflict"}}}}));
}

TEST(ReplyErrorTest, AnthropicShape) {
  httplib::Response res;
  ReplyError(res, Status::Busy("the data dir is busy"), ErrorStyle::kAnthropic);
  EXPECT_EQ(res.status, 503);
  EXPECT_EQ(json::parse(res.body),
            json({{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "the data dir is busy"}}}}));
}

TEST(ReplyErrorTest, JsonRpcShapeAndA401SaysHowToAuthenticate) {
  httplib::Response res;
  ReplyError(res, Status::Unauthenticated("a key is required"), ErrorStyle::kJsonRpc);
  EXPECT_EQ(res.status, 401);
  EXPECT_EQ(res.get_header_value("WWW-Authenticate"), "Bearer realm=\"cilia\"");
  EXPECT_EQ(json::parse(res.body),
            json({{"jsonrpc", "2.0"}, {"id", nullptr}, {"error", {{"code", -32001}, {"message", "a key is required"}}}}));
  httplib::Response large;
  ReplyError(large, Status::TooLarge("too big"), ErrorStyle::kJsonRpc);
  EXPECT_EQ(large.status, 413);
  EXPECT_EQ(json::parse(large.body)["error"]["code"], -32600);
  EXPECT_FALSE(large.has_header("WWW-Authenticate"));
}

TEST(ReplyErrorTest, ErrorTypesFollowTheCode) {
  auto openai_type = [](Status status) {
    httplib::Response res;
    ReplyError(res, status);
    return json::parse(res.body)["error"]["type"].get<std::string>();
  };
  EXPECT_EQ(openai_type(Status::InvalidArgument("x")), "invalid_request_error");
  EXPECT_EQ(openai_type(Status::Unauthenticated("x")), "authentication_error");
  EXPECT_EQ(openai_type(Status::PermissionDenied("x")), "permission_error");
  EXPECT_EQ(openai_type(Status::NotFound("x")), "not_found_error");
  EXPECT_EQ(openai_type(Status::Unavailable("x")), "server_error");
  auto anthropic_type = [](Status status) {
    httplib::Response res;
    ReplyError(res, status, ErrorStyle::kAnthropic);
    return json::parse(res.body)["error"]["type"].get<std::string>();
  };
  EXPECT_EQ(anthropic_type(Status::TooLarge("x")), "request_too_large");
  EXPECT_EQ(anthropic_type(Status::Timeout("x")), "api_error");
  EXPECT_EQ(anthropic_type(Status::NotFound("x")), "not_found_error");
}

TEST(ReplyJsonTest, InvalidUtf8IsReplacedNotThrown) {
  httplib::Response res;
  ReplyJson(res, 200, {{"text", std::string("ok \xff end")}});
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(json::parse(res.body)["text"], "ok \xEF\xBF\xBD end");
}

TEST(ReplyJsonTest, KeepsCjkAndEmojiAsUtf8) {
  httplib::Response res;
  ReplyJson(res, 201, {{"text", "山顶的风很大 🌄"}});
  EXPECT_EQ(res.status, 201);
  EXPECT_EQ(res.body, "{\"text\":\"山顶的风很大 🌄\"}");
}

TEST(ParseJsonBodyTest, ParsesJson) {
  auto body = ParseJsonBody(WithBody(R"({"query": "湖", "limit": 3, "emoji": "🌸"})"));
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ((*body)["query"], "湖");
  EXPECT_EQ((*body)["limit"], 3);
  EXPECT_TRUE(ParseJsonBody(WithBody("[1, 2]"))->is_array());
}

TEST(ParseJsonBodyTest, AnEmptyBodyIsInvalid) {
  auto body = ParseJsonBody(WithBody(""));
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("empty"));
}

TEST(ParseJsonBodyTest, InvalidJsonSaysWhere) {
  auto body = ParseJsonBody(WithBody(R"({"query": "x",})"));
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("not valid JSON (at byte 14)"));
  EXPECT_THAT(body.status().message(), ::testing::Not(HasSubstr("[json.exception")));
  EXPECT_FALSE(ParseJsonBody(WithBody("{\"a\": 1} trailing")).ok());
}

TEST(ParseJsonBodyTest, InvalidUtf8SaysWhere) {
  auto body = ParseJsonBody(WithBody("{\"query\": \"caf\xc3\"}"));
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(body.status().message(), HasSubstr("not valid UTF-8 (at byte 14)"));
}

TEST(ParseJsonBodyTest, AHugeBodyParses) {
  std::string text(1 << 20, 'a');
  auto body = ParseJsonBody(WithBody(json{{"content", text}}.dump()));
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["content"].get<std::string>().size(), text.size());
}

}  // namespace
}  // namespace cilia::api
