// The one fake cheap model of the unit tests: an OpenAI-compatible
// /v1/chat/completions on a loopback port. Each call is answered with the next
// queued reply (Then/ThenFail), else with the script's reply for the request,
// else {"items": []}; every request is kept, and usage is reported.
#pragma once

#include <httplib.h>

#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/config.h"
#include "testing/local_server.h"

namespace cilia::testing {

class ScriptedModel {
 public:
  // The reply's text for a request; a reply "HTTP <status>" answers with that
  // status and an error body instead.
  using Script = std::function<std::string(const nlohmann::json& request)>;

  ScriptedModel() : ScriptedModel(Script()) {}
  explicit ScriptedModel(Script script)
      : script_(std::move(script)), server_([this](httplib::Server& s) {
          s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) { Answer(req, res); });
        }) {}

  // The next call's reply, before the script.
  void Then(std::string text) { Push(std::move(text)); }
  void ThenFail(int http_status) { Push("HTTP " + std::to_string(http_status)); }
  // Answers every call no queued reply is left for.
  void SetScript(Script script) {
    std::lock_guard lock(mu_);
    script_ = std::move(script);
  }

  std::vector<nlohmann::json> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  // The user message (the input after the instructions) of request i.
  std::string UserText(size_t i) { return Input(requests().at(i)); }
  static std::string Input(const nlohmann::json& request) { return request["messages"].back()["content"]; }
  static std::string Instructions(const nlohmann::json& request) { return request["messages"].front()["content"]; }

  // A config whose models.chat and models.extract are this model.
  Config MakeConfig() const {
    Config config;
    ProviderConfig provider;
    provider.name = "fake";
    provider.base_url = server_.Url("/v1");
    provider.api_key = "test";
    config.providers.push_back(provider);
    config.models.chat = config.models.extract = "fake/cheap";
    return config;
  }

 private:
  void Push(std::string reply) {
    std::lock_guard lock(mu_);
    queued_.push_back(std::move(reply));
  }

  void Answer(const httplib::Request& req, httplib::Response& res) {
    const nlohmann::json body = nlohmann::json::parse(req.body);
    std::string text = R"({"items": []})";
    {
      std::lock_guard lock(mu_);
      requests_.push_back(body);
      if (!queued_.empty()) {
        text = std::move(queued_.front());
        queued_.pop_front();
      } else if (script_) {
        text = script_(body);
      }
    }
    if (text.rfind("HTTP ", 0) == 0) {
      res.status = std::stoi(text.substr(5, 3));
      res.set_content(R"({"error":{"message":"scripted failure","type":"server_error"}})", "application/json");
      return;
    }
    const int64_t prompt = static_cast<int64_t>(body["messages"].dump().size() / 4) + 1;
    const int64_t completion = static_cast<int64_t>(text.size() / 4) + 1;
    const nlohmann::json reply = {
        {"id", "cmpl-fake"},
        {"object", "chat.completion"},
        {"model", "cheap"},
        {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
        {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}}}};
    res.set_content(reply.dump(), "application/json");
  }

  std::mutex mu_;
  std::deque<std::string> queued_;
  Script script_;
  std::vector<nlohmann::json> requests_;
  LocalServer server_;  // last: stops before the script it reads goes
};

}  // namespace cilia::testing
