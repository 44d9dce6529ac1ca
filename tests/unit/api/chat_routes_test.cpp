#include "api/chat_routes.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <thread>

#include "testing/local_server.h"
#include "testing/temp_dir.h"
#include "core/clock.h"
#include "core/executor.h"
#include "memory/archive/conversation_reads.h"
#include "memory/registry.h"
#include "testing/failing_reads.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// An Anthropic upstream: a stream that answers after `delay_ms` of silence,
// a whole message when not asked to stream, or 529.
class SlowUpstream {
 public:
  SlowUpstream()
      : server_([this](httplib::Server& s) {
          s.Post("/v1/messages", [this](const httplib::Request& req, httplib::Response& res) {
            const json body = json::parse(req.body);
            if (body.dump().find("OVERLOADED") != std::string::npos) {
              res.status = 529;
              res.set_content(R"({"type":"error","error":{"type":"overloaded_error","message":"try later"}})", "application/json");
              return;
            }
            if (!body.value("stream", false)) {
              res.set_content(json({{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude"},
                                    {"content", json::array({{{"type", "text"}, {"text", "hello"}}})},
                                    {"stop_reason", "end_turn"},
                                    {"usage", {{"input_tokens", 10}, {"output_tokens", 1}}}})
                                  .dump(),
                              "application/json");
              return;
            }
            res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink& sink) {
              auto event = [&](const json& e) {
                const std::string frame = "event: " + e["type"].get<std::string>() + "\ndata: " + e.dump() + "\n\n";
                sink.write(frame.data(), frame.size());
              };
              event({{"type", "message_start"},
                     {"message", {{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude"},
                                  {"content", json::array()}, {"usage", {{"input_tokens", 10}, {"output_tokens", 1}}}}}});
              std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms.load()));
              event({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}});
              event({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", "late hello"}}}});
              event({{"type", "content_block_stop"}, {"index", 0}});
              event({{"type", "message_delta"}, {"delta", {{"stop_reason", "end_turn"}}}, {"usage", {{"output_tokens", 3}}}});
              event({{"type", "message_stop"}});
              sink.done();
              return true;
            });
          });
        }) {}

  std::string base_url() const { return server_.Url("/v1"); }
  std::atomic<int> delay_ms{0};

 private:
  testing::LocalServer server_;
};

class ChatRoutesTest : public ::testing::Test {
 protected:
  ChatRoutesTest() : clock_(1'780'000'000'000) {
    config_.server.data_dir = dir_.path();
    config_.server.time_zone = "UTC";
    config_.gateway.keepalive_s = 1;
    ProviderConfig provider;
    provider.name = "anth";
    provider.kind = ProviderKind::kAnthropic;
    provider.base_url = upstream_.base_url();
    provider.api_key = "upstream-secret";
    config_.providers.push_back(provider);
    config_.models.chat = "anth/claude";
    config_.models.aliases["claude-haiku"] = "anth/claude-small";
    config_.client_api_key = "client-key";
    registry_ = std::move(memory::Registry::Open(config_, clock_)).value();
    service_ = std::make_unique<gateway::ChatService>(registry_->config(), *registry_, executor_);
    ServerOptions options;
    options.threads = 8;
    server_ = std::make_unique<ApiServer>(options, Authenticator(nullptr, "client-key"));
    RegisterChatRoutes(*server_, *service_, registry_->config());
    const int port = server_->Start({"127.0.0.1", 0}).value();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port);
    client_->set_read_timeout(10, 0);
  }
  ~ChatRoutesTest() override { server_->Shutdown(5s); }

  httplib::Headers Key() const { return {{"Authorization", "Bearer client-key"}}; }

  testing::TempDir dir_;
  FakeClock clock_;
  SlowUpstream upstream_;
  Config config_;
  Executor executor_{4, 16};
  std::unique_ptr<memory::Registry> registry_;
  std::unique_ptr<gateway::ChatService> service_;
  std::unique_ptr<ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ChatRoutesTest, ModelsComeInTheShapeOfTheAskingSdk) {
  auto openai = client_->Get("/v1/models", Key());
  ASSERT_TRUE(openai);
  const json list = json::parse(openai->body);
  EXPECT_EQ(list["object"], "list");
  EXPECT_EQ(list["data"][0]["id"], "companion");
  httplib::Headers anthropic_headers = Key();
  anthropic_headers.emplace("anthropic-version", "2023-06-01");
  auto anthropic = client_->Get("/v1/models", anthropic_headers);
  ASSERT_TRUE(anthropic);
  const json page = json::parse(anthropic->body);
  EXPECT_EQ(page["data"][0]["type"], "model");
  EXPECT_EQ(page["first_id"], "companion");
  EXPECT_EQ(page["has_more"], false);
}

TEST_F(ChatRoutesTest, BadBodiesAreShapedLikeTheApiTheyAnswer) {
  auto messages = client_->Post("/v1/messages", Key(), "{not json", "application/json");
  ASSERT_TRUE(messages);
  EXPECT_EQ(messages->status, 400);
  const json anthropic = json::parse(messages->body);
  EXPECT_EQ(anthropic["type"], "error");
  EXPECT_TRUE(anthropic["error"].contains("message"));
  auto completions = client_->Post("/v1/chat/completions", Key(), R"({"model":"companion"})", "application/json");
  ASSERT_TRUE(completions);
  EXPECT_EQ(completions->status, 400);
  EXPECT_NE(json::parse(completions->body)["error"]["message"].get<std::string>().find("messages"), std::string::npos);
}

