#include "llm/upstream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "testing/local_server.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;
using cilia::testing::LocalServer;
using ::testing::HasSubstr;

// What the server saw of one request.
struct Seen {
  std::string path;
  httplib::Headers headers;
  json body;
};

class UpstreamClientTest : public ::testing::Test {
 protected:
  UpstreamClientTest()
      : server_([this](httplib::Server& s) {
          s.Post(R"(/v1/.*)", [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
        }) {}

  ProviderConfig Provider(ProviderKind kind) const {
    ProviderConfig p;
    p.name = "fake";
    p.kind = kind;
    p.base_url = server_.Url("/v1/");
    p.api_key = "sk-secret-123";
    p.connect_timeout_ms = 2000;
    p.first_byte_timeout_ms = 5000;
    p.idle_timeout_ms = 5000;
    return p;
  }

  // The answer for the n-th request (from 0); the default answers 200 JSON.
  std::function<void(int n, httplib::Response&)> answer_ = [](int, httplib::Response& res) {
    res.set_content(R"({"ok":true})", "application/json");
  };

  std::vector<Seen> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    int n = 0;
    {
      std::lock_guard lock(mutex_);
      n = static_cast<int>(seen_.size());
      seen_.push_back({req.path, req.headers, json::parse(req.body, nullptr, false)});
    }
    answer_(n, res);
  }

  std::mutex mutex_;
  std::vector<Seen> seen_;

 protected:
  LocalServer server_;
};

std::string HeaderOf(const Seen& seen, const std::string& name) {
  auto it = seen.headers.find(name);
  return it == seen.headers.end() ? "" : it->second;
}

TEST_F(UpstreamClientTest, OpenAIStreamsGoToChatCompletionsWithABearerKeyAndAskForUsage) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  UpstreamClient client(provider);
  answer_ = [](int, httplib::Response& res) { res.set_content("data: {}\n\ndata: [DONE]\n\n", "text/event-stream"); };
  std::string received;
  auto result = client.Stream(json::parse(R"({"model":"m","messages":[],"stream_options":{"include_obfuscation":false}})"),
                              [&received](std::string_view chunk) {
                                received += chunk;
                                return true;
                              });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_FALSE(result->cancelled);
  EXPECT_EQ(received, "data: {}\n\ndata: [DONE]\n\n");
  ASSERT_EQ(seen().size(), 1u);
  const Seen request = seen()[0];
  EXPECT_EQ(request.path, "/v1/chat/completions");
  EXPECT_EQ(HeaderOf(request, "Authorization"), "Bearer sk-secret-123");
  EXPECT_EQ(request.body["stream"], true);
  EXPECT_EQ(request.body["stream_options"], json::parse(R"({"include_obfuscation":false,"include_usage":true})"));
}

TEST_F(UpstreamClientTest, AWholeOpenAIAnswerIsParsedAndSendsNoStreamOptions) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  auto answer = UpstreamClient(provider).Complete(json::parse(R"({"messages":[],"stream":true,"stream_options":{"include_usage":true}})"));
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, json::parse(R"({"ok":true})"));
  EXPECT_EQ(seen()[0].body["stream"], false);
  EXPECT_FALSE(seen()[0].body.contains("stream_options"));
}

TEST_F(UpstreamClientTest, AnthropicCallsGoToMessagesWithItsHeadersAndTheCallersOnesWin) {
  const ProviderConfig provider = Provider(ProviderKind::kAnthropic);
  auto answer = UpstreamClient(provider).Complete(
      json::parse(R"({"messages":[]})"), {{"anthropic-beta", "interleaved-thinking-2025-05-14"}, {"Anthropic-Version", "2099-01-01"}});
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  const Seen request = seen()[0];
  EXPECT_EQ(request.path, "/v1/messages");
  EXPECT_EQ(HeaderOf(request, "x-api-key"), "sk-secret-123");
  EXPECT_EQ(HeaderOf(request, "anthropic-version"), "2099-01-01");
  EXPECT_EQ(request.headers.count("anthropic-version"), 1u);
  EXPECT_EQ(HeaderOf(request, "anthropic-beta"), "interleaved-thinking-2025-05-14");
  EXPECT_EQ(HeaderOf(request, "Authorization"), "");
  EXPECT_EQ(request.body["stream"], false);
}

