#include "gateway/recall_tool.h"

#include <fmt/format.h>

#include <algorithm>

#include "memory/recall/read_around.h"
#include "text/utf8.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

constexpr std::string_view kDescription =
    "Search the long-term memory of past conversations with this user and return the matching "
    "passages verbatim, with their dates and speakers. Use it when the user refers to something "
    "said before, or when a line under \"Possibly relevant memories\" looks related and you need "
    "the full text. Time words in the query (\"yesterday\", \"last week\", \"上周\") are understood. "
    "Each result begins with its id (w_12, x_3): call again with that id as `around` to read what "
    "was said just before and after it.";

json Parameters() {
  return {
      {"type", "object"},
      {"properties",
       {{"query", {{"type", "string"}, {"description", "What to look for, in the user's own words."}}},
        {"around",
         {{"type", "string"},
          {"description", "Instead of a query: a result's id (w_12, x_3), to read the passage with what came "
                          "just before and after it."}}},
        {"after", {{"type", "string"}, {"description", "Only memories on or after this date (YYYY-MM-DD)."}}},
        {"before", {{"type", "string"}, {"description", "Only memories on or before this date (YYYY-MM-DD)."}}},
        {"exact", {{"type", "boolean"}, {"description", "Only passages containing the query text verbatim."}}}}},
  };
}

RecallToolOutcome Failed(std::string why) {
  RecallToolOutcome outcome;
  outcome.ok = false;
  outcome.text = "recall failed: " + std::move(why);
  return outcome;
}

RecallToolOutcome Found(std::string query, const std::vector<memory::RecallResult>& results, size_t max_chars) {
  RecallToolOutcome outcome;
  outcome.query = std::move(query);
  outcome.results = static_cast<int>(results.size());
  for (const memory::RecallResult& r : results) {
    for (const std::string& id : r.message_ids) outcome.sources.emplace_back(r.conversation_id, id);
  }
  outcome.text = RenderRecallResults(results, max_chars);
  return outcome;
}

// `around`: the passage a result's id names, with its neighbours.
RecallToolOutcome ReadAround(memory::Namespace& ns, const json& around, size_t max_chars) {
  if (!around.is_string() || around.get_ref<const std::string&>().empty()) {
    return Failed("around: must be a result's id such as w_12 or x_3");
  }
  const std::string& id = around.get_ref<const std::string&>();
  auto passages = memory::ReadAround(ns, id);
  if (!passages.ok()) return Failed(passages.status().message());
  return Found("around " + id, *passages, max_chars);
}

}  // namespace

json RecallToolDefinition(Wire wire) {
  if (wire == Wire::kOpenAI) {
    return {{"type", "function"},
            {"function", {{"name", kRecallToolName}, {"description", kDescription}, {"parameters", Parameters()}}}};
  }
  if (wire == Wire::kResponses) {
    return {{"type", "function"},
            {"name", kRecallToolName},
            {"description", kDescription},
            {"parameters", Parameters()}};
  }
  return {{"name", kRecallToolName}, {"description", kDescription}, {"input_schema", Parameters()}};
}

std::string RenderRecallResults(const std::vector<memory::RecallResult>& results, size_t max_chars) {
  if (results.empty()) return "No stored memory matches this query.";
  std::string out;
  size_t used = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const memory::RecallResult& r = results[i];
    std::string entry = fmt::format("{}{} {}", out.empty() ? "" : "\n\n", r.id, r.text);
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
  json args = json::parse(arguments.empty() ? std::string_view("{}") : arguments, nullptr, false);
  if (!args.is_object()) return Failed("the arguments must be a JSON object such as {\"query\": \"...\"}");
  if (args.contains("around")) return ReadAround(ns, args["around"], options.max_chars);
  args.erase("now");              // the turn's present, not the model's idea of it
  args.erase("conversation_id");  // the model is shown no conversation ids: one it names is made up
  if (!args.contains("limit")) args["limit"] = options.default_limit;
  // Room for the results left out as already seen.
  constexpr int kSeenAllowance = 3;
  auto request = memory::ParseRecallRequest(args, ns.tz(), options.default_limit, ns.options().max_limit);
  if (!request.ok()) return Failed(request.status().message() + " (give `query`, or `around` with a result's id)");
  request->now = options.now;
  const size_t wanted = static_cast<size_t>(request->limit);
  if (options.already_seen) request->limit = std::min(request->limit + kSeenAllowance, ns.options().max_limit);
  auto reply = memory::Recall(ns, *request, /*count_access=*/true);
  if (!reply.ok()) return Failed(reply.status().message());
  if (options.already_seen) {
    std::erase_if(reply->results, options.already_seen);
    if (reply->results.size() > wanted) reply->results.resize(wanted);
  }
  return Found(request->query, reply->results, options.max_chars);
}

}  // namespace cilia::gateway
