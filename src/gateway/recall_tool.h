// The built-in `recall` tool: its definition in each wire format, and running
// a call to it against the archive (docs/gateway.md, "The recall tool").
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.h"
#include "gateway/prompt_assembler.h"
#include "memory/namespace.h"
#include "memory/recall/recall.h"

namespace cilia::gateway {

inline constexpr std::string_view kRecallToolName = "recall";

// {"type":"function","function":{name, description, parameters}} for OpenAI,
// {name, description, input_schema} for Anthropic. The same bytes every call.
nlohmann::json RecallToolDefinition(Wire wire);

struct RecallToolOptions {
  int default_limit = 5;
  size_t max_chars = 6000;  // of the whole result, in code points
  UnixMs now = 0;           // the turn's present, for time words and relative dates
  // Results the model has in front of it already (the part of this
  // conversation the client sends) are left out.
  std::function<bool(const memory::RecallResult&)> already_seen;
};

struct RecallToolOutcome {
  std::string text;  // what the model gets back as the tool result
  std::string query;
  int results = 0;
  bool ok = true;  // false: the arguments were bad or recall failed; `text` says why, for the model
  // (conversation id, message id) of every message the result quotes.
  std::vector<std::pair<std::string, std::string>> sources;
};

// Runs one call. `arguments` is the JSON text the model wrote: a query (with
// after/before/exact), or `around`, a result's id to read on around. A query
// counts as a real recall (access counts go up). Never fails: a bad call becomes a result
// telling the model what was wrong, so it can try again.
RecallToolOutcome RunRecallTool(memory::Namespace& ns, std::string_view arguments, const RecallToolOptions& options);

// The text of recall results as the model reads them: each result's short id
// (w_<n>, x_<n>, which `around` takes) and its verbatim text with date, title
// and speakers; no conversation or message ids, which cost tokens and no tool
// takes (they stay in the turn record). Cut at `max_chars` between results
// where possible.
std::string RenderRecallResults(const std::vector<memory::RecallResult>& results, size_t max_chars);

}  // namespace cilia::gateway
