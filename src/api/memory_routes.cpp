#include "api/memory_routes.h"

#include <fmt/format.h>

#include "api/http_util.h"
#include "api/route_support.h"
#include "memory/archive/archive.h"
#include "ingest/ingest_request.h"
#include "memory/recall/recall.h"

namespace cilia::api {

namespace {

using nlohmann::json;

json MessageJson(const store::MessageRecord& m, const std::string& conversation_id, const TimeZone& tz) {
  json content = json::parse(m.content, nullptr, false);
  return {{"id", memory::MessagePublicId(m)},
          {"conversation_id", conversation_id},
          {"role", m.role},
          {"name", m.name},
          {"content", content.is_discarded() ? json(m.text) : content},
          {"created_at", FormatRfc3339(m.created_at, tz.OffsetMinutes(m.created_at))},
          {"source", m.source}};
}

json ConversationJson(const store::ConversationRecord& c, const TimeZone& tz) {
  return {{"id", c.external_id},
          {"title", c.title},
          {"message_count", c.message_count},
          {"created_at", FormatRfc3339(c.created_at, tz.OffsetMinutes(c.created_at))},
          {"updated_at", FormatRfc3339(c.updated_at, tz.OffsetMinutes(c.updated_at))}};
}

}  // namespace

void RegisterMemoryRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("POST", "/v1/ingest/messages", Scope::kMemoryWrite,
                [&registry, &server](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
                  CILIA_ASSIGN_OR_RETURN(auto parsed, ingest::ParseIngestRequest(body));
                  const bool sync = req.http.get_param_value("sync") == "true";
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    memory::Archive archive(ns);
                    // Sync: stored and windowed in one commit.
                    CILIA_ASSIGN_OR_RETURN(auto outcome,
                                           sync ? archive.StoreAndIndex(parsed) : archive.Store(parsed));
                    server.metrics().Counter("cilia_ingest_messages_total").Add(outcome.stored);
                    if (!sync && outcome.stored > 0) registry.ScheduleIndexing(ns.name(), outcome.conversation_row);
                    server.metrics().Gauge("cilia_windows").Set(static_cast<double>(ns.WindowCount()));
                    return json{{"conversation_id", parsed.conversation_id},
                                {"stored", outcome.stored},
                                {"duplicates", outcome.duplicates}};
                  });
                });

  server.Handle("GET", "/v1/conversations", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const int64_t limit, IntParam(req.http, "limit", 50, 1, 500));
                  std::optional<std::pair<int64_t, int64_t>> after;
                  if (req.http.has_param("cursor")) {
                    long long updated = 0, id = 0;
                    if (std::sscanf(req.http.get_param_value("cursor").c_str(), "%lld.%lld", &updated, &id) != 2) {
                      return Status::InvalidArgument("cursor: not a cursor this API gave out");
                    }
                    after = {updated, id};
                  }
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto convs,
                                           memory::Archive(ns).Conversations(static_cast<int>(limit) + 1, after));
                    json list = json::array();
                    json next = nullptr;
                    for (size_t i = 0; i < convs.size(); ++i) {
                      if (static_cast<int64_t>(i) == limit) {
                        const auto& last = convs[i - 1];
                        next = fmt::format("{}.{}", last.updated_at, last.id);
                        break;
                      }
                      list.push_back(ConversationJson(convs[i], ns.tz()));
                    }
                    return json{{"conversations", std::move(list)}, {"next_cursor", next}};
                  });
                });

  server.Handle("GET", R"(/v1/conversations/([^/]+)/messages)", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& cid = req.captures[0];
                  memory::Archive::PageRequest page;
                  CILIA_ASSIGN_OR_RETURN(const int64_t limit, IntParam(req.http, "limit", 100, 1, 1000));
                  page.limit = static_cast<int>(limit);
                  CILIA_ASSIGN_OR_RETURN(page.from, IntParam(req.http, "cursor", 0, 0, INT32_MAX));
                  // ?before=<cursor> (or "end"): the page that ends there; ?around=<id>: the
                  // page with that message in its middle.
                  if (req.http.has_param("before") && req.http.get_param_value("before") == "end") {
                    page.before = INT64_MAX;
                  } else if (req.http.has_param("before")) {
                    CILIA_ASSIGN_OR_RETURN(page.before, IntParam(req.http, "before", 0, 0, INT32_MAX));
                  }
                  page.around = req.http.get_param_value("around");
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(memory::Archive::Page found, memory::Archive(ns).Messages(cid, page));
                    json list = json::array();
                    for (const store::MessageRecord& m : found.messages) list.push_back(MessageJson(m, cid, ns.tz()));
                    auto cursor = [](const std::optional<int64_t>& seq) { return seq ? json(std::to_string(*seq)) : json(nullptr); };
                    return json{{"conversation_id", cid},
                                {"messages", std::move(list)},
                                {"next_cursor", cursor(found.next_cursor)},
                                {"prev_cursor", cursor(found.prev_cursor)}};
                  });
                });

  server.Handle("DELETE", R"(/v1/conversations/([^/]+)/messages/([^/]+))", Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& cid = req.captures[0];
                  const std::string& mid = req.captures[1];
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Archive(ns).ForgetMessage(cid, mid));
                    return json{{"deleted", true}, {"conversation_id", cid}, {"message_id", mid}};
                  });
                });

  server.Handle("DELETE", R"(/v1/conversations/([^/]+))", Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& cid = req.captures[0];
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Archive(ns).ForgetConversation(cid));
                    return json{{"deleted", true}, {"conversation_id", cid}};
                  });
                });

  for (const bool count_access : {true, false}) {
    server.Handle("POST", count_access ? "/v1/recall" : "/v1/search", Scope::kMemoryRead,
                  [&registry, count_access](const Request& req) -> Result<Reply> {
                    CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
                    CILIA_ASSIGN_OR_RETURN(auto request,
                                           memory::ParseRecallRequest(body, registry.tz(),
                                                                      registry.config().retrieval.default_limit,
                                                                      registry.config().retrieval.max_limit));
                    return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                      CILIA_ASSIGN_OR_RETURN(auto reply, memory::Recall(ns, request, count_access));
                      return memory::ToJson(reply, ns.tz());
                    });
                  });
  }
}

}  // namespace cilia::api
