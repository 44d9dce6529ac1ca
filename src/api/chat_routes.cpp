#include "api/chat_routes.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>

#include "gateway/token_count.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "store/key_store.h"

namespace cilia::api {
namespace {

using nlohmann::json;

// Bytes from the stream's thread to the connection's.
class StreamPump : public gateway::ChatSink {
 public:
  bool Write(std::string_view bytes) override {
    if (gone_.load()) return false;
    std::lock_guard<std::mutex> lock(mu_);
    chunks_.emplace_back(bytes);
    started_ = true;
    cv_.notify_all();
    return true;
  }
  bool ClientGone() const override { return gone_.load(); }
  void MarkGone() { gone_ = true; }

  void Close(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    outcome_ = std::move(status);
    finished_ = true;
    cv_.notify_all();
  }

  // Blocks until the first bytes or the end. True: bytes are coming.
  bool WaitForStart() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return started_ || finished_; });
    return started_;
  }
  Status outcome() {
    std::lock_guard<std::mutex> lock(mu_);
    return outcome_;
  }

  // Writes everything to the sink until the stream ends; a keep-alive
  // comment after `idle` of silence. False when the client went away.
  bool Drain(httplib::DataSink& sink, std::chrono::seconds idle) {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (!chunks_.empty()) {
        std::string bytes = std::move(chunks_.front());
        chunks_.pop_front();
        lock.unlock();
        if (!sink.write(bytes.data(), bytes.size())) return Gone();
        lock.lock();
        continue;
      }
      if (finished_) {
        lock.unlock();
        sink.done();
        return true;
      }
      if (!cv_.wait_for(lock, idle, [this] { return !chunks_.empty() || finished_; })) {
        lock.unlock();
        static constexpr std::string_view kKeepAlive = ": keep-alive\n\n";
        if (!sink.write(kKeepAlive.data(), kKeepAlive.size())) return Gone();
        lock.lock();
      }
    }
  }

 private:
  bool Gone() {
    gone_ = true;
    return false;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> chunks_;
  bool started_ = false, finished_ = false;
  Status outcome_;
  std::atomic<bool> gone_{false};
};

// An upstream's refusal, relayed as the upstream said it (status and type)
// in the client's shape, as ChatService::Complete does for whole answers.
Reply UpstreamRefusal(const Status& status, gateway::Wire wire) {
  const llm::UpstreamError error = llm::UpstreamErrorOf(status);
  return Reply::Json(wire == gateway::Wire::kAnthropic ? llm::AnthropicErrorBody(error) : llm::OpenAIErrorBody(error),
                     error.http_status);
}

Result<Reply> ServeChat(gateway::ChatService& service, const Config& config, gateway::ChatEndpoint endpoint,
                        ErrorStyle style, const Request& req) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
  gateway::ChatCall call;
  call.endpoint = endpoint;
  call.body = std::move(body);
  call.conversation_header = req.http.get_header_value("X-Cilia-Conversation");
  if (req.http.has_header("anthropic-beta")) {
    call.forward_headers.emplace_back("anthropic-beta", req.http.get_header_value("anthropic-beta"));
  }
  call.name_space = req.who.name_space;
  call.features = store::ApplyOverrides(config.features, req.who.features);

  auto turn = service.Prepare(std::move(call));
  if (!turn.ok()) {
    // Upstream failures while preparing (the guide-dog's vision call) keep their status.
    if (llm::IsUpstreamFailure(turn.status())) {
      return UpstreamRefusal(turn.status(),
                             style == ErrorStyle::kAnthropic ? gateway::Wire::kAnthropic : gateway::Wire::kOpenAI);
    }
    return turn.status();
  }
  std::shared_ptr<gateway::PreparedTurn> prepared = *turn;
  const gateway::Wire wire = gateway::ChatService::ClientWire(*prepared);
  // The store failed and the turn went without memory (gateway.md, "When the store is down").
  auto told = [&prepared](Reply reply) {
    if (gateway::ChatService::MemoryWasUnavailable(*prepared)) return std::move(reply).WithHeader("X-Cilia-Memory", "unavailable");
    return reply;
  };
  if (!gateway::ChatService::WantsStream(*prepared)) {
    gateway::ChatReply reply = service.Complete(*prepared);
    return told(Reply::Json(reply.body, reply.http_status));
  }

  auto pump = std::make_shared<StreamPump>();
  const Status started = service.StartStream(prepared, pump, [pump](Status outcome) { pump->Close(std::move(outcome)); });
  if (!started.ok()) return started;
  if (!pump->WaitForStart()) {
    const Status outcome = pump->outcome();
    return told(UpstreamRefusal(outcome.ok() ? Status::Unavailable("the upstream sent an empty stream") : outcome, wire));
  }
  const std::chrono::seconds idle(config.gateway.keepalive_s);
  return told(Reply::Stream(
                  "text/event-stream", [pump, idle](httplib::DataSink& sink) { return pump->Drain(sink, idle); },
                  [pump](bool success) {
                    if (!success) pump->MarkGone();
                  })
                  .WithHeader("Cache-Control", "no-cache")
                  .WithHeader("X-Accel-Buffering", "no"));
}

