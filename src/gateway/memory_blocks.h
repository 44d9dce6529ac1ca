// The memory blocks of one turn (DESIGN.md §6 step 3), one function a block:
// the L2 profile (BP1), the daily pack (BP2), the compression summary (BP3)
// and the volatile block (time, glossary hits, and the menu or, for models
// without tools, a few passages). Each notes what it injected in the turn's
// record. A failed read leaves its block empty and is logged: the turn still
// goes out. prompt_assembler.h lays the blocks out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/config.h"
#include "core/time.h"
#include "gateway/chat_request.h"
#include "gateway/prompt_assembler.h"
#include "gateway/turn_identity.h"
#include "memory/namespace.h"
#include "store/turn_repo.h"

namespace cilia::gateway {

// BP1: the L2 documents as (name, markdown); record.injected["profile"] names them.
std::vector<std::pair<std::string, std::string>> ProfileBlock(memory::Namespace& ns, store::TurnRecord& record);

// BP1, after the profile: the precious passages that fit token_budget
// (memory::PreciousForPrompt), verbatim and dated, as the raw content of the
// precious_passages block; record.injected["precious"] lists their ids. The
// same bytes every turn until a passage is pinned or forgotten.
std::string PreciousBlock(memory::Namespace& ns, int token_budget, store::TurnRecord& record);

// BP2: the same text all local day, refreshed by the nightly job.
std::string DailyPackBlock(memory::Namespace& ns, UnixMs now, store::TurnRecord& record);

// BP3: the conversation's summary, when the upstream body still holds the
// message the summary's raw part begins with.
struct SummaryInUse {
  std::string text;
  size_t upstream_keep_from = 0;  // AssembleOptions::history_keep_from
  size_t raw_from = 0;            // index into the client's history where the raw part begins
};
std::optional<SummaryInUse> SummaryBlock(memory::Namespace& ns, int64_t conversation_row,
                                         const nlohmann::json& upstream_body, Wire upstream, const ClientTurn& client);

// The short instruction at the head of BP1 on how to read cilia's blocks:
// memory, not the user's words; background, not something to recite; the
// newer of two facts wins; and, with the recall tool, the menu is hints.
std::string MemoryGuide(bool recall_tool);

// "Current time: Saturday 2026-06-20 12:00 (Asia/Shanghai)": the weekday too,
// since "this Friday" and "周六" are what people say.
std::string ClockLine(const TimeZone& tz, UnixMs now);

// The per-turn block after the clock: the menu (or passages) and glossary
// hits. Never cached, never stored.
struct VolatileInputs {
  const ClientTurn& client;
  const TurnIdentity& identity;  // what the client sends is left out of passages
  UnixMs now = 0;
  bool recall_tool = false;      // true: the menu; false: passages (gateway.snippets)
  const GatewayConfig& gateway;
};
std::string VolatileBlock(memory::Namespace& ns, const VolatileInputs& in, store::TurnRecord& record);

}  // namespace cilia::gateway
