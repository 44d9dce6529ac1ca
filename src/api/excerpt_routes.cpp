#include "api/excerpt_routes.h"

#include <fmt/format.h>

#include "api/route_support.h"
#include "memory/excerpts/excerpts.h"
#include "memory/excerpts/own_words.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr const char* kMemoryPath = R"(/v1/memories/([^/]+))";

Result<int64_t> MemoryId(const httplib::Request& req) {
  const std::string id = req.matches[1];
  if (auto parsed = memory::ParseExcerptId(id)) return *parsed;
  return Status::NotFound(fmt::format("no memory \"{}\" (memory ids look like x_12)", id));
}

Result<json> MemoryJson(memory::Namespace& ns, const store::ExcerptRecord& e) { return memory::ExcerptJson(ns, e); }

// A handler for /v1/memories/{id}...: the id, the caller's namespace, and
// the body's Result<json> answered with 200.
template <typename F>
void ForMemory(memory::Registry& registry, const httplib::Request& req, httplib::Response& res, const Principal& who,
               F&& body) {
  auto id = MemoryId(req);
  if (!id.ok()) return ReplyError(res, id.status());
  ReplyForNamespace(registry, who, res, [&](memory::Namespace& ns) { return body(ns, *id); });
}

}  // namespace

const char* AuthorOf(const Principal& who) {
  return (who.scopes & ScopeBit(Scope::kAdmin)) ? memory::kByOwner : memory::kByAgent;
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
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  std::string status = req.has_param("status") ? req.get_param_value("status") : "active";
                  if (status != "active" && status != "superseded" && status != "archived" && status != "all") {
                    return ReplyError(res, Status::InvalidArgument(
                                               "status: one of active, superseded, archived, all"));
                  }
                  if (status == "all") status.clear();
                  auto page = PageParams(req);
                  if (!page.ok()) return ReplyError(res, page.status());
                  std::optional<std::string> fact_key;
                  if (req.has_param("fact_key")) fact_key = req.get_param_value("fact_key");
                  ReplyForNamespace(registry, who, res, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto list, ns.store().Read([&](store::Database& db) {
                      return store::ExcerptRepo(db).List(status, *page, fact_key);
                    }));
                    CILIA_ASSIGN_OR_RETURN(json memories, memory::ExcerptListJson(ns, list));
                    return json{{"memories", std::move(memories)},
                                {"next_cursor", NextCursor(list.size(), *page, list.empty() ? 0 : list.back().id)}};
                  });
                });

  server.Handle("POST", "/v1/memories", Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto body = ParseJsonBody(req);
                  if (!body.ok()) return ReplyError(res, body.status());
                  auto ns = registry.Get(who.name_space);
                  if (!ns.ok()) return ReplyError(res, ns.status());
                  // Without a quote, the words are stored as a note first (memory/excerpts/own_words.h).
                  const bool admin = (who.scopes & ScopeBit(Scope::kAdmin)) != 0;
                  auto upserted = [&]() -> Result<memory::Excerpts::Upserted> {
                    if (memory::IsInOwnWords(*body)) {
                      return memory::UpsertInOwnWords(**ns, *body, AuthorOf(who), {admin ? "owner" : "api", AuthorOf(who)});
                    }
                    CILIA_ASSIGN_OR_RETURN(memory::NewExcerpt item, memory::ParseNewExcerpt(*body));
                    return memory::Excerpts(**ns).Upsert(item, AuthorOf(who));
                  }();
                  if (!upserted.ok()) return ReplyError(res, upserted.status());
                  auto memory = MemoryJson(**ns, upserted->excerpt);
                  if (!memory.ok()) return ReplyError(res, memory.status());
                  ReplyJson(res, upserted->created ? 201 : 200, {{"memory", *memory}, {"created", upserted->created}});
                });

  server.Handle("GET", kMemoryPath, Scope::kMemoryRead,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  ForMemory(registry, req, res, who, [](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto e, memory::Excerpts(ns).Get(id));
                    if (!e) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                    return MemoryJson(ns, *e);
                  });
                });

  server.Handle("PATCH", kMemoryPath, Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto body = ParseJsonBody(req);
                  if (!body.ok()) return ReplyError(res, body.status());
                  auto patch = memory::ParseExcerptPatch(*body);
                  if (!patch.ok()) return ReplyError(res, patch.status());
                  ForMemory(registry, req, res, who, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto e, memory::Excerpts(ns).Patch(id, *patch, AuthorOf(who)));
                    return MemoryJson(ns, e);
                  });
                });

  server.Handle("DELETE", kMemoryPath, Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  ForMemory(registry, req, res, who, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_RETURN_IF_ERROR(memory::Excerpts(ns).Delete(id, AuthorOf(who)));
                    return json{{"deleted", true}, {"id", memory::ExcerptPublicId(id)}};
                  });
                });

  server.Handle("POST", std::string(kMemoryPath) + "/supersede", Scope::kMemoryWrite,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  auto body = ParseJsonBody(req);
                  if (!body.ok()) return ReplyError(res, body.status());
                  ForMemory(registry, req, res, who, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                    memory::Excerpts excerpts(ns);
                    store::ExcerptRecord by;
                    if (body->is_object() && body->contains("by")) {
                      const json& ref = (*body)["by"];
                      auto by_id = ref.is_string() ? memory::ParseExcerptId(ref.get<std::string>()) : std::nullopt;
                      if (!by_id) return Status::InvalidArgument("by: the id of the memory that supersedes this one");
                      CILIA_ASSIGN_OR_RETURN(auto found, excerpts.Get(*by_id));
                      if (!found) return Status::NotFound(fmt::format("by: no memory \"{}\"", ref.get<std::string>()));
                      by = std::move(*found);
                    } else {
                      CILIA_ASSIGN_OR_RETURN(memory::NewExcerpt item, memory::ParseNewExcerpt(*body));
                      CILIA_ASSIGN_OR_RETURN(auto old, excerpts.Get(id));
                      if (!old) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                      if (!item.fact_key) item.fact_key = old->fact_key;
                      CILIA_ASSIGN_OR_RETURN(by, excerpts.Create(item, AuthorOf(who)));
                    }
                    CILIA_ASSIGN_OR_RETURN(auto old, excerpts.Supersede(id, by.id, AuthorOf(who)));
                    CILIA_ASSIGN_OR_RETURN(json old_json, MemoryJson(ns, old));
                    CILIA_ASSIGN_OR_RETURN(json by_json, MemoryJson(ns, by));
                    return json{{"memory", std::move(old_json)}, {"by", std::move(by_json)}};
                  });
                });

  struct Action {
    const char* name;
    Result<store::ExcerptRecord> (*apply)(memory::Excerpts&, int64_t, const std::string&);
  };
  static const Action kActions[] = {
      {"revive", [](memory::Excerpts& x, int64_t id, const std::string& who) { return x.Revive(id, who); }},
      {"archive", [](memory::Excerpts& x, int64_t id, const std::string& who) { return x.Archive(id, who); }},
      {"pin", [](memory::Excerpts& x, int64_t id, const std::string& who) { return x.SetPinned(id, true, who); }},
      {"unpin", [](memory::Excerpts& x, int64_t id, const std::string& who) { return x.SetPinned(id, false, who); }},
  };
  for (const Action& action : kActions) {
    server.Handle("POST", std::string(kMemoryPath) + "/" + action.name, Scope::kMemoryWrite,
                  [&registry, &action](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                    ForMemory(registry, req, res, who, [&](memory::Namespace& ns, int64_t id) -> Result<json> {
                      memory::Excerpts excerpts(ns);
                      CILIA_ASSIGN_OR_RETURN(auto e, action.apply(excerpts, id, AuthorOf(who)));
                      return MemoryJson(ns, e);
                    });
                  });
  }

  server.Handle("GET", std::string(kMemoryPath) + "/history", Scope::kMemoryRead,
                [&registry](const httplib::Request& req, httplib::Response& res, const Principal& who) {
                  ForMemory(registry, req, res, who, [](memory::Namespace& ns, int64_t id) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto history, memory::Excerpts(ns).History(id));
                    if (history.empty()) return Status::NotFound(fmt::format("no memory \"{}\"", memory::ExcerptPublicId(id)));
                    return json{{"id", memory::ExcerptPublicId(id)}, {"history", memory::HistoryJson(history)}};
                  });
                });
}

}  // namespace cilia::api