TEST_F(ChatRoutesTest, CountTokensAnswersInTheAnthropicShapeAndSaysWhoCounted) {
  auto bad = client_->Post("/v1/messages/count_tokens", Key(), R"({"model":"companion","messages":"hi"})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  const json error = json::parse(bad->body);
  EXPECT_EQ(error["type"], "error");
  EXPECT_EQ(error["error"]["type"], "invalid_request_error");
  EXPECT_NE(error["error"]["message"].get<std::string>().find("messages"), std::string::npos) << bad->body;
  auto unkeyed = client_->Post("/v1/messages/count_tokens", R"({"model":"companion","messages":[]})", "application/json");
  ASSERT_TRUE(unkeyed);
  EXPECT_EQ(unkeyed->status, 401);
  // This upstream has no count_tokens (404): the count is cilia's estimate.
  const json body = {{"model", "companion"}, {"messages", json::array({{{"role", "user"}, {"content", "hello there"}}})}};
  auto counted = client_->Post("/v1/messages/count_tokens", Key(), body.dump(), "application/json");
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->status, 200) << counted->body;
  EXPECT_EQ(counted->get_header_value("X-Cilia-Counted-By"), "estimate");
  EXPECT_EQ(json::parse(counted->body), json({{"input_tokens", 3}}));  // 11 bytes, 4 a token
}

TEST_F(ChatRoutesTest, AStreamRefusedBeforeItsFirstByteKeepsTheUpstreamsStatus) {
  const json body = {{"model", "companion"}, {"max_tokens", 50}, {"stream", true},
                     {"messages", json::array({{{"role", "user"}, {"content", "OVERLOADED"}}})}};
  auto res = client_->Post("/v1/messages", Key(), body.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 529);
  const json error = json::parse(res->body);
  EXPECT_EQ(error["error"]["type"], "overloaded_error");
  EXPECT_EQ(res->body.find("upstream-secret"), std::string::npos);
}

TEST_F(ChatRoutesTest, AQuietUpstreamGetsTheClientKeepAliveCommentsAndThenTheAnswer) {
  upstream_.delay_ms = 2600;  // keepalive_s is 1
  const json body = {{"model", "companion"}, {"max_tokens", 50}, {"stream", true},
                     {"messages", json::array({{{"role", "user"}, {"content", "hello"}}})}};
  auto res = client_->Post("/v1/messages", Key(), body.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  const std::string& sse = res->body;
  const size_t first_ping = sse.find(": keep-alive\n\n");
  ASSERT_NE(first_ping, std::string::npos) << sse;
  EXPECT_LT(sse.find("event: message_start"), first_ping);
  EXPECT_LT(first_ping, sse.find("late hello"));
  EXPECT_NE(sse.find("event: message_stop"), std::string::npos);
}

TEST_F(ChatRoutesTest, AConversationThatCannotBeReadIsAnsweredWithoutMemoryAndSaysSo) {
  memory::Namespace& ns = *registry_->Get("default").value();
  const json first = {{"model", "companion"}, {"max_tokens", 50},
                      {"messages", json::array({{{"role", "user"}, {"content", "hello"}}})}};
  httplib::Headers headers = Key();
  headers.emplace("X-Cilia-Conversation", "kept");
  auto ok = client_->Post("/v1/messages", headers, first.dump(), "application/json");
  ASSERT_TRUE(ok);
  ASSERT_EQ(ok->status, 200) << ok->body;
  EXPECT_FALSE(ok->has_header("X-Cilia-Memory"));
  const int64_t before = memory::FindConversation(ns, "kept").value()->message_count;

  json next = first;
  next["messages"][0]["content"] = "and again";
  {
    testing::FailingReads failing(ns, "conversations");
    auto anthropic = client_->Post("/v1/messages", headers, next.dump(), "application/json");
    ASSERT_TRUE(anthropic);
    EXPECT_EQ(anthropic->status, 200) << anthropic->body;
    EXPECT_EQ(json::parse(anthropic->body)["type"], "message");
    EXPECT_EQ(anthropic->get_header_value("X-Cilia-Memory"), "unavailable");
  }
  {
    testing::FailingReads failing(ns, "conversations");
    json streamed = next;
    streamed["stream"] = true;
    auto openai = client_->Post("/v1/chat/completions", headers, streamed.dump(), "application/json");
    ASSERT_TRUE(openai);
    EXPECT_EQ(openai->status, 200) << openai->body;
    EXPECT_EQ(openai->get_header_value("X-Cilia-Memory"), "unavailable");
  }
  EXPECT_EQ(memory::FindConversation(ns, "kept").value()->message_count, before) << "nothing stored without memory";
}

TEST_F(ChatRoutesTest, AStreamThatFindsTheExecutorFullIsAnswered503AtOnce) {
  // Shared: blockers still queued run after this test's locals are gone.
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
  };
  auto gate = std::make_shared<Gate>();
  auto blocker = [gate] {
    std::unique_lock<std::mutex> lock(gate->mu);
    gate->cv.wait(lock, [&] { return gate->open; });
  };
  // Every worker busy first (a free worker raises the queue's bound), then the queue filled.
  for (size_t i = 0; i < executor_.threads(); ++i) ASSERT_TRUE(executor_.Post(blocker));
  while (executor_.busy() < executor_.threads()) std::this_thread::yield();
  while (executor_.Post(blocker)) {
  }
  const json body = {{"model", "companion"}, {"max_tokens", 50}, {"stream", true},
                     {"messages", json::array({{{"role", "user"}, {"content", "hello"}}})}};
  auto res = client_->Post("/v1/messages", Key(), body.dump(), "application/json");
  {
    std::lock_guard<std::mutex> lock(gate->mu);
    gate->open = true;
  }
  gate->cv.notify_all();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  const json error = json::parse(res->body);
  EXPECT_EQ(error["type"], "error");
  EXPECT_NE(error["error"]["message"].get<std::string>().find("busy"), std::string::npos);
}

}  // namespace
}  // namespace cilia::api
