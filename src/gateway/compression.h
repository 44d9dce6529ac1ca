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

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/chat_request.h"
#include "gateway/prompt_assembler.h"

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
// previous summary and the messages to fold in.
nlohmann::json SummaryRequest(std::string_view previous_summary, const std::vector<ClientMessage>& messages,
                              const CompressionPlan& plan, const std::string& model);

}  // namespace cilia::gateway
