#include "api/glossary_routes.h"

#include <fmt/format.h>

#include "api/route_support.h"
#include "core/json_read.h"
#include "memory/recall/boot.h"
#include "memory/upkeep/precious.h"
#include "memory/recall/glossary.h"

namespace cilia::api {

namespace {

using nlohmann::json;

constexpr const char* kTermPath = R"(/v1/glossary/([^/]+))";

Status NoSuchTerm(const std::string& term) { return Status::NotFound(fmt::format("no glossary term \"{}\"", term)); }

std::string Trim(std::string_view text) {
  const char* space = " \t";
  size_t begin = text.find_first_not_of(space);
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(space) - begin + 1));
}

// The entry a PUT body describes for `term`.
Result<store::GlossaryEntry> EntryOf(const Request& req, const std::string& term) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
  store::GlossaryEntry entry;
  entry.term = Trim(term);
  CILIA_ASSIGN_OR_RETURN(entry.definition, cilia::json::RequiredString(body, "definition", ""));
  CILIA_ASSIGN_OR_RETURN(auto aliases, cilia::json::OptionalStringArray(body, "aliases", ""));
  for (const std::string& alias : aliases) {
    std::string trimmed = Trim(alias);
    if (!trimmed.empty() && std::find(entry.aliases.begin(), entry.aliases.end(), trimmed) == entry.aliases.end()) {
      entry.aliases.push_back(std::move(trimmed));
    }
  }
  CILIA_RETURN_IF_ERROR(store::CheckGlossaryEntry(entry));
  return entry;
}

Result<memory::PinRequest> PinOf(const Request& req) {
  CILIA_ASSIGN_OR_RETURN(json body, ParseJsonObjectBody(req.body));
  memory::PinRequest pin;
  CILIA_ASSIGN_OR_RETURN(pin.conversation_id, cilia::json::RequiredString(body, "conversation_id", ""));
  CILIA_ASSIGN_OR_RETURN(pin.message_ids, cilia::json::OptionalStringArray(body, "message_ids", ""));
  CILIA_ASSIGN_OR_RETURN(pin.content, cilia::json::OptionalString(body, "content", ""));
  CILIA_ASSIGN_OR_RETURN(std::string author, cilia::json::OptionalString(body, "author", ""));
  if (!author.empty()) {  // else the owner
    CILIA_ASSIGN_OR_RETURN(pin.author, store::Parse<store::Author>(author, "author"));
  }
  return pin;
}

}  // namespace

void RegisterGlossaryRoutes(ApiServer& server, memory::Registry& registry) {
  server.Handle("GET", "/v1/glossary", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto entries, memory::ListGlossary(ns));
                    json terms = json::array();
                    for (const auto& e : entries) terms.push_back(memory::GlossaryJson(e));
                    return json{{"terms", std::move(terms)}};
                  });
                });

  server.Handle("GET", kTermPath, Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& term = req.captures[0];
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto entry, memory::FindGlossaryTerm(ns, term));
                    if (!entry) return NoSuchTerm(term);
                    return memory::GlossaryJson(*entry);
                  });
                });

  server.Handle("PUT", kTermPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const store::GlossaryEntry entry, EntryOf(req, req.captures[0]));
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto stored, memory::PutGlossaryTerm(ns, entry));
                    return memory::GlossaryJson(stored);
                  });
                });

  server.Handle("DELETE", kTermPath, Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  const std::string& term = req.captures[0];
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(bool deleted, memory::DeleteGlossaryTerm(ns, term));
                    if (!deleted) return NoSuchTerm(term);
                    return json{{"deleted", true}, {"term", term}};
                  });
                });

  server.Handle("GET", "/v1/precious", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) -> Result<json> {
                    CILIA_ASSIGN_OR_RETURN(auto passages, memory::ListPrecious(ns));
                    json list = json::array();
                    for (const auto& p : passages) list.push_back(memory::PreciousJson(p));
                    return json{{"precious", std::move(list)}};
                  });
                });

  server.Handle("POST", "/v1/precious", Scope::kMemoryWrite,
                [&registry](const Request& req) -> Result<Reply> {
                  CILIA_ASSIGN_OR_RETURN(const memory::PinRequest pin, PinOf(req));
                  CILIA_ASSIGN_OR_RETURN(std::shared_ptr<memory::Namespace> ns, registry.Get(req.who.name_space));
                  CILIA_ASSIGN_OR_RETURN(auto passage, memory::Pin(*ns, pin, ns->clock().Now()));
                  return Reply::Json(memory::PreciousJson(passage), 201);
                });

  server.Handle("GET", "/v1/boot", Scope::kMemoryRead,
                [&registry](const Request& req) -> Result<Reply> {
                  return ForNamespace(registry, req.who, [&](memory::Namespace& ns) {
                    return memory::BootPack(ns, ns.clock().Now());
                  });
                });
}

}  // namespace cilia::api
