// A scripted cheap model for the extraction tests: an OpenAI-compatible
// /v1/chat/completions on a loopback port that answers each call with the
// next scripted reply (or a function of the request), records every request,
// and reports usage. An empty script answers {"items": []}.
#pragma once

#include <httplib.h>

#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "testing/local_server.h"
#include "core/config.h"

namespace cilia::testing {

class ScriptedModel {
 public:
  // A reply: the assistant's text, or an HTTP error status when > 0.
  struct Reply {
    std::string text;
    int http_error = 0;
  };
  using Script = std::function<Reply(const nlohmann::json& request)>;

  ScriptedModel()
      : server_([this](httplib::Server& s) {
          s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) { Answer(req, res); });
        }) {}

  void Then(std::string text) { Push({std::move(text), 0}); }
  void ThenFail(int http_status) { Push({"", http_status}); }
  // Answers every call no scripted reply is left for.
  void Otherwise(Script script) {
    std::lock_guard lock(mu_);
    otherwise_ = std::move(script);
  }
  std::vector<nlohmann::json> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  // The user message (the messages to excerpt) of request i.
  std::string UserText(size_t i) { return requests().at(i)["messages"].back()["content"].get<std::string>(); }

  // A config whose models.extract is this model.
  Config ConfigFor() const {
    Config config;
    ProviderConfig p;
    p.name = "fake";
    p.base_url = server_.Url("/v1");
    p.api_key = "test";
    config.providers.push_back(p);
    config.models.chat = config.models.extract = "fake/cheap";
    return config;
  }

 private:
  void Push(Reply r) {
    std::lock_guard lock(mu_);
    script_.push_back(std::move(r));
  }
  void Answer(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::json body = nlohmann::json::parse(req.body);
    Reply reply{R"({"items": []})", 0};
    {
      std::lock_guard lock(mu_);
      requests_.push_back(body);
      if (!script_.empty()) {
        reply = script_.front();
        script_.pop_front();
      } else if (otherwise_) {
        reply = otherwise_(body);
      }
    }
    if (reply.http_error > 0) {
      res.status = reply.http_error;
      res.set_content(R"({"error":{"message":"scripted failure","type":"server_error"}})", "application/json");
      return;
    }
    const int64_t prompt = static_cast<int64_t>(body["messages"].dump().size() / 4);
    const int64_t completion = static_cast<int64_t>(reply.text.size() / 4);
    nlohmann::json out = {
        {"id", "cmpl-x"},
        {"object", "chat.completion"},
        {"model", "cheap"},
        {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", reply.text}}}, {"finish_reason", "stop"}}}},
        {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}}}};
    res.set_content(out.dump(), "application/json");
  }

  std::mutex mu_;
  std::deque<Reply> script_;
  Script otherwise_;
  std::vector<nlohmann::json> requests_;
  LocalServer server_;  // last: stops before the script it reads goes
};

}  // namespace cilia::testing
