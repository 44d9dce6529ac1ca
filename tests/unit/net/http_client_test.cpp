#include "net/http_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "testing/local_server.h"

namespace cilia::net {
namespace {

using cilia::testing::Gate;
using cilia::testing::LocalServer;
using namespace std::chrono_literals;

constexpr auto kHangGuard = 10s;  // only ever reached when a test is failing

class HttpClientTest : public ::testing::Test {
 protected:
  // Runs before the members go: releases stalled handlers so the server can stop.
  void TearDown() override { release_.Open(); }

  HttpRequest Get(const std::string& path) {
    HttpRequest request;
    request.method = "GET";
    request.url = server_.Url(path);
    return request;
  }

  Gate release_;
  Gate first_chunk_seen_;
  Gate disconnect_seen_;
  std::atomic<int> ticks_sent_{0};
  std::atomic<bool> first_chunk_acknowledged_{false};

  LocalServer server_{[this](httplib::Server& s) {
    s.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Echo-Header", req.get_header_value("X-Test"));
      res.set_content(req.body, req.get_header_value("Content-Type").c_str());
    });
    s.Get(R"(/status/(\d+))", [](const httplib::Request& req, httplib::Response& res) {
      res.status = std::stoi(req.matches[1]);
      res.set_content("status body", "text/plain");
    });
    s.Get("/peer-port", [](const httplib::Request& req, httplib::Response& res) {
      res.set_content(std::to_string(req.remote_port), "text/plain");
    });
    s.Get("/stream", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
        sink.write("one", 3);
        // The rest is held back until the client has seen the first piece.
        first_chunk_acknowledged_ = first_chunk_seen_.WaitFor(kHangGuard);
        sink.write("two", 3);
        sink.write("three", 5);
        sink.done();
        return true;
      });
    });
    s.Get("/endless", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink& sink) {
        for (int i = 0; i < 1000; ++i) {
          if (!sink.write("tick\n", 5)) {
            disconnect_seen_.Open();
            return false;
          }
          ++ticks_sent_;
          std::this_thread::sleep_for(10ms);
        }
        sink.done();
        return true;
      });
    });
    s.Get("/stall-after-first", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
        sink.write("first", 5);
        release_.WaitFor(kHangGuard);
        sink.done();
        return true;
      });
    });
    s.Get("/stall-before-head", [this](const httplib::Request&, httplib::Response& res) {
      release_.WaitFor(kHangGuard);
      res.set_content("late", "text/plain");
    });
  }};
};

// A port nothing listens on: bound once by the kernel's choice, then closed.
int UnusedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST_F(HttpClientTest, JsonPostRoundTripsBodyAndHeaders) {
  HttpRequest request;
  request.url = server_.Url("/echo");
  request.headers = {{"Content-Type", "application/json"}, {"X-Test", "42"}};
  request.body = R"({"input":["你好","🙂"]})";

  Result<HttpResponse> response = Send(request);

  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, request.body);
  EXPECT_EQ(response->Header("content-type"), "application/json");
  EXPECT_EQ(response->Header("X-ECHO-HEADER"), "42");
  EXPECT_EQ(response->Header("X-Not-There"), "");
}

TEST_F(HttpClientTest, EmptyPostBodyIsSent) {
  HttpRequest request;
  request.url = server_.Url("/echo");

  Result<HttpResponse> response = Send(request);

  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "");
}

TEST_F(HttpClientTest, LargeBodyRoundTrips) {
  HttpRequest request;
  request.url = server_.Url("/echo");
  request.headers = {{"Content-Type", "application/octet-stream"}};
  request.body.resize(4 << 20);
  for (size_t i = 0; i < request.body.size(); ++i) request.body[i] = static_cast<char>(i * 31);

  Result<HttpResponse> response = Send(request);

  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, request.body);
}

TEST_F(HttpClientTest, ErrorStatusIsAnAnswerNotAFailure) {
  Result<HttpResponse> response = Send(Get("/status/503"));

  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "status body");
}

TEST_F(HttpClientTest, SequentialCallsOnOneThreadReuseTheConnection) {
  Result<HttpResponse> first = Send(Get("/peer-port"));
  Result<HttpResponse> second = Send(Get("/peer-port"));

  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->body, second->body);
}

TEST_F(HttpClientTest, ConcurrentCallsFromManyThreadsEachGetTheirOwnAnswer) {
  constexpr int kThreads = 8;
  constexpr int kCallsEach = 20;
  std::atomic<int> correct{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCallsEach; ++i) {
        HttpRequest request;
        request.url = server_.Url("/echo");
        request.body = std::to_string(t) + ":" + std::to_string(i);
        Result<HttpResponse> response = Send(request);
        if (response.ok() && response->body == request.body) ++correct;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(correct.load(), kThreads * kCallsEach);
}

TEST_F(HttpClientTest, StreamingHandsOverEachPieceAsItArrives) {
  long head_status = 0;
  std::string content_type;
  std::string received;
  bool data_before_head = false;

  Result<StreamResult> result = SendStreaming(
      Get("/stream"),
      [&](long status, const Headers& headers) {
        head_status = status;
        for (const auto& [name, value] : headers) {
          if (name == "Content-Type") content_type = value;
        }
        return true;
      },
      [&](std::string_view chunk) {
        if (head_status == 0) data_before_head = true;
        received.append(chunk);
        // The server sends the rest only after this: the first piece came alone.
        if (received == "one") first_chunk_seen_.Open();
        return true;
      });

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->status, 200);
  EXPECT_FALSE(result->cancelled);
  EXPECT_EQ(head_status, 200);
  EXPECT_EQ(content_type, "text/plain");
  EXPECT_FALSE(data_before_head);
  EXPECT_EQ(received, "onetwothree");
  EXPECT_TRUE(first_chunk_acknowledged_.load());
}

