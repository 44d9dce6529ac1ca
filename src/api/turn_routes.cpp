#include "api/turn_routes.h"

#include "api/route_support.h"
#include "memory/turns.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr int kDefaultTurns = 50;
constexpr int kMaxTurns = 500;
constexpr int kDefaultStatsDays = 30;
constexpr int kMaxStatsDays = 3660;

json NullWhenEmpty(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

json CacheStatsJson(const memory::CacheStats& stats) {
  return {{"day", stats.day},
          {"model", stats.model},
          {"requests", stats.requests},
          {"input_tokens", stats.input_tokens},
          {"output_tokens", stats.output_tokens},
          {"cache_read_tokens", stats.cache_read_tokens},
          {"cache_write_tokens", stats.cache_write_tokens},
          {"hit_rate", stats.hit_rate}};
}

}  // namespace

json TurnJson(const store::TurnRecord& turn, const TimeZone& tz) {
  json sources = json::array();
  for (const auto& [conversation_id, message_id] : turn.sources) {
    sources.push_back({{"conversation_id", conversation_id}, {"message_id", message_id}});
  }
  return {{"id", turn.id},
          {"started_at", FormatRfc3339(turn.started_at, tz.OffsetMinutes(turn.started_at))},
          {"local_day", turn.local_day},
          {"conversation_id", NullWhenEmpty(turn.conversation_id)},
          {"endpoint", turn.endpoint},
          {"requested_model", turn.requested_model},
          {"upstream_model", turn.upstream_model},
          {"streamed", turn.streamed},
          {"http_status", turn.http_status},
          {"error", NullWhenEmpty(turn.error)},
          {"input_tokens", turn.input_tokens},
          {"output_tokens", turn.output_tokens},
          {"cache_read_tokens", turn.cache_read_tokens},
          {"cache_write_tokens", turn.cache_write_tokens},
          {"reasoning_tokens", turn.reasoning_tokens},
          {"first_byte_ms", turn.first_byte_ms < 0 ? json(nullptr) : json(turn.first_byte_ms)},
          {"total_ms", turn.total_ms},
          {"recall_rounds", turn.recall_rounds},
          {"injected", turn.injected},
          {"sources", std::move(sources)}};
}

void RegisterTurnRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/turns", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const int64_t limit, IntParam(req.http, "limit", kDefaultTurns, 1, kMaxTurns));
                  std::optional<int64_t> before_id;
                  if (req.http.has_param("cursor")) {
                    auto cursor = IntParam(req.http, "cursor", 0, 1, INT64_MAX);
                    if (!cursor.ok()) return Status::InvalidArgument("cursor: not a cursor this API gave out");
                    before_id = *cursor;
                  }
                  // An empty conversation_id= is no filter, as in a form left blank.
                  std::optional<std::string> conversation_id;
                  if (std::string id = req.http.get_param_value("conversation_id"); !id.empty()) conversation_id = id;
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(
                        auto turns, memory::ListTurns(ns, conversation_id, before_id, static_cast<int>(limit) + 1));
                    json next = nullptr;
                    if (turns.size() > static_cast<size_t>(limit)) {
                      turns.pop_back();
                      next = std::to_string(turns.back().id);
                    }
                    json list = json::array();
                    for (const store::TurnRecord& turn : turns) list.push_back(TurnJson(turn, ns.tz()));
                    return json{{"turns", std::move(list)}, {"next_cursor", std::move(next)}};
                  });
                });

  server.Handle("GET", "/v1/stats/cache", Scope::kAdmin,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const int64_t days,
                                         IntParam(req.http, "days", kDefaultStatsDays, 1, kMaxStatsDays));
                  // `days` local days, today included.
                  const std::string first_day =
                      AddDays(registry.tz().LocalDate(registry.clock().Now()), -static_cast<int>(days - 1)).ToString();
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto stats, memory::CacheStatsSince(ns, first_day));
                    json list = json::array();
                    for (const auto& day : stats) list.push_back(CacheStatsJson(day));
                    return json{{"first_day", first_day}, {"days", std::move(list)}};
                  });
                });
}

}  // namespace cilia::api