TEST_F(UpstreamClientTest, CountTokensGoesToMessagesCountTokensWithTheHeadersOfAMessagesCall) {
  const ProviderConfig provider = Provider(ProviderKind::kAnthropic);
  answer_ = [](int, httplib::Response& res) { res.set_content(R"({"input_tokens":42})", "application/json"); };
  const json body = json::parse(R"({"model":"claude-x","messages":[{"role":"user","content":"hi"}]})");
  auto count = UpstreamClient(provider).CountTokens(body, {{"anthropic-beta", "token-counting-2024-11-01"}});
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, json::parse(R"({"input_tokens":42})"));
  ASSERT_EQ(seen().size(), 1u);
  const Seen request = seen()[0];
  EXPECT_EQ(request.path, "/v1/messages/count_tokens");
  EXPECT_EQ(HeaderOf(request, "x-api-key"), "sk-secret-123");
  EXPECT_EQ(HeaderOf(request, "anthropic-version"), "2023-06-01");
  EXPECT_EQ(HeaderOf(request, "anthropic-beta"), "token-counting-2024-11-01");
  EXPECT_EQ(HeaderOf(request, "Authorization"), "");
  EXPECT_EQ(request.body, body) << "sent as given: no stream field";
}

TEST_F(UpstreamClientTest, AnAnthropicBaseUrlWithoutV1ReachesV1MessagesAndCountTokens) {
  ProviderConfig provider = Provider(ProviderKind::kAnthropic);
  provider.base_url.erase(provider.base_url.size() - std::string("/v1/").size());  // as https://api.anthropic.com
  answer_ = [](int, httplib::Response& res) { res.set_content(R"({"input_tokens":7})", "application/json"); };
  ASSERT_TRUE(UpstreamClient(provider).Complete(json::parse(R"({"messages":[]})")).ok());
  ASSERT_TRUE(UpstreamClient(provider).CountTokens(json::parse(R"({"messages":[]})")).ok());
  ASSERT_EQ(seen().size(), 2u);
  EXPECT_EQ(seen()[0].path, "/v1/messages");
  EXPECT_EQ(seen()[1].path, "/v1/messages/count_tokens");
}

TEST_F(UpstreamClientTest, CountTokensKeepsTheUpstreamsErrorsAndRefusesAnswersWithoutACount) {
  const ProviderConfig provider = Provider(ProviderKind::kAnthropic);
  answer_ = [](int n, httplib::Response& res) {
    if (n == 0) {
      res.status = 404;
      res.set_content(R"({"type":"error","error":{"type":"not_found_error","message":"Not Found"}})", "application/json");
    } else {
      res.set_content(R"({"tokens":3})", "application/json");
    }
  };
  const json body = json::parse(R"({"model":"m","messages":[]})");
  auto missing = UpstreamClient(provider).CountTokens(body);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(UpstreamErrorOf(missing.status()).http_status, 404);
  EXPECT_EQ(UpstreamErrorOf(missing.status()).type, "not_found_error");
  EXPECT_EQ(seen().size(), 1u) << "a 404 is not retried";
  auto odd = UpstreamClient(provider).CountTokens(body);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), Code::kUnavailable);
  EXPECT_THAT(odd.status().message(), HasSubstr("input_tokens"));
}

TEST_F(UpstreamClientTest, CountTokensIsRefusedForAnOpenAIProviderWithoutACall) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  auto count = UpstreamClient(provider).CountTokens(json::parse(R"({"model":"m","messages":[]})"));
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(seen().empty());
}

