// A fake cheap model on loopback for tests of the jobs that call
// models.extract: an OpenAI-compatible /v1/chat/completions whose reply text
// a test function computes from the request, with every request kept.
#pragma once

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
  // The reply's text for a request; a reply starting "HTTP 503" answers
  // with that status instead.
  using Script = std::function<std::string(const nlohmann::json& request)>;

  explicit ScriptedModel(Script script)
      : script_(std::move(script)), server_([this](httplib::Server& s) {
          s.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
            const nlohmann::json body = nlohmann::json::parse(req.body);
            std::string text;
            {
              std::lock_guard<std::mutex> lock(mu_);
              requests_.push_back(body);
              text = script_(body);
            }
            if (text.rfind("HTTP ", 0) == 0) {
              res.status = std::stoi(text.substr(5, 3));
              res.set_content(R"({"error":{"message":"scripted failure","type":"server_error"}})", "application/json");
              return;
            }
            const nlohmann::json reply = {
                {"id", "cmpl-fake"}, {"object", "chat.completion"}, {"model", "cheap"},
                {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
                {"usage", {{"prompt_tokens", 100}, {"completion_tokens", 20}}}};
            res.set_content(reply.dump(), "application/json");
          });
        }) {}

  // A config whose models.extract is this model.
  Config MakeConfig() const {
    Config config;
    ProviderConfig provider;
    provider.name = "fake";
    provider.base_url = server_.Url("/v1");
    config.providers.push_back(provider);
    config.models.chat = config.models.extract = "fake/cheap";
    return config;
  }

  std::vector<nlohmann::json> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  void SetScript(Script script) {
    std::lock_guard<std::mutex> lock(mu_);
    script_ = std::move(script);
  }
  // The user message (the input after the instructions) of a request.
  static std::string Input(const nlohmann::json& request) { return request["messages"].back()["content"]; }
  static std::string Instructions(const nlohmann::json& request) { return request["messages"].front()["content"]; }

 private:
  std::mutex mu_;
  Script script_;
  std::vector<nlohmann::json> requests_;
  LocalServer server_;
};

}  // namespace cilia::testing
