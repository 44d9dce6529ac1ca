// The compression cycle (DESIGN.md §6 step 7): when a conversation's history
// passes a token threshold, its older part is summarised by the cheap model
// and, from then on, sent as that summary (BP3) plus the recent messages.
// Nothing is deleted: the raw messages stay in the archive, and recall
// reaches them. The summary stays the same until the next cycle, so the
// cached prefix up to BP3 keeps hitting.
//
// The summary remembers where the raw part begins by the key of its first
// message (role and text), which every later request still carries.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/executor.h"
#include "core/thread_annotations.h"
#include "gateway/chat_request.h"
#include "gateway/prompt_assembler.h"
#include "memory/namespace.h"

namespace cilia::gateway {

// Role and trimmed text, hashed: how a message is found again.
std::string MessageKey(std::string_view role, std::string_view text);

// The index, counted from the first non-system message of the upstream body
// (AssembleOptions::history_keep_from), of the newest message with that key;
// nullopt when the body holds none (the client cut its history further, or
// edited it).
std::optional<size_t> FindKeptFrom(const nlohmann::json& upstream_body, Wire wire, std::string_view key);

struct CompressionPlan {
  size_t summarize_from = 0;  // [from, to) of the messages are summarised now
  size_t summarize_to = 0;    // the first message kept raw
  std::string kept_from_key;
};

// Whether the raw part of `messages` (those from `raw_from` on) passes
// `threshold_tokens`; if so, the cut that keeps about `keep_tokens` of the
// newest raw, starting at a user message. nullopt when nothing is to be done.
std::optional<CompressionPlan> PlanCompression(const std::vector<ClientMessage>& messages, size_t raw_from,
                                               int threshold_tokens, int keep_tokens);

// The cheap model's request, OpenAI-shaped: instructions first, then the
// previous summary and the messages to fold in (their own words: client
// harness blocks are left out, text/harness.h).
nlohmann::json SummaryRequest(std::string_view previous_summary, const std::vector<ClientMessage>& messages,
                              const CompressionPlan& plan, const std::string& model);

// Writes summaries in the background on `serve`'s executor, one at a time
// per conversation. A summary that cannot be queued (the executor is full)
// is skipped and logged: the next long turn asks again.
class Compressor {
 public:
  Compressor(const Config& config, const Clock& clock, Executor& executor);
  // Waits for the summaries in flight.
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  // After a turn: `messages` are the history, the new user message and the
  // answer; `previous` the summary sent with it. Queues a new summary when
  // the raw part passed the threshold.
  void MaybeCompress(std::shared_ptr<memory::Namespace> ns, int64_t conversation_row, std::string previous,
                     std::vector<ClientMessage> messages, size_t raw_from);

 private:
  void Summarise(memory::Namespace& ns, int64_t conversation_row, const std::string& previous,
                 const std::vector<ClientMessage>& messages, const CompressionPlan& plan);
  void Done(const std::string& key);

  const Config& config_;
  const Clock& clock_;
  Executor& executor_;
  std::mutex mu_;
  std::condition_variable idle_cv_;
  std::set<std::string> summarising_ CILIA_GUARDED_BY(mu_);  // namespace/conversation row
};

}  // namespace cilia::gateway