TEST_F(HttpClientTest, HeadCallbackComesEvenWithoutBody) {
  HttpRequest request = Get("/status/204");
  long head_status = 0;
  int pieces = 0;

  Result<StreamResult> result = SendStreaming(
      request,
      [&](long status, const Headers&) {
        head_status = status;
        return true;
      },
      [&](std::string_view) {
        ++pieces;
        return true;
      });

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(head_status, 204);
  EXPECT_EQ(pieces, 0);
}

TEST_F(HttpClientTest, FalseFromDataCallbackCancelsAndServerSeesTheDisconnect) {
  std::string received;
  Result<StreamResult> result = SendStreaming(
      Get("/endless"), [](long, const Headers&) { return true; },
      [&](std::string_view chunk) {
        received.append(chunk);
        return false;
      });

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->cancelled);
  EXPECT_EQ(result->status, 200);
  EXPECT_FALSE(received.empty());
  EXPECT_TRUE(disconnect_seen_.WaitFor(kHangGuard));
  EXPECT_LT(ticks_sent_.load(), 1000);
}

TEST_F(HttpClientTest, FalseFromHeadCallbackCancelsBeforeAnyData) {
  int pieces = 0;
  Result<StreamResult> result = SendStreaming(
      Get("/endless"), [](long, const Headers&) { return false; },
      [&](std::string_view) {
        ++pieces;
        return true;
      });

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->cancelled);
  EXPECT_EQ(pieces, 0);
  EXPECT_TRUE(disconnect_seen_.WaitFor(kHangGuard));
}

TEST_F(HttpClientTest, ThrowingCallbackEndsTheTransferAsAnError) {
  Result<StreamResult> result = SendStreaming(
      Get("/endless"), [](long, const Headers&) { return true; },
      [](std::string_view) -> bool { throw std::runtime_error("consumer broke"); });

  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kInternal);
  EXPECT_TRUE(disconnect_seen_.WaitFor(kHangGuard));
}

TEST_F(HttpClientTest, RefusedConnectionIsUnavailableAndNamesOnlyTheHost) {
  HttpRequest request;
  request.url = "http://127.0.0.1:" + std::to_string(UnusedPort()) + "/v1/secret-path?key=sk-do-not-show";
  request.headers = {{"Authorization", "Bearer sk-do-not-show"}};

  Result<HttpResponse> response = Send(request);

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), Code::kUnavailable);
  EXPECT_NE(response.status().message().find("127.0.0.1"), std::string::npos);
  EXPECT_EQ(response.status().message().find("sk-do-not-show"), std::string::npos);
  EXPECT_EQ(response.status().message().find("secret-path"), std::string::npos);
}

TEST_F(HttpClientTest, MalformedUrlIsInvalidArgument) {
  HttpRequest request;
  request.url = "not a url";

  Result<HttpResponse> response = Send(request);

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), Code::kInvalidArgument);
}

TEST_F(HttpClientTest, SilenceAfterFirstByteTimesOutAtTheIdleLimit) {
  HttpRequest request = Get("/stall-after-first");
  request.idle_timeout_ms = 200;
  std::string received;

  Result<StreamResult> result = SendStreaming(
      request, [](long, const Headers&) { return true; },
      [&](std::string_view chunk) {
        received.append(chunk);
        return true;
      });

  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kTimeout);
  EXPECT_NE(result.status().message().find("silent"), std::string::npos);
  EXPECT_EQ(received, "first");
}

TEST_F(HttpClientTest, CancelledProbeCutsASilentStreamWithoutWaitingForTheIdleLimit) {
  HttpRequest request = Get("/stall-after-first");
  request.idle_timeout_ms = 60000;
  std::atomic<bool> client_gone{false};
  request.cancelled = [&client_gone] { return client_gone.load(); };
  std::string received;

  Result<StreamResult> result = SendStreaming(
      request, [](long, const Headers&) { return true; },
      [&](std::string_view chunk) {
        received.append(chunk);
        client_gone = true;  // the client leaves while the upstream is silent
        return true;
      });

  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_TRUE(result->cancelled);
  EXPECT_EQ(received, "first");
}

TEST_F(HttpClientTest, NoAnswerTimesOutAtTheFirstByteLimit) {
  HttpRequest request = Get("/stall-before-head");
  request.first_byte_timeout_ms = 200;

  Result<HttpResponse> response = Send(request);

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), Code::kTimeout);
  EXPECT_NE(response.status().message().find("no answer"), std::string::npos);
}

TEST_F(HttpClientTest, TotalLimitCutsAStreamThatKeepsTalking) {
  HttpRequest request = Get("/endless");
  request.total_timeout_ms = 300;

  Result<HttpResponse> response = Send(request);

  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), Code::kTimeout);
}

}  // namespace
}  // namespace cilia::net