// POST /v1/messages/count_tokens: the upstream's count or cilia's estimate,
// told apart by X-Cilia-Counted-By.
Result<Reply> ServeCountTokens(const Config& config, const Request& req) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
  net::Headers forward;
  if (req.http.has_header("anthropic-beta")) forward.emplace_back("anthropic-beta", req.http.get_header_value("anthropic-beta"));
  auto counted = gateway::CountTokens(config, std::move(body), forward);
  if (!counted.ok()) {
    if (llm::IsUpstreamFailure(counted.status())) return UpstreamRefusal(counted.status(), gateway::Wire::kAnthropic);
    return counted.status();
  }
  return Reply::Json(counted->body).WithHeader("X-Cilia-Counted-By", counted->by_upstream ? "upstream" : "estimate");
}

json ModelList(const Config& config, bool anthropic_shape) {
  json data = json::array();
  for (const std::string& id : llm::ListedModels(config)) {
    if (anthropic_shape) {
      data.push_back({{"type", "model"}, {"id", id}, {"display_name", id}, {"created_at", "1970-01-01T00:00:00Z"}});
    } else {
      data.push_back({{"id", id}, {"object", "model"}, {"created", 0}, {"owned_by", "cilia"}});
    }
  }
  if (!anthropic_shape) return {{"object", "list"}, {"data", std::move(data)}};
  json first = data.empty() ? json(nullptr) : data.front()["id"];
  json last = data.empty() ? json(nullptr) : data.back()["id"];
  return {{"data", std::move(data)}, {"has_more", false}, {"first_id", first}, {"last_id", last}};
}

}  // namespace

void RegisterChatRoutes(ApiServer& server, gateway::ChatService& service, const Config& config) {
  auto route = [&](const char* path, gateway::ChatEndpoint endpoint, ErrorStyle style) {
    server.Handle("POST", path, Scope::kChat,
                  [&service, &config, endpoint, style](const Request& req) {
                    return ServeChat(service, config, endpoint, style, req);
                  },
                  style);
  };
  route("/v1/chat/completions", gateway::ChatEndpoint::kChatCompletions, ErrorStyle::kOpenAI);
  route("/v1/messages", gateway::ChatEndpoint::kMessages, ErrorStyle::kAnthropic);
  route("/v1/guide-dog/chat/completions", gateway::ChatEndpoint::kGuideDog, ErrorStyle::kOpenAI);
  route("/v1/responses", gateway::ChatEndpoint::kResponses, ErrorStyle::kOpenAI);
  server.Handle("POST", "/v1/messages/count_tokens", Scope::kChat,
                [&config](const Request& req) { return ServeCountTokens(config, req); }, ErrorStyle::kAnthropic);
  // Anthropic's SDKs send anthropic-version; they get the list in their shape.
  server.Handle("GET", "/v1/models", Scope::kChat,
                [&config](const Request& req) -> Result<Reply> {
                  return Reply::Json(ModelList(config, req.http.has_header("anthropic-version")));
                });
}

}  // namespace cilia::api
