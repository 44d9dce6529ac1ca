#include "gateway/stream_splicer.h"

#include <map>
#include <vector>

#include "llm/json_access.h"
#include "llm/stream.h"
#include "net/sse.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;
using llm::Dump;

// What both formats share: the parsing of the round's frames, the names,
// and the rounds counted.
class SplicerBase : public StreamSplicer {
 public:
  SplicerBase(std::string hidden_tool, std::string model)
      : hidden_tool_(std::move(hidden_tool)), model_(std::move(model)) {}

  std::string Feed(std::string_view frames) override {
    std::string out;
    parser_.Feed(frames, [&](const net::SseEvent& event) { OnEvent(event, out); });
    return out;
  }
  bool failed() const override { return failed_; }

 protected:
  virtual void OnEvent(const net::SseEvent& event, std::string& out) = 0;

  const std::string hidden_tool_;
  const std::string model_;
  int round_ = 0;
  std::vector<json> held_;  // this round's ending, until EndRound
  bool failed_ = false;

 private:
  net::SseParser parser_;
};

class OpenAISplicer : public SplicerBase {
 public:
  using SplicerBase::SplicerBase;

  std::string EndRound(bool more, const llm::Usage& total) override {
    std::string out;
    if (!more) {
      for (json& chunk : held_) {
        if (chunk.is_string()) {
          out += llm::SseFrame(chunk.get<std::string>());
          continue;
        }
        if (chunk.contains("usage") && chunk["usage"].is_object()) chunk["usage"] = llm::UsageToOpenAI(total);
        out += llm::SseFrame(Dump(chunk));
      }
    }
    held_.clear();
    round_tools_.clear();
    holding_ = false;
    ++round_;
    return out;
  }

 private:
  void OnEvent(const net::SseEvent& event, std::string& out) override {
    if (event.data == "[DONE]") {
      if (failed_) {
        out += llm::SseFrame(event.data);  // the end of an error: nothing is held after a failure
      } else {
        held_.push_back(event.data);
      }
      return;
    }
    json chunk = json::parse(event.data, nullptr, false);
    if (!chunk.is_object() || chunk.contains("error")) {
      if (chunk.is_object()) failed_ = true;
      out += llm::SseFrame(event.data);
      return;
    }
    if (round_ == 0 && id_.is_null()) {
      id_ = llm::MemberOr(chunk, "id", json(nullptr));
      created_ = llm::MemberOr(chunk, "created", json(nullptr));
    } else {
      if (!id_.is_null()) chunk["id"] = id_;
      if (!created_.is_null()) chunk["created"] = created_;
    }
    chunk["model"] = model_;
    bool keep = chunk.contains("usage") && !chunk["usage"].is_null();
    bool finishing = false;
    if (chunk.contains("choices") && chunk["choices"].is_array()) {
      for (json& choice : chunk["choices"]) {
        if (!choice.is_object()) continue;
        if (choice.contains("finish_reason") && !choice["finish_reason"].is_null()) finishing = true;
        if (choice.contains("delta") && choice["delta"].is_object()) FilterDelta(choice["delta"]);
        const bool has_delta = choice.contains("delta") && choice["delta"].is_object() && !choice["delta"].empty();
        if (has_delta || finishing) keep = true;
      }
    }
    if (!keep && !chunk.contains("choices")) keep = true;  // nothing we know: pass it on
    if (!keep) return;
    if (finishing && !holding_) {
      // Some servers put the last words in the finishing chunk: they go out
      // now, and only the ending waits.
      json words = chunk;
      bool any_words = false;
      for (json& choice : words["choices"]) {
        if (!choice.is_object()) continue;
        choice["finish_reason"] = nullptr;
        any_words = any_words || (choice.contains("delta") && choice["delta"].is_object() && !choice["delta"].empty());
      }
      for (json& choice : chunk["choices"]) {
        if (choice.is_object()) choice["delta"] = json::object();
      }
      if (any_words) {
        words.erase("usage");
        out += llm::SseFrame(Dump(words));
      }
    }
    if (finishing || holding_) {
      holding_ = true;
      held_.push_back(std::move(chunk));
      return;
    }
    out += llm::SseFrame(Dump(chunk));
  }

  void FilterDelta(json& delta) {
    if (round_ > 0) {
      delta.erase("role");
      if (delta.contains("content") && delta["content"].is_string() && delta["content"].get<std::string>().empty()) {
        delta.erase("content");
      }
    }
    if (!delta.contains("tool_calls") || !delta["tool_calls"].is_array()) return;
    json visible = json::array();
    for (json& fragment : delta["tool_calls"]) {
      const int64_t index = llm::IntOr(fragment, "index");
      auto found = round_tools_.find(index);
      if (found == round_tools_.end()) {
        const std::string name = llm::StringOr(llm::MemberOr(fragment, "function", json::object()), "name");
        const int client_index = name == hidden_tool_ ? -1 : next_tool_index_++;
        found = round_tools_.emplace(index, client_index).first;
      }
      if (found->second < 0) continue;
      fragment["index"] = found->second;
      visible.push_back(std::move(fragment));
    }
    if (visible.empty()) {
      delta.erase("tool_calls");
    } else {
      delta["tool_calls"] = std::move(visible);
    }
  }

  json id_ = nullptr, created_ = nullptr;
  std::map<int64_t, int> round_tools_;  // this round's delta index -> client index, -1 hidden
  int next_tool_index_ = 0;
  bool holding_ = false;  // held_ holds chunks, or the string "[DONE]"
};

class AnthropicSplicer : public SplicerBase {
 public:
  using SplicerBase::SplicerBase;

