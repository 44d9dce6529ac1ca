#include "gateway/recall_rounds.h"

#include <string>

#include "llm/json_access.h"
#include "llm/responses_format.h"

namespace cilia::gateway {

using nlohmann::json;

bool ContinueWithRecall(UpstreamRounds& rounds, RecallRun run, const llm::AssistantTurn& answer,
                        store::TurnRecord& record) {
  if (!rounds.recall_offered || rounds.recall_rounds >= rounds.max_rounds) return false;
  bool any_recall = false, any_client = false;
  for (const llm::ToolCall& call : answer.tool_calls) (call.name == kRecallToolName ? any_recall : any_client) = true;
  // A client tool beside it: the client must answer that one, and it never
  // saw ours, so ours is dropped; the model may ask again next turn.
  if (!any_recall || any_client) return false;
  ++rounds.recall_rounds;
  const TurnIdentity& identity = run.identity;
  run.options.already_seen = [&identity](const memory::RecallResult& r) { return identity.ClientSends(r); };
  const Wire wire = rounds.wire;
  json results = json::array();
  json tool_results = json::array();
  for (const llm::ToolCall& call : answer.tool_calls) {
    RecallToolOutcome outcome = RunRecallTool(run.ns, call.arguments, run.options);
    results.push_back({{"query", outcome.query}, {"results", outcome.results}, {"ok", outcome.ok}});
    record.sources.insert(record.sources.end(), outcome.sources.begin(), outcome.sources.end());
    if (wire == Wire::kOpenAI) {
      tool_results.push_back({{"role", "tool"}, {"tool_call_id", call.id}, {"content", outcome.text}});
    } else if (wire == Wire::kResponses) {
      tool_results.push_back({{"type", "function_call_output"}, {"call_id", call.id}, {"output", outcome.text}});
    } else {
      tool_results.push_back({{"type", "tool_result"}, {"tool_use_id", call.id}, {"content", outcome.text}});
    }
  }
  record.injected["recall"].push_back(std::move(results));
  if (wire == Wire::kResponses) {
    // The round's items go back as the upstream sent them: a function call
    // needs its reasoning item (encrypted content and all) before it. With
    // store false the upstream kept nothing, so a reasoning item without its
    // encrypted content would name an item it cannot find.
    const bool stored = llm::MemberOr(rounds.body, "store", true) != false;
    json input = llm::InputItems(llm::MemberOr(rounds.body, "input", json::array()));
    for (const json& item : answer.items.is_array() ? answer.items : json::array()) {
      const bool unnamed =
          llm::StringOr(item, "type") == "reasoning" && llm::StringOr(item, "encrypted_content").empty();
      if (stored || !unnamed) input.push_back(item);
    }
    for (json& r : tool_results) input.push_back(std::move(r));
    rounds.body["input"] = std::move(input);
  } else if (wire == Wire::kOpenAI) {
    json& messages = rounds.body["messages"];
    messages.push_back(llm::OpenAIAssistantMessage(answer));
    for (json& m : tool_results) messages.push_back(std::move(m));
  } else {
    json& messages = rounds.body["messages"];
    messages.push_back({{"role", "assistant"}, {"content", llm::AnthropicAssistantContent(answer)}});
    messages.push_back({{"role", "user"}, {"content", std::move(tool_results)}});
  }
  // The last round allowed: the model must answer now.
  if (rounds.recall_rounds >= rounds.max_rounds) {
    rounds.body["tool_choice"] = wire == Wire::kAnthropic ? json{{"type", "none"}} : json("none");
  }
  return true;
}

llm::Usage operator+(const llm::Usage& a, const llm::Usage& b) {
  return {a.input + b.input, a.output + b.output, a.cache_read + b.cache_read, a.cache_write + b.cache_write,
          a.reasoning + b.reasoning};
}

llm::AssistantTurn JoinRounds(const std::vector<llm::AssistantTurn>& rounds) {
  llm::AssistantTurn all;
  if (rounds.empty()) return all;
  all.id = rounds.front().id;
  all.model = rounds.front().model;
  for (const llm::AssistantTurn& round : rounds) {
    all.text += round.text;
    all.thinking.insert(all.thinking.end(), round.thinking.begin(), round.thinking.end());
    all.tool_calls = round.tool_calls;
    all.finish = round.finish;
    all.usage = all.usage + round.usage;
  }
  return all;
}

json MergeRounds(json last, const std::vector<llm::AssistantTurn>& earlier, const llm::Usage& total, Wire upstream,
                 bool hide_recall) {
  if (upstream == Wire::kResponses) {
    json output = json::array();
    auto add = [&](const json& items) {
      for (const json& item : hide_recall ? llm::WithoutCallsTo(items, kRecallToolName) : items) output.push_back(item);
    };
    for (const llm::AssistantTurn& round : earlier) add(round.items);
    add(llm::ArrayOrEmpty(last, "output"));
    last["output"] = std::move(output);
    last["usage"] = llm::UsageToResponses(total);
    return last;
  }
  if (upstream == Wire::kOpenAI) {
    json& choices = last["choices"];
    if (choices.is_array() && !choices.empty() && choices[0].contains("message")) {
      json& message = choices[0]["message"];
      std::string text, reasoning;
      for (const llm::AssistantTurn& round : earlier) {
        text += round.text;
        reasoning += round.ReasoningText();
      }
      const std::string own = message.contains("content") && message["content"].is_string() ? message["content"].get<std::string>() : "";
      if (!text.empty() || !own.empty()) message["content"] = text + own;
      if (!reasoning.empty()) message["reasoning_content"] = reasoning + llm::StringOr(message, "reasoning_content");
      if (hide_recall && message.contains("tool_calls") && message["tool_calls"].is_array()) {
        json kept = json::array();
        for (const json& call : message["tool_calls"]) {
          if (llm::StringOr(llm::MemberOr(call, "function", json::object()), "name") != kRecallToolName) kept.push_back(call);
        }
        if (kept.empty()) {
          message.erase("tool_calls");
          if (llm::StringOr(choices[0], "finish_reason") == "tool_calls") choices[0]["finish_reason"] = "stop";
        } else {
          message["tool_calls"] = std::move(kept);
        }
      }
    }
    last["usage"] = llm::UsageToOpenAI(total);
    return last;
  }
  json content = json::array();
  for (const llm::AssistantTurn& round : earlier) {
    llm::AssistantTurn visible = round;
    visible.tool_calls.clear();
    for (json& block : llm::AnthropicAssistantContent(visible)) content.push_back(std::move(block));
  }
  bool client_tool = false;
  for (const json& block : llm::ArrayOrEmpty(last, "content")) {
    const bool ours = llm::StringOr(block, "type") == "tool_use" && llm::StringOr(block, "name") == kRecallToolName;
    if (hide_recall && ours) continue;
    client_tool = client_tool || llm::StringOr(block, "type") == "tool_use";
    content.push_back(block);
  }
  last["content"] = std::move(content);
  if (llm::StringOr(last, "stop_reason") == "tool_use" && !client_tool) last["stop_reason"] = "end_turn";
  last["usage"] = llm::UsageToAnthropic(total);
  return last;
}

}  // namespace cilia::gateway