TEST_F(UpstreamClientTest, ServerErrorsAreRetriedBeforeAnythingWasDelivered) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  answer_ = [](int n, httplib::Response& res) {
    if (n < 2) {
      res.status = n == 0 ? 503 : 429;
      res.set_header("Retry-After", "0");
      res.set_content(R"({"error":{"message":"busy","type":"server_error"}})", "application/json");
      return;
    }
    res.set_content("data: [DONE]\n\n", "text/event-stream");
  };
  std::string received;
  auto result = UpstreamClient(provider).Stream(json::object(), [&received](std::string_view chunk) {
    received += chunk;
    return true;
  });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(received, "data: [DONE]\n\n");  // no byte of the error replies
  EXPECT_EQ(seen().size(), 3u);
}

TEST_F(UpstreamClientTest, AnErrorThatOutlastsTheRetriesKeepsTheUpstreamsStatusTypeAndMessage) {
  const ProviderConfig provider = Provider(ProviderKind::kAnthropic);
  answer_ = [](int, httplib::Response& res) {
    res.status = 529;
    res.set_content(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded for sk-secret-123"}})",
                    "application/json");
  };
  auto answer = UpstreamClient(provider).Complete(json::object());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(seen().size(), static_cast<size_t>(1 + kUpstreamRetries));
  const UpstreamError error = UpstreamErrorOf(answer.status());
  EXPECT_EQ(error.http_status, 529);
  EXPECT_EQ(error.type, "overloaded_error");
  EXPECT_EQ(error.message, "Overloaded for ***");
  EXPECT_EQ(AnthropicErrorBody(error), json::parse(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded for ***"}})"));
  EXPECT_EQ(OpenAIErrorBody(error), json::parse(R"({"error":{"message":"Overloaded for ***","type":"overloaded_error","code":null}})"));
}

TEST_F(UpstreamClientTest, ClientErrorsAndLongRetryAftersAreNotRetried) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  answer_ = [](int, httplib::Response& res) {
    res.status = 400;
    res.set_content(R"({"error":{"message":"bad 'messages'","type":"invalid_request_error","code":"x"}})", "application/json");
  };
  auto answer = UpstreamClient(provider).Complete(json::object());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(seen().size(), 1u);
  const UpstreamError error = UpstreamErrorOf(answer.status());
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.type, "invalid_request_error");
  EXPECT_EQ(error.message, "bad 'messages'");

  answer_ = [](int, httplib::Response& res) {
    res.status = 429;
    res.set_header("Retry-After", "60");
    res.set_content("slow down", "text/plain");
  };
  answer = UpstreamClient(provider).Complete(json::object());
  EXPECT_EQ(seen().size(), 2u);
  EXPECT_EQ(UpstreamErrorOf(answer.status()).http_status, 429);
  EXPECT_EQ(UpstreamErrorOf(answer.status()).type, "rate_limit_error");
  EXPECT_EQ(UpstreamErrorOf(answer.status()).message, "slow down");
}

TEST_F(UpstreamClientTest, AStreamThatBreaksAfterItsFirstBytesIsNotRetried) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  answer_ = [](int, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [](size_t offset, httplib::DataSink& sink) {
      if (offset > 0) return false;  // the connection breaks
      const std::string first = "data: {\"choices\":[]}\n\n";
      sink.write(first.data(), first.size());
      return true;
    });
  };
  std::string received;
  auto result = UpstreamClient(provider).Stream(json::object(), [&received](std::string_view chunk) {
    received += chunk;
    return true;
  });
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(received, "data: {\"choices\":[]}\n\n");
  EXPECT_EQ(seen().size(), 1u);
}

