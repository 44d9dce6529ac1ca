#include "gateway/recall_tool.h"

#include <fmt/format.h>

#include <algorithm>

#include "text/utf8.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

constexpr std::string_view kDescription =
    "Search the long-term memory of past conversations with this user and return the matching "
    "passages verbatim, with their dates and speakers. Use it when the user refers to something "
    "said before, or when a line under \"Possibly relevant memories\" looks related and you need "
    "the full text. Time words in the query (\"yesterday\", \"last week\", \"上周\") are understood.";

json Parameters() {
  return {
      {"type", "object"},
      {"properties",
       {{"query", {{"type", "string"}, {"description", "What to look for, in the user's own words."}}},
        {"after", {{"type", "string"}, {"description", "Only memories on or after this date (YYYY-MM-DD)."}}},
        {"before", {{"type", "string"}, {"description", "Only memories on or before this date (YYYY-MM-DD)."}}},
        {"conversation_id", {{"type", "string"}, {"description", "Only this conversation."}}},
        {"exact", {{"type", "boolean"}, {"description", "Only passages containing the query text verbatim."}}}}},
      {"required", json::array({"query"})},
  };
}

}  // namespace

json RecallToolDefinition(Wire wire) {
  if (wire == Wire::kOpenAI) {
    return {{"type", "function"},
            {"function", {{"name", kRecallToolName}, {"description", kDescription}, {"parameters", Parameters()}}}};
  }
  return {{"name", kRecallToolName}, {"description", kDescription}, {"input_schema", Parameters()}};
}

std::string RenderRecallResults(const std::vector<memory::RecallResult>& results, size_t max_chars) {
  if (results.empty()) return "No stored memory matches this query.";
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const memory::RecallResult& r = results[i];
    std::string ids;
    for (const std::string& id : r.message_ids) ids += (ids.empty() ? "" : ", ") + id;
    std::string entry = fmt::format("{}{}\n(conversation {}, messages {})", out.empty() ? "" : "\n\n", r.text,
                                    r.conversation_id, ids);
    const size_t length = text::CodePointCount(entry);
    if (used + length > max_chars) {
      // The first result is cut rather than dropped: a long window is still the best answer.
      size_t left_out = results.size() - i;
      if (i == 0) {
        out = text::SubstrCodePoints(entry, 0, max_chars) + "…";
        --left_out;
      }
      if (left_out > 0) out += fmt::format("\n\n({} more results left out for length)", left_out);
      break;
    }
    out += entry;
    used += length;
  }
  return out;
}

RecallToolOutcome RunRecallTool(memory::Namespace& ns, std::string_view arguments, const RecallToolOptions& options) {
  RecallToolOutcome outcome;
  json args = json::parse(arguments.empty() ? std::string_view("{}") : arguments, nullptr, false);
  if (!args.is_object()) {
    outcome.ok = false;
    outcome.text = "recall failed: the arguments must be a JSON object such as {\"query\": \"...\"}";
    return outcome;
  }
  args.erase("now");  // the turn's present, not the model's idea of it
  if (!args.contains("limit")) args["limit"] = options.default_limit;
  // Room for the results left out as already seen.
  constexpr int kSeenAllowance = 3;
  auto request = memory::ParseRecallRequest(args, ns.tz(), options.default_limit, ns.options().max_limit);
  if (!request.ok()) {
    outcome.ok = false;
    outcome.text = "recall failed: " + request.status().message();
    return outcome;
  }
  request->now = options.now;
  const size_t wanted = static_cast<size_t>(request->limit);
  if (options.already_seen) request->limit = std::min(request->limit + kSeenAllowance, ns.options().max_limit);
  outcome.query = request->query;
  auto reply = memory::Recall(ns, *request, /*count_access=*/true);
  if (!reply.ok()) {
    outcome.ok = false;
    outcome.text = "recall failed: " + reply.status().message();
    return outcome;
  }
  if (options.already_seen) {
    std::erase_if(reply->results, options.already_seen);
    if (reply->results.size() > wanted) reply->results.resize(wanted);
  }
  outcome.results = static_cast<int>(reply->results.size());
  for (const memory::RecallResult& r : reply->results) {
    for (const std::string& id : r.message_ids) outcome.sources.emplace_back(r.conversation_id, id);
  }
  outcome.text = RenderRecallResults(reply->results, options.max_chars);
  return outcome;
}

}  // namespace cilia::gateway