  std::string EndRound(bool more, const llm::Usage& total) override {
    std::string out;
    if (!more) {
      for (json& event : held_) {
        if (llm::StringOr(event, "type") == "message_delta") event["usage"] = llm::UsageToAnthropic(total);
        out += llm::SseFrame(Dump(event), llm::StringOr(event, "type"));
      }
    }
    held_.clear();
    blocks_.clear();
    ++round_;
    return out;
  }

 private:
  void OnEvent(const net::SseEvent& event, std::string& out) override {
    json data = json::parse(event.data, nullptr, false);
    const std::string type = llm::StringOr(data, "type", event.event);
    if (!data.is_object() || type == "error") {
      if (type == "error") failed_ = true;
      out += llm::SseFrame(event.data, event.event);
      return;
    }
    if (type == "message_start") {
      if (round_ > 0) return;
      if (data.contains("message") && data["message"].is_object()) data["message"]["model"] = model_;
      out += llm::SseFrame(Dump(data), type);
      return;
    }
    if (type == "message_delta" || type == "message_stop") {
      held_.push_back(std::move(data));
      return;
    }
    if (type == "content_block_start" || type == "content_block_delta" || type == "content_block_stop") {
      const int64_t index = llm::IntOr(data, "index");
      auto found = blocks_.find(index);
      if (found == blocks_.end()) {
        const json block = llm::MemberOr(data, "content_block", json::object());
        const bool hidden = llm::StringOr(block, "type") == "tool_use" && llm::StringOr(block, "name") == hidden_tool_;
        found = blocks_.emplace(index, hidden ? -1 : next_index_++).first;
      }
      if (found->second < 0) return;
      data["index"] = found->second;
    }
    out += llm::SseFrame(Dump(data), type);
  }

  std::map<int64_t, int> blocks_;  // this round's block index -> client index, -1 hidden
  int next_index_ = 0;
};

}  // namespace

std::unique_ptr<StreamSplicer> StreamSplicer::Create(Wire client, std::string hidden_tool, std::string model) {
  if (client == Wire::kOpenAI) return std::make_unique<OpenAISplicer>(std::move(hidden_tool), std::move(model));
  return std::make_unique<AnthropicSplicer>(std::move(hidden_tool), std::move(model));
}

ResponsesSplicer::ResponsesSplicer(std::string hidden_tool, json request, llm::ResponseHeader header)
    : hidden_tool_(std::move(hidden_tool)), request_(std::move(request)), header_(std::move(header)) {}

std::string ResponsesSplicer::Feed(std::string_view frames) {
  std::string out;
  parser_.Feed(frames, [&](const net::SseEvent& event) { OnEvent(event, out); });
  return out;
}

void ResponsesSplicer::Emit(json data, std::string& out) {
  data["sequence_number"] = sequence_++;
  if (data.contains("response") && data["response"].is_object()) {
    response_ = llm::AsClientResponse(std::move(data["response"]), request_, header_);
    data["response"] = response_;
  }
  out += llm::SseFrame(Dump(data), llm::StringOr(data, "type"));
}

void ResponsesSplicer::OnEvent(const net::SseEvent& event, std::string& out) {
  json data = json::parse(event.data, nullptr, false);
  if (!data.is_object()) {
    out += llm::SseFrame(event.data, event.event);
    return;
  }
  const std::string type = llm::StringOr(data, "type", event.event);
  data["type"] = type;
  if (type == "response.failed" || type == "error") {
    failed_ = true;
    return Emit(std::move(data), out);
  }
  if (type == "response.created" || type == "response.in_progress" || type == "response.queued") {
    if (round_ == 0) Emit(std::move(data), out);
    return;
  }
  if (type == "response.completed" || type == "response.incomplete") {
    held_ = std::move(data);
    return;
  }
  bool renumbered = false;
  if (const json* index = llm::Member(data, "output_index"); index != nullptr && index->is_number_integer()) {
    auto found = round_items_.find(index->get<int64_t>());
    if (found == round_items_.end()) {
      const json item = llm::MemberOr(data, "item", json::object());
      const bool hidden = llm::StringOr(item, "type") == "function_call" && llm::StringOr(item, "name") == hidden_tool_;
      found = round_items_.emplace(index->get<int64_t>(), hidden ? -1 : next_index_++).first;
    }
    if (found->second < 0) return;
    renumbered = found->second != index->get<int64_t>();
    data["output_index"] = found->second;
  }
  if (!renumbered && llm::IntOr(data, "sequence_number", -1) == sequence_ && event.event == type) {
    ++sequence_;
    out += llm::SseFrame(event.data, event.event);  // untouched: as the upstream sent it
    return;
  }
  Emit(std::move(data), out);
}

std::string ResponsesSplicer::EndRound(bool more, const llm::Usage& total) {
  std::string out;
  const json ended = held_.is_object() ? llm::MemberOr(held_, "response", json::object()) : json::object();
  const json visible = llm::WithoutCallsTo(llm::ArrayOrEmpty(ended, "output"), hidden_tool_);
  if (more) {
    for (const json& item : visible) shown_.push_back(item);
  } else if (held_.is_object()) {
    json response = ended;
    json output = shown_;
    for (const json& item : visible) output.push_back(item);
    response["output"] = std::move(output);
    if (round_ > 0) response["usage"] = llm::UsageToResponses(total);
    held_["response"] = std::move(response);
    Emit(std::move(held_), out);
  }
  held_ = nullptr;
  round_items_.clear();
  ++round_;
  return out;
}

}  // namespace cilia::gateway
