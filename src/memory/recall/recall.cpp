#include "memory/recall/recall.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "memory/recall/excerpt_recall.h"
#include "memory/recall/recall_stages.h"

namespace cilia::memory {

namespace {

Result<std::optional<UnixMs>> OptionalBound(const nlohmann::json& body, const char* field, const TimeZone& tz,
                                            BoundSide side) {
  if (!body.contains(field) || body[field].is_null()) return std::optional<UnixMs>();
  if (!body[field].is_string()) return Status::InvalidArgument(fmt::format("{}: must be a date or an RFC 3339 time", field));
  auto t = ParseTimeBound(body[field].get<std::string>(), tz, side);
  if (!t.ok()) return t.status().With(field);
  return std::optional<UnixMs>(*t);
}

}  // namespace

Result<RecallRequest> ParseRecallRequest(const nlohmann::json& body, const TimeZone& tz, int default_limit,
                                         int max_limit) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  RecallRequest r;
  r.limit = default_limit;
  if (!body.contains("query") || !body["query"].is_string()) {
    return Status::InvalidArgument("query: required, a non-empty string");
  }
  r.query = body["query"].get<std::string>();
  if (r.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("query: must not be empty");
  }
  // SQLite's full-text syntax has no NUL: the exact lane would fail on it.
  if (r.query.find('\0') != std::string::npos) return Status::InvalidArgument("query: must not contain NUL (U+0000)");
  if (body.contains("limit") && !body["limit"].is_null()) {
    if (!body["limit"].is_number_integer()) {
      return Status::InvalidArgument(fmt::format("limit: must be an integer 1..{}", max_limit));
    }
    int64_t limit = body["limit"].get<int64_t>();
    if (limit < 1 || limit > max_limit) {
      return Status::InvalidArgument(fmt::format("limit: must be 1..{}, got {}", max_limit, limit));
    }
    r.limit = static_cast<int>(limit);
  }
  CILIA_ASSIGN_OR_RETURN(r.after, OptionalBound(body, "after", tz, BoundSide::kAfter));
  CILIA_ASSIGN_OR_RETURN(r.before, OptionalBound(body, "before", tz, BoundSide::kBefore));
  if (r.after && r.before && *r.after > *r.before) {
    return Status::InvalidArgument("after: must not be later than before");
  }
  if (body.contains("conversation_id") && !body["conversation_id"].is_null()) {
    if (!body["conversation_id"].is_string()) return Status::InvalidArgument("conversation_id: must be a string");
    r.conversation_id = body["conversation_id"].get<std::string>();
  }
  if (body.contains("exact") && !body["exact"].is_null()) {
    if (!body["exact"].is_boolean()) return Status::InvalidArgument("exact: must be true or false");
    r.exact = body["exact"].get<bool>();
  }
  if (body.contains("now") && !body["now"].is_null()) {
    if (!body["now"].is_string()) return Status::InvalidArgument("now: must be an RFC 3339 time");
    auto t = ParseRfc3339(body["now"].get<std::string>());
    if (!t.ok()) return t.status().With("now");
    r.now = *t;
  }
  return r;
}

nlohmann::json ToJson(const RecallReply& reply, const TimeZone& tz) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : reply.results) {
    results.push_back({{"layer", r.layer},
                       {"id", r.id},
                       {"conversation_id", r.conversation_id},
                       {"message_ids", r.message_ids},
                       {"created_at", FormatRfc3339(r.created_at, tz.OffsetMinutes(r.created_at))},
                       {"text", r.text},
                       {"score", std::round(r.score * 10000) / 10000}});
  }
  return {{"results", std::move(results)}, {"took_ms", std::round(reply.took_ms * 100) / 100}};
}

Result<RecallReply> Recall(Namespace& ns, const RecallRequest& req, bool count_access) {
  const auto started = std::chrono::steady_clock::now();
  const index::RankingOptions& ranking = ns.options().ranking;
  RecallReply reply;
  auto done = [&]() -> Result<RecallReply> {
    reply.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    return std::move(reply);
  };

  const UnixMs now = req.now.value_or(ns.clock().Now());
  RecallPlan plan = PlanRecall(req, now, ns.tz());
  CILIA_ASSIGN_OR_RETURN(AllowedWindows allowed, FindAllowed(ns, plan));
  if (allowed.none() && !plan.span_only && !plan.hint.phrases.empty() && req.time_words_filter) {
    // Nothing at all was said in the named time ("camping in June" asked
    // when no June holds any chat): the asker means another one, so the time
    // words only raise what lies in their span.
    RecallRequest unbound = req;
    unbound.time_words_filter = false;
    plan = PlanRecall(unbound, now, ns.tz());
    CILIA_ASSIGN_OR_RETURN(allowed, FindAllowed(ns, plan));
  }
  if (allowed.none()) return done();
  CILIA_ASSIGN_OR_RETURN(LaneHits lanes, RunLanes(ns, plan, allowed));
  const std::vector<index::FusedHit> ranked =
      RankHits(plan, lanes, ranking, [&ns](int64_t id) { return ns.GetWindowMeta(id); });
  // Statements first: a few groups past the limit are read, so that one
  // below a question about it can take its place.
  const bool weigh = !plan.exact && !plan.span_only;
  CILIA_ASSIGN_OR_RETURN(Selection selection, SelectGroups(ns, plan, allowed, ranked, weigh ? kAskedSlack : 0));
  if (weigh) WeighAsked(selection, QueryTerms(ns, plan.lexical_text), plan.limit);
  CILIA_ASSIGN_OR_RETURN(std::vector<RecallResult> excerpts,
                         RecallExcerpts(ns, ExcerptQueryFor(plan, allowed, lanes, ranking)));
  std::vector<RecallResult> windows = RenderSelection(selection, ns.tz());
  reply.results = plan.span_only ? JoinSpanResults(std::move(windows), std::move(excerpts), plan.limit,
                                                   ranking.per_conversation_day_cap, ns.tz())
                                 : JoinResults(std::move(windows), std::move(excerpts), plan.limit);
  if (count_access) CILIA_RETURN_IF_ERROR(RecordRecall(ns, reply.results, selection, req.query));
  return done();
}

}  // namespace cilia::memory
