#include "api/connections.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "testing/raw_client.h"

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;
using testing::RawClient;

class ConnectionsTest : public ::testing::Test {
 protected:
  void Start(GuardedHttpServer::Limits limits) {
    server_ = std::make_unique<GuardedHttpServer>(limits, refused_, timed_out_);
    server_->Get("/health", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
    server_->Get("/stream", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [](size_t, httplib::DataSink& sink) {
        for (int i = 0; i < 5; ++i) {
          std::this_thread::sleep_for(300ms);
          if (!sink.write("tick\n", 5)) return false;
        }
        sink.done();
        return true;
      });
    });
    port_ = server_->Bind("127.0.0.1", 0);
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_->Serve(); });
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string Health(const char* from = "127.0.0.1") {
    RawClient client(port_, from);
    client.Send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    return client.ReadUntilClosed(3s);
  }
  static GuardedHttpServer::Limits Small() {
    GuardedHttpServer::Limits limits;
    limits.threads = 4;
    limits.max_connections = 16;
    limits.max_connections_per_peer = 2;
    limits.request_timeout = 1s;
    limits.keep_alive_timeout = 5s;
    return limits;
  }

  Counter refused_, timed_out_;
  std::unique_ptr<GuardedHttpServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(ConnectionsTest, SlowClientsOfOnePeerLeaveWorkersForOthers) {
  Start(Small());
  // Two slow heads from one peer, a byte every 200 ms: each holds a worker.
  std::vector<std::unique_ptr<RawClient>> slow;
  for (int i = 0; i < 2; ++i) {
    slow.push_back(std::make_unique<RawClient>(port_, "127.0.0.2"));
    ASSERT_TRUE(slow.back()->Send("GET /health HTTP/1.1\r\n"));
  }
  std::this_thread::sleep_for(100ms);
  // A third from that peer is refused at once, without a worker.
  RawClient third(port_, "127.0.0.2");
  const auto asked = SteadyClock::now();
  std::string refused = third.ReadUntilClosed(2s);
  EXPECT_LT(SteadyClock::now() - asked, 1s);
  EXPECT_THAT(refused, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(refused, HasSubstr("max_connections_per_peer"));
  EXPECT_EQ(refused_.Value(), 1u);
  // Another peer is served meanwhile.
  EXPECT_THAT(Health(), StartsWith("HTTP/1.1 200"));
}

TEST_F(ConnectionsTest, AHeadThatTricklesInIsCutAtTheDeadline) {
  Start(Small());
  RawClient slow(port_);
  ASSERT_TRUE(slow.Send("GET /health HTTP/1.1\r\n"));
  const auto start = SteadyClock::now();
  std::string answer;
  // A header byte every 200 ms for up to 6 s: each recv is quick, the
  // request never ends. The 1 s deadline cuts it, on a loaded machine too.
  for (int i = 0; i < 30 && !slow.closed(); ++i) {
    slow.Send("X");
    answer += slow.ReadUntilClosed(200ms);
  }
  EXPECT_TRUE(slow.closed());
  EXPECT_LT(SteadyClock::now() - start, 4s);
  EXPECT_EQ(timed_out_.Value(), 1u);
  EXPECT_THAT(Health(), StartsWith("HTTP/1.1 200"));
}

TEST_F(ConnectionsTest, AConnectionOverTheTotalCapIsRefused) {
  GuardedHttpServer::Limits limits = Small();
  limits.max_connections = 2;
  limits.max_connections_per_peer = 0;
  Start(limits);
  RawClient first(port_), second(port_);
  ASSERT_TRUE(first.connected() && second.connected());
  std::this_thread::sleep_for(100ms);
  std::string refused = Health();
  EXPECT_THAT(refused, StartsWith("HTTP/1.1 503"));
  EXPECT_THAT(refused, HasSubstr("\"code\":\"busy\""));
}

TEST_F(ConnectionsTest, ALongAnswerIsNotCutByTheRequestDeadline) {
  Start(Small());  // a 1 s deadline; the stream takes 1.5 s
  RawClient client(port_);
  client.Send("GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string answer = client.ReadUntilClosed(5s);
  EXPECT_THAT(answer, StartsWith("HTTP/1.1 200"));
  size_t ticks = 0;
  for (size_t at = answer.find("tick"); at != std::string::npos; at = answer.find("tick", at + 1)) ++ticks;
  EXPECT_EQ(ticks, 5u);
}

TEST_F(ConnectionsTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  Start(Small());
  RawClient client(port_);
  client.Send("GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string answers = client.ReadUntilClosed(3s);
  EXPECT_EQ(answers.find("HTTP/1.1 200"), 0u);
  EXPECT_NE(answers.find("HTTP/1.1 200", 10), std::string::npos);
}

}  // namespace
}  // namespace cilia::api
