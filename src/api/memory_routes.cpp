#include "api/memory_routes.h"

#include <fmt/format.h>

#include "api/http_util.h"
#include "memory/archive/archive.h"
#include "ingest/ingest_request.h"
#include "memory/recall/recall.h"
#include "store/message_repo.h"

namespace cilia::api {

namespace {

using nlohmann::json;

// A query parameter as a bounded integer; absent gives the fallback.
Result<int> IntParam(const httplib::Request& req, const char* name, int fallback, int lo, int hi) {
  if (!req.has_param(name)) return fallback;
  const std::string v = req.get_param_value(name);
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || n < lo || n > hi) {
    return Status::InvalidArgument(fmt::format("{}: must be an integer {}..{}, got \"{}\"", name, lo, hi, v));
  }
  return static_cast<int>(n);
}

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

// Runs `body(ns)` for the principal's namespace and answers its Result as
// JSON, or the error.
template <typename F>
void WithNamespace(memory::Registry& registry, const Principal& who, httplib::Response& res, F&& body) {
  auto ns = registry.Get(who.name_space);
  if (!ns.ok()) return ReplyError(res, ns.status());
  Result<json> out = body(**ns);
  if (!out.ok()) return ReplyError(res, out.status());
  ReplyJson(res, 200, *out);
}

}  // namespace

void RegisterMemoryRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("POST", "/v1/ingest/messages", Scope::kMemoryWrite,
                [&registry, &server](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto body = ParseJsonBody(req);
                  if (!body.ok()) return ReplyError(res, body.status());
                  auto parsed = ingest::ParseIngestRequest(*body);
                  if (!parsed.ok()) return ReplyError(res, parsed.status());
                  const bool sync = req.get_param_value("sync") == "true";
                  WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    memory::Archive archive(ns);
                    // Sync: stored and windowed in one commit.
                    CILIA_ASSIGN_OR_RETURN(auto outcome,
                                           sync ? archive.StoreAndIndex(*parsed) : archive.Store(*parsed));
                    server.metrics().Counter("cilia_ingest_messages_total").Add(outcome.stored);
                    if (!sync && outcome.stored > 0) registry.ScheduleIndexing(ns.name(), outcome.conversation_id);
                    server.metrics().Gauge("cilia_windows").Set(static_cast<double>(ns.WindowCount()));
                    return json{{"conversation_id", parsed->conversation_id},
                                {"stored", outcome.stored},
                                {"duplicates", outcome.duplicates}};
                  });
                });

  server.Handle("GET", "/v1/conversations", Scope::kMemoryRead,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto limit = IntParam(req, "limit", 50, 1, 500);
                  if (!limit.ok()) return ReplyError(res, limit.status());
                  std::optional<std::pair<int64_t, int64_t>> after;
                  if (req.has_param("cursor")) {
                    long long updated = 0, id = 0;
                    if (std::sscanf(req.get_param_value("cursor").c_str(), "%lld.%lld", &updated, &id) != 2) {
                      return ReplyError(res, Status::InvalidArgument("cursor: not a cursor this API gave out"));
                    }
                    after = {updated, id};
                  }
                  WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto convs, ns.store().Read([&](store::Database& db) {
                      return store::MessageRepo(db).ListConversations(*limit + 1, after);
                    }));
                    json list = json::array();
                    json next = nullptr;
                    for (size_t i = 0; i < convs.size(); ++i) {
                      if (static_cast<int>(i) == *limit) {
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
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  const std::string cid = req.matches[1];
                  auto limit = IntParam(req, "limit", 100, 1, 1000);
                  if (!limit.ok()) return ReplyError(res, limit.status());
                  auto from = IntParam(req, "cursor", 0, 0, INT32_MAX);
                  if (!from.ok()) return ReplyError(res, from.status());
                  // ?before=<cursor> (or "end"): the page that ends there; ?around=<id>: the
                  // page with that message in its middle.
                  std::optional<int64_t> before;
                  if (req.has_param("before") && req.get_param_value("before") == "end") {
                    before = INT64_MAX;
                  } else if (req.has_param("before")) {
                    auto seq = IntParam(req, "before", 0, 0, INT32_MAX);
                    if (!seq.ok()) return ReplyError(res, seq.status());
                    before = *seq;
                  }
                  const std::string around = req.get_param_value("around");
                  WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    return ns.store().Read([&](store::Database& db) -> Result<json> {
                      store::MessageRepo repo(db);
                      CILIA_ASSIGN_OR_RETURN(auto conv, repo.FindConversation(cid));
                      if (!conv) return Status::NotFound(fmt::format("conversation \"{}\" does not exist", cid));
                      std::vector<store::MessageRecord> msgs;
                      int64_t end_seq = INT64_MAX;  // where the page ends: seq of the next page's first message
                      if (!around.empty()) {
                        CILIA_ASSIGN_OR_RETURN(auto hit, memory::FindByPublicId(repo, conv->id, around));
                        if (!hit) {
                          return Status::NotFound(
                              fmt::format("around: no message \"{}\" in conversation \"{}\"", around, cid));
                        }
                        CILIA_ASSIGN_OR_RETURN(msgs, repo.MessagesBefore(conv->id, hit->seq, *limit / 2));
                        CILIA_ASSIGN_OR_RETURN(auto rest, repo.MessagesFrom(conv->id, hit->seq,
                                                                            *limit - static_cast<int>(msgs.size()) + 1));
                        msgs.insert(msgs.end(), rest.begin(), rest.end());
                      } else if (before) {
                        CILIA_ASSIGN_OR_RETURN(msgs, repo.MessagesBefore(conv->id, *before, *limit));
                        end_seq = *before;
                      } else {
                        CILIA_ASSIGN_OR_RETURN(msgs, repo.MessagesFrom(conv->id, *from, *limit + 1));
                      }
                      if (static_cast<int>(msgs.size()) > *limit) {
                        end_seq = msgs[*limit].seq;
                        msgs.resize(*limit);
                      }
                      json list = json::array();
                      for (const store::MessageRecord& m : msgs) list.push_back(MessageJson(m, cid, ns.tz()));
                      json next = nullptr;
                      if (end_seq != INT64_MAX) {
                        CILIA_ASSIGN_OR_RETURN(auto after, repo.MessagesFrom(conv->id, end_seq, 1));
                        if (!after.empty()) next = std::to_string(end_seq);
                      }
                      json prev = nullptr;
                      if (!msgs.empty()) {
                        CILIA_ASSIGN_OR_RETURN(auto earlier, repo.MessagesBefore(conv->id, msgs.front().seq, 1));
                        if (!earlier.empty()) prev = std::to_string(msgs.front().seq);
                      }
                      return json{{"conversation_id", cid},
                                  {"messages", std::move(list)},
                                  {"next_cursor", next},
                                  {"prev_cursor", prev}};
                    });
                  });
                });

  server.Handle("DELETE", R"(/v1/conversations/([^/]+)/messages/([^/]+))", Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  const std::string cid = req.matches[1];
                  const std::string mid = req.matches[2];
                  WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Archive(ns).ForgetMessage(cid, mid));
                    return json{{"deleted", true}, {"conversation_id", cid}, {"message_id", mid}};
                  });
                });

  server.Handle("DELETE", R"(/v1/conversations/([^/]+))", Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  const std::string cid = req.matches[1];
                  WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Archive(ns).ForgetConversation(cid));
                    return json{{"deleted", true}, {"conversation_id", cid}};
                  });
                });

  for (const bool count_access : {true, false}) {
    server.Handle("POST", count_access ? "/v1/recall" : "/v1/search", Scope::kMemoryRead,
                  [&registry, count_access](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                    auto body = ParseJsonBody(req);
                    if (!body.ok()) return ReplyError(res, body.status());
                    auto request = memory::ParseRecallRequest(*body, registry.tz(), registry.config().retrieval.default_limit,
                                                                registry.config().retrieval.max_limit);
                    if (!request.ok()) return ReplyError(res, request.status());
                    WithNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                      CILIA_ASSIGN_OR_RETURN(auto reply, memory::Recall(ns, *request, count_access));
                      return memory::ToJson(reply, ns.tz());
                    });
                  });
  }
}

}  // namespace cilia::api
