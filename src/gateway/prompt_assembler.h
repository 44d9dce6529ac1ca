// Prompt assembly: the client's request plus cilia's memory, laid out for
// prefix caches (DESIGN.md §6 step 4; the rules and their reasons are in
// docs/prompt-assembly.md).
//
// Wire order: tools (the client's, then `recall`) → system [client system
// text minus per-turn lines, memory guide, L2 profile, precious passages] (BP1) → daily pack (BP2) → summary
// (BP3) → history (BP4 on its last message) → current user turn + volatile
// block. Everything that changes per turn sits after the last breakpoint.
//
// Pure and deterministic: the same inputs give a byte-identical body.dump().
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace cilia::gateway {

struct MemoryBlocks {
  // How the model is to read what follows (gateway::MemoryGuide); first in
  // BP1, the same bytes every turn. Empty: no guide.
  std::string guide;
  // L2 documents (name, markdown), any order in; sent as persona, user,
  // relationship, rules, then the rest by name. Pass the last good copy when
  // a read fails: an empty profile changes BP1 and every cache after it.
  std::vector<std::pair<std::string, std::string>> profile;
  // Verbatim passages the owner pinned (gateway::PreciousBlock), after the
  // profile in BP1: they change as rarely as it does.
  std::string precious;
  std::string daily_pack;     // digest + yesterday's log, refreshed once a local day (BP2)
  std::string summary;        // the compression cycle's summary of older history (BP3)
  // Per turn, never cached, never stored: cilia's clock line, and the menu and
  // glossary hits. The clock line is left out when the client's own time
  // lines move into the turn context: the model reads one clock, not two.
  std::string clock_line;
  std::string volatile_text;
};

// kResponses: the OpenAI Responses API, for a Responses client passed
// through to an upstream that speaks it (docs/upstreams.md).
enum class Wire { kAnthropic, kOpenAI, kResponses };

struct AssembleOptions {
  Wire wire = Wire::kAnthropic;
  bool add_markers = true;  // false: cilia adds no cache_control (the client's stay)
  std::string ttl;          // "" (the 5-minute default) or "1h"
  // With a non-empty summary: index, into the history, of the first message
  // still sent raw; the ones before it are what the summary covers.
  size_t history_keep_from = 0;
};

struct Assembled {
  nlohmann::json body;
  int markers_added = 0;  // cache_control markers cilia added
  int markers_total = 0;  // all on the wire: the client's and cilia's (0 for OpenAI)
  std::vector<std::string> moved_lines;  // per-turn lines taken out of the client's system text
  // False when recall_tool was null or a client tool has the same name: then
  // calls to that name belong to the client and are not cilia's to run.
  bool recall_offered = false;
};

// client_body: the client's request already in the target wire format
// (Anthropic Messages, OpenAI Chat Completions or Responses). For Responses
// the stable blocks follow the client's `instructions` (its per-turn lines
// moved out) and the per-turn block ends the last user item of `input`;
// every other field and item stays as the client sent it. recall_tool: the built-in
// tool in the same format, appended after the client's tools (omitted when
// null). InvalidArgument when the body is not a request of that format.
Result<Assembled> Assemble(const nlohmann::json& client_body, const MemoryBlocks& memory,
                           const nlohmann::json& recall_tool, const AssembleOptions& options);

// True when a line of system text changes every turn, i.e. it is a clear
// current date/time line: "Current time: 2026-06-19 21:03", "当前时间：…",
// "Today is Friday, June 19", "【当前时间】…", a bare ISO timestamp. A line
// longer than 100 code points is never one.
bool IsPerTurnLine(std::string_view line);

// `text` without its per-turn lines, as the assembler keeps it in BP1: what
// tells whether a client's system prompt changed, and not only its clock.
std::string WithoutPerTurnLines(std::string_view text);

}  // namespace cilia::gateway