TEST_F(UpstreamClientTest, ACallerThatStopsReadingCancelsTheTransfer) {
  const ProviderConfig provider = Provider(ProviderKind::kOpenAI);
  std::atomic<int> chunks_sent = 0;
  answer_ = [&chunks_sent](int, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [&chunks_sent](size_t, httplib::DataSink& sink) {
      if (++chunks_sent > 1000) return false;
      const std::string chunk = "data: {}\n\n";
      return sink.write(chunk.data(), chunk.size());
    });
  };
  auto result = UpstreamClient(provider).Stream(json::object(), [](std::string_view) { return false; });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->cancelled);
  EXPECT_EQ(seen().size(), 1u);
}

TEST(UpstreamClientUnreachableTest, AnUpstreamThatCannotBeReachedIsA502) {
  ProviderConfig provider;
  provider.name = "gone";
  provider.base_url = "http://127.0.0.1:1/v1";  // nothing listens on port 1
  auto answer = UpstreamClient(provider).Complete(json::object());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), Code::kUnavailable);
  EXPECT_THAT(answer.status().message(), HasSubstr("upstream gone"));
  EXPECT_EQ(UpstreamErrorOf(answer.status()).http_status, 502);
}

TEST(UpstreamErrorOfTest, MapsStatusesThatDidNotComeFromAnHttpReply) {
  EXPECT_EQ(UpstreamErrorOf(Status::Timeout("no first byte in 120 s")).http_status, 504);
  EXPECT_EQ(UpstreamErrorOf(Status::Timeout("no first byte in 120 s")).message, "no first byte in 120 s");
  EXPECT_EQ(UpstreamErrorOf(Status::InvalidArgument("bad")).http_status, 400);
  EXPECT_EQ(UpstreamErrorOf(Status::Internal("HTTP nonsense")).http_status, 500);
}

TEST(BuildRequestTest, AnAnthropicBaseGetsV1UnlessItEndsInItAndOtherKindsAreTakenAsGiven) {
  ProviderConfig provider;
  provider.kind = ProviderKind::kAnthropic;
  for (const auto& [base, url] : std::vector<std::pair<std::string, std::string>>{
           {"https://api.anthropic.com", "https://api.anthropic.com/v1/messages"},
           {"https://api.anthropic.com/", "https://api.anthropic.com/v1/messages"},
           {"https://api.anthropic.com/v1", "https://api.anthropic.com/v1/messages"},
           {"https://api.deepseek.com/anthropic", "https://api.deepseek.com/anthropic/v1/messages"},
           {"https://openrouter.ai/api", "https://openrouter.ai/api/v1/messages"},
           {"http://127.0.0.1:9000/v1/", "http://127.0.0.1:9000/v1/messages"}}) {
    provider.base_url = base;
    EXPECT_EQ(UpstreamClient(provider).BuildRequest(json::object(), false).url, url) << base;
  }
  provider.kind = ProviderKind::kOpenAI;
  provider.base_url = "https://api.deepseek.com";  // OpenAI-compatible servers differ: no /v1 guessed
  EXPECT_EQ(UpstreamClient(provider).BuildRequest(json::object(), false).url, "https://api.deepseek.com/chat/completions");
}

TEST(BuildRequestTest, TimeoutsComeFromTheProviderAndTrailingSlashesAreDropped) {
  ProviderConfig provider;
  provider.base_url = "https://api.example.invalid/v1///";
  provider.kind = ProviderKind::kAnthropic;
  provider.connect_timeout_ms = 1;
  provider.first_byte_timeout_ms = 2;
  provider.idle_timeout_ms = 3;
  const net::HttpRequest request = UpstreamClient(provider).BuildRequest(json::parse(R"({"system":"日本語"})"), true);
  EXPECT_EQ(request.url, "https://api.example.invalid/v1/messages");
  EXPECT_EQ(request.connect_timeout_ms, 1);
  EXPECT_EQ(request.first_byte_timeout_ms, 2);
  EXPECT_EQ(request.idle_timeout_ms, 3);
  EXPECT_EQ(json::parse(request.body), json::parse(R"({"system":"日本語","stream":true})"));
}

}  // namespace
}  // namespace cilia::llm
