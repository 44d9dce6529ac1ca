#include "gateway/compression.h"

#include <fmt/format.h>

#include "core/codec.h"
#include "core/log.h"
#include "ingest/context_parts.h"
#include "llm/json_access.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "memory/archive/conversation_reads.h"
#include "text/harness.h"
#include "text/tokens.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

constexpr std::string_view kInstructions =
    "You keep the running summary of a long conversation between a user and an assistant, so that "
    "the assistant can go on without the older messages. Write it in the language the conversation "
    "is in. Keep what later turns may need: facts about the user, decisions, promises, open "
    "questions, names, dates, the current topic and the tone between them. Quote the user's own "
    "words where exact wording matters. Do not invent anything. Fold the previous summary in; "
    "answer with the new summary only, at most about 800 words.";

}  // namespace

std::string MessageKey(std::string_view role, std::string_view text) {
  return Hex64(Fnv1a64(fmt::format("{}\n{}", role, Trim(text))));
}

std::optional<size_t> FindKeptFrom(const json& upstream_body, Wire wire, std::string_view key) {
  const json& messages = llm::ArrayOrEmpty(upstream_body, "messages");
  size_t system_end = 0;
  if (wire == Wire::kOpenAI) {
    while (system_end < messages.size()) {
      const std::string role = llm::StringOr(messages[system_end], "role");
      if (role != "system" && role != "developer") break;
      ++system_end;
    }
  }
  for (size_t i = messages.size(); i-- > system_end;) {
    if (MessageKey(llm::StringOr(messages[i], "role"), MessageText(messages[i])) == key) return i - system_end;
  }
  return std::nullopt;
}

std::optional<CompressionPlan> PlanCompression(const std::vector<ClientMessage>& messages, size_t raw_from,
                                               int threshold_tokens, int keep_tokens) {
  if (raw_from >= messages.size()) return std::nullopt;
  int64_t raw_tokens = 0;
  for (size_t i = raw_from; i < messages.size(); ++i) raw_tokens += text::EstimateTokens(messages[i].text);
  if (raw_tokens <= threshold_tokens) return std::nullopt;
  // Walk back from the newest until the kept part is full, then forward to a user message.
  size_t cut = messages.size();
  int64_t kept = 0;
  while (cut > raw_from + 1 && kept + text::EstimateTokens(messages[cut - 1].text) <= keep_tokens) {
    kept += text::EstimateTokens(messages[--cut].text);
  }
  while (cut < messages.size() && messages[cut].role != "user") ++cut;
  if (cut >= messages.size() || cut <= raw_from) return std::nullopt;
  return CompressionPlan{raw_from, cut, MessageKey(messages[cut].role, messages[cut].text)};
}

json SummaryRequest(std::string_view previous_summary, const std::vector<ClientMessage>& messages,
                    const CompressionPlan& plan, const std::string& model) {
  std::string transcript;
  if (!previous_summary.empty()) transcript += fmt::format("<previous_summary>\n{}\n</previous_summary>\n\n", previous_summary);
  transcript += "<messages>\n";
  for (size_t i = plan.summarize_from; i < plan.summarize_to; ++i) {
    // What was said: a client's harness blocks (text/harness.h) are no part
    // of it, nor tool calls and results without words.
    const std::string own = text::OwnWords(messages[i].text);
    if (own.empty() && (!messages[i].text.empty() || ingest::HoldsContextParts(messages[i].content))) continue;
    transcript += fmt::format("[{}]\n{}\n\n", messages[i].role, own);
  }
  transcript += "</messages>";
  return {{"model", model},
          {"messages", json::array({{{"role", "system"}, {"content", kInstructions}},
                                    {{"role", "user"}, {"content", transcript}}})},
          {"temperature", 0.2},
          {"max_tokens", 2000}};
}

Compressor::Compressor(const Config& config, const Clock& clock, Executor& executor)
    : config_(config), clock_(clock), executor_(executor) {}

Compressor::~Compressor() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return summarising_.empty(); });
}

void Compressor::MaybeCompress(std::shared_ptr<memory::Namespace> ns, int64_t conversation_row, std::string previous,
                               std::vector<ClientMessage> messages, size_t raw_from) {
  if (conversation_row == 0) return;
  auto plan = PlanCompression(messages, raw_from, config_.gateway.compression_threshold_tokens,
                              config_.gateway.compression_keep_tokens);
  if (!plan) return;
  const std::string key = ns->name() + "/" + std::to_string(conversation_row);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!summarising_.insert(key).second) return;  // one summary at a time per conversation
  }
  const bool queued = executor_.Post([this, ns, conversation_row, previous = std::move(previous),
                                      messages = std::move(messages), plan = *plan, key] {
    Summarise(*ns, conversation_row, previous, messages, plan);
    Done(key);
  });
  if (!queued) {
    LogWarn("compression of conversation {} in {}: the executor is full; the next turn tries again", conversation_row,
            ns->name());
    Done(key);
  }
}

void Compressor::Done(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  summarising_.erase(key);
  if (summarising_.empty()) idle_cv_.notify_all();
}

void Compressor::Summarise(memory::Namespace& ns, int64_t conversation_row, const std::string& previous,
                           const std::vector<ClientMessage>& messages, const CompressionPlan& plan) {
  const std::string& target = config_.models.extract.empty() ? config_.models.chat : config_.models.extract;
  auto route = llm::ResolveModel(config_, target);
  if (!route.ok()) {
    LogWarn("compression: no model for summaries: {}", route.status().ToString());
    return;
  }
  auto answer = llm::CompleteOpenAIShaped(*route, SummaryRequest(previous, messages, plan, route->model));
  if (!answer.ok()) {
    LogWarn("compression of conversation {} in {}: {}", conversation_row, ns.name(), answer.status().ToString());
    return;
  }
  if (answer->text.empty()) return;
  store::ConversationSummary record;
  record.conversation_row = conversation_row;
  record.text = answer->text;
  record.model = route->provider->name + "/" + route->model;
  record.kept_from_key = plan.kept_from_key;
  record.created_at = clock_.Now();
  auto added = memory::AddSummary(ns, std::move(record));
  if (!added.ok()) LogWarn("storing the summary of conversation {}: {}", conversation_row, added.status().ToString());
}

}  // namespace cilia::gateway
