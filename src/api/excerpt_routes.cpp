#include "api/excerpt_routes.h"

#include <fmt/format.h>

#include "api/route_support.h"
#include "core/json_read.h"
#include "memory/excerpts/excerpts.h"
#include "memory/excerpts/own_words.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr const char* kMemoryPath = R"(/v1/memories/([^/]+))";

Result<int64_t> MemoryId(const Request& req) {
  const std::string& id = req.captures[0];
  if (auto parsed = memory::ParseExcerptId(id)) return *parsed;
  return Status::NotFound(fmt::format("no memory \"{}\" (memory ids look like x_12)", id));
}

Result<json> MemoryJson(memory::Namespace& ns, const store::ExcerptRecord& e) { return memory::ExcerptJson(ns, e); }

// A handler for /v1/memories/{id}...: the id, the caller's namespace, and
// the body's Result<json> answered with 200.
template <typename F>
Result<Reply> ForMemory(memory::Registry& registry, const Request& req, F&& body) {
  CILIA_ASSIGN_OR_RETURN(const int64_t id, MemoryId(req));
  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) { return body(ns, id); });
}

}  // namespace

memory::Author AuthorOf(const Principal& who) {
  return (who.scopes & ScopeBit(Scope::kAdmin)) ? memory::Author::kOwner : memory::Author::kAgent;
}

Result<store::PageRequest> PageParams(const httplib::Request& req) {
  CILIA_ASSIGN_OR_RETURN(int64_t limit, IntParam(req, "limit", 100, 1, 1000));
  return PageOf(static_cast<int>(limit), req.has_param("cursor") ? req.get_param_value("cursor") : "");
}

Result<store::PageRequest> PageOf(int limit, std::string_view cursor) {
  store::PageRequest page;
  page.limit = limit;
  if (cursor.empty()) return page;
  int64_t before = 0;
  for (char c : cursor) {
    if (c < '0' || c > '9' || before > (INT64_MAX - 9) / 10) {
      return Status::InvalidArgument("cursor: not a cursor this API gave (use next_cursor of the page before)");
    }
    before = before * 10 + (c - '0');
  }
  page.before_id = before;
  return page;
}

json NextCursor(size_t returned, const store::PageRequest& page, int64_t last_id) {
  return returned == static_cast<size_t>(page.limit) ? json(std::to_string(last_id)) : json(nullptr);
}

void RegisterExcerptRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/memories", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const auto status, store::ParseFilter<memory::ExcerptStatus>(
                                                                req.http.has_param("status") ? req.http.get_param_value("status") : "active",
                                                                "status"));
                  CILIA_ASSIGN_OR_RETURN(const store::PageRequest page, PageParams(req.http));
                  std::optional<std::string> fact_key;
                  if (req.http.has_param("fact_key")) fact_key = req.http.get_param_value("fact_key");
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto list, memory::Excerpts(ns).List(status, page, fact_key));
                    CILIA_ASSIGN_OR_RETURN(json memories, memory::ExcerptListJson(ns, list));
                    return json{{"memories", std::move(memories)},
                                {"next_cursor", NextCursor(list.size(), page, list.empty() ? 0 : list.back().id)}};
                  });
                });

  server.Handle("POST", "/v1/memories", Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
                  CILIA_ASSIGN_OR_RETURN(std::shared_ptr<memory::Namespace> ns, registry.Get(req.who.name_space));
                  // Without a quote, the words are stored as a note first (memory/excerpts/own_words.h).
                  const bool admin = (req.who.scopes & ScopeBit(Scope::kAdmin)) != 0;
                  auto upserted = [&]() -> Result<memory::Excerpts::Upserted> {
                    if (memory::IsInOwnWords(body)) {
                      return memory::UpsertInOwnWords(*ns, body, AuthorOf(req.who),
                                                      {admin ? "owner" : "api", std::string(store::Name(AuthorOf(req.who)))});
                    }
                    CILIA_ASSIGN_OR_RETURN(memory::NewExcerpt item, memory::ParseNewExcerpt(body));
                    return memory::Excerpts(*ns).Upsert(item, AuthorOf(req.who));
                  }();
                  if (!upserted.ok()) return upserted.status();
                  CILIA_ASSIGN_OR_RETURN(json memory, MemoryJson(*ns, upserted->excerpt));
                  return Reply::Json({{"memory", std::move(memory)}, {"created", upserted->created}},
                                     upserted->created ? 201 : 200);
                });

  server.Handle("GET", kMemoryPath, Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForMemory(registry, req, [](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto e, memory::Excerpts(ns).Get(id));
                    if (!e) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                    return MemoryJson(ns, *e);
                  });
                });

  server.Handle("PATCH", kMemoryPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonBody(req.body));
                  CILIA_ASSIGN_OR_RETURN(auto patch, memory::ParseExcerptPatch(body));
                  return ForMemory(registry, req, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto e, memory::Excerpts(ns).Patch(id, patch, AuthorOf(req.who)));
                    return MemoryJson(ns, e);
                  });
                });

  server.Handle("DELETE", kMemoryPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForMemory(registry, req, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Excerpts(ns).Delete(id, AuthorOf(req.who)));
                    return json{{"deleted", true}, {"id", memory::ExcerptPublicId(id)}};
                  });
                });

  server.Handle("POST", std::string(kMemoryPath) + "/supersede", Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
                  return ForMemory(registry, req, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    memory::Excerpts excerpts(ns);
                    store::ExcerptRecord by;
                    if (body.contains("by")) {
                      CILIA_ASSIGN_OR_RETURN(std::string ref, cilia::json::RequiredString(body, "by", ""));
                      auto by_id = memory::ParseExcerptId(ref);
                      if (!by_id) return cilia::json::FieldError("by", "the id of the memory that supersedes this one");
                      CILIA_ASSIGN_OR_RETURN(auto found, excerpts.Get(*by_id));
                      if (!found) return Status::NotFound(fmt::format("by: no memory \"{}\"", ref));
                      by = std::move(*found);
                    } else {
                      CILIA_ASSIGN_OR_RETURN(memory::NewExcerpt item, memory::ParseNewExcerpt(body));
                      CILIA_ASSIGN_OR_RETURN(auto old, excerpts.Get(id));
                      if (!old) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                      if (!item.fact_key) item.fact_key = old->fact_key;
                      CILIA_ASSIGN_OR_RETURN(by, excerpts.Create(item, AuthorOf(req.who)));
                    }
                    CILIA_ASSIGN_OR_RETURN(auto old, excerpts.Supersede(id, by.id, AuthorOf(req.who)));
                    CILIA_ASSIGN_OR_RETURN(json old_json, MemoryJson(ns, old));
                    CILIA_ASSIGN_OR_RETURN(json by_json, MemoryJson(ns, by));
                    return json{{"memory", std::move(old_json)}, {"by", std::move(by_json)}};
                  });
                });

  struct Action {
    const char* name;
    Result<store::ExcerptRecord> (*apply)(memory::Excerpts&, int64_t, memory::Author);
  };
  static const Action kActions[] = {
      {"revive", [](memory::Excerpts& x, int64_t id, memory::Author who) { return x.Revive(id, who); }},
      {"archive", [](memory::Excerpts& x, int64_t id, memory::Author who) { return x.Archive(id, who); }},
      {"pin", [](memory::Excerpts& x, int64_t id, memory::Author who) { return x.SetPinned(id, true, who); }},
      {"unpin", [](memory::Excerpts& x, int64_t id, memory::Author who) { return x.SetPinned(id, false, who); }},
  };
  for (const Action& action : kActions) {
    server.Handle("POST", std::string(kMemoryPath) + "/" + action.name, Scope::kMemoryWrite,
                  [&registry, &action](const Request& req) -> Result<Reply> {
                    return ForMemory(registry, req, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                      memory::Excerpts excerpts(ns);
                      CILIA_ASSIGN_OR_RETURN(auto e, action.apply(excerpts, id, AuthorOf(req.who)));
                      return MemoryJson(ns, e);
                    });
                  });
  }

  server.Handle("GET", std::string(kMemoryPath) + "/history", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForMemory(registry, req, [](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto history, memory::Excerpts(ns).History(id));
                    if (history.empty()) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                    return json{{"id", memory::ExcerptPublicId(id)}, {"history", memory::HistoryJson(history)}};
                  });
                });
}

}  // namespace cilia::api
