#include "gateway/token_count.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>

#include "llm/upstream.h"
#include "testing/local_server.h"
#include "text/tokens.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(EstimateRequestTokens, CountsSystemTextToolUseToolResultThinkingAndToolsButNotImages) {
  const std::string tool_input = R"({"city":"Paris"})";
  const json tool = json::parse(R"({"name":"get_weather","input_schema":{"type":"object"}})");
  const json body = {
      {"model", "companion"},
      {"system", json::array({{{"type", "text"}, {"text", "Be brief."}}})},
      {"tools", json::array({tool})},
      {"messages",
       json::array({
           {{"role", "user"}, {"content", "我的猫叫年糕"}},
           {{"role", "assistant"},
            {"content", json::array({{{"type", "thinking"}, {"thinking", "the weather"}, {"signature", "s"}},
                                     {{"type", "tool_use"}, {"id", "t1"}, {"name", "get_weather"}, {"input", json::parse(tool_input)}}})}},
           {{"role", "user"},
            {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "t1"},
                                      {"content", json::array({{{"type", "text"}, {"text", "sunny, 21 degrees"}}})}},
                                     {{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", std::string(4000, 'A')}}}}})}},
       })},
  };
  using text::EstimateTokens;
  const int expected = EstimateTokens("Be brief.") + EstimateTokens("我的猫叫年糕") + EstimateTokens("the weather") +
                       EstimateTokens("get_weather") + EstimateTokens(tool_input) + EstimateTokens("sunny, 21 degrees") +
                       EstimateTokens(tool.dump());
  EXPECT_EQ(EstimateRequestTokens(body), expected);
  EXPECT_EQ(EstimateTokens("我的猫叫年糕"), 6) << "one a Han letter, as text/tokens.h says";
}

TEST(EstimateRequestTokens, AStringSystemAndAStringToolResultCountAndAnEmptyRequestIsZero) {
  const json body = json::parse(R"({"model":"m","system":"You are kind.","messages":[
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"forty-two"}]}]})");
  EXPECT_EQ(EstimateRequestTokens(body), text::EstimateTokens("You are kind.") + text::EstimateTokens("forty-two"));
  EXPECT_EQ(EstimateRequestTokens(json::parse(R"({"model":"m","messages":[]})")), 0);
}

// A config with an OpenAI provider (the chat model) and an Anthropic one at `url`.
Config CountConfig(const std::string& anthropic_url) {
  Config config;
  ProviderConfig oai;
  oai.name = "oai";
  oai.kind = ProviderKind::kOpenAI;
  oai.base_url = "http://127.0.0.1:9";  // never called
  ProviderConfig anth;
  anth.name = "anth";
  anth.kind = ProviderKind::kAnthropic;
  anth.base_url = anthropic_url;
  anth.api_key = "up-key";
  anth.connect_timeout_ms = 2000;
  anth.first_byte_timeout_ms = 5000;
  anth.idle_timeout_ms = 5000;
  config.providers = {oai, anth};
  config.models.public_name = "companion";
  config.models.chat = "oai/gpt-x";
  config.models.aliases["claude-haiku"] = "anth/claude-small";
  return config;
}

const json kBody = json::parse(R"({"model":"claude-haiku","system":"Hi there.","messages":[{"role":"user","content":"hello world"}]})");

TEST(CountTokens, BadBodiesNameTheField) {
  const Config config = CountConfig("http://127.0.0.1:9");
  auto no_model = CountTokens(config, json::parse(R"({"messages":[]})"), {});
  ASSERT_FALSE(no_model.ok());
  EXPECT_EQ(no_model.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(no_model.status().message(), HasSubstr("model"));
  auto no_messages = CountTokens(config, json::parse(R"({"model":"companion"})"), {});
  ASSERT_FALSE(no_messages.ok());
  EXPECT_THAT(no_messages.status().message(), HasSubstr("messages"));
  auto bad_message = CountTokens(config, json::parse(R"({"model":"companion","messages":[{"role":"user"},7]})"), {});
  ASSERT_FALSE(bad_message.ok());
  EXPECT_THAT(bad_message.status().message(), HasSubstr("messages[1]"));
  auto unknown = CountTokens(config, json::parse(R"({"model":"nope","messages":[]})"), {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), Code::kInvalidArgument);
  EXPECT_FALSE(llm::IsUpstreamFailure(unknown.status()));
}

TEST(CountTokens, AnOpenAIRouteIsEstimated) {
  json body = kBody;
  body["model"] = "companion";
  auto count = CountTokens(CountConfig("http://127.0.0.1:9"), body, {});
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_FALSE(count->by_upstream);
  EXPECT_EQ(count->body, json({{"input_tokens", EstimateRequestTokens(body)}}));
  EXPECT_GT(count->body["input_tokens"].get<int>(), 0);
}

// An Anthropic upstream whose count_tokens answers `status` (200: a count of 77).
class CountingUpstream {
 public:
  explicit CountingUpstream(int status)
      : server_([this, status](httplib::Server& s) {
          s.Post("/v1/messages/count_tokens", [this, status](const httplib::Request& req, httplib::Response& res) {
            ++calls;
            model = json::parse(req.body).value("model", "");
            beta = req.get_header_value("anthropic-beta");
            res.status = status;
            res.set_content(status == 200 ? R"({"input_tokens":77})"
                                          : R"({"type":"error","error":{"type":"some_error","message":"upstream says no"}})",
                            "application/json");
          });
        }) {}
  std::string url() const { return server_.Url("/v1"); }
  std::atomic<int> calls{0};
  std::string model, beta;

 private:
  testing::LocalServer server_;
};

TEST(CountTokens, AnAnthropicRouteAsksItsUpstreamWithTheRoutedModelAndTheClientsBeta) {
  CountingUpstream upstream(200);
  auto count = CountTokens(CountConfig(upstream.url()), kBody, {{"anthropic-beta", "b1"}});
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_TRUE(count->by_upstream);
  EXPECT_EQ(count->body, json({{"input_tokens", 77}}));
  EXPECT_EQ(upstream.model, "claude-small");
  EXPECT_EQ(upstream.beta, "b1");
}

TEST(CountTokens, AnUpstreamWithoutTheEndpointIsEstimated) {
  for (int status : {404, 405}) {
    CountingUpstream upstream(status);
    auto count = CountTokens(CountConfig(upstream.url()), kBody, {});
    ASSERT_TRUE(count.ok()) << status << ": " << count.status().ToString();
    EXPECT_FALSE(count->by_upstream);
    EXPECT_EQ(count->body, json({{"input_tokens", EstimateRequestTokens(kBody)}}));
    EXPECT_EQ(upstream.calls.load(), 1);
  }
}

TEST(CountTokens, OtherUpstreamErrorsArePassedBack) {
  for (int status : {401, 400}) {
    CountingUpstream upstream(status);
    auto count = CountTokens(CountConfig(upstream.url()), kBody, {});
    ASSERT_FALSE(count.ok()) << status;
    ASSERT_TRUE(llm::IsUpstreamFailure(count.status()));
    const llm::UpstreamError error = llm::UpstreamErrorOf(count.status());
    EXPECT_EQ(error.http_status, status);
    EXPECT_EQ(error.type, "some_error");
    EXPECT_EQ(error.message, "upstream says no");
  }
}

}  // namespace
}  // namespace cilia::gateway
