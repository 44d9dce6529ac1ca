#include "api/mcp/curation_tools.h"

#include <fmt/format.h>

#include "api/excerpt_routes.h"
#include "api/mcp/tool_support.h"
#include "api/profile_routes.h"
#include "core/time.h"
#include "memory/excerpts/candidates.h"
#include "memory/recall/boot.h"
#include "memory/recall/glossary.h"
#include "memory/recall/profile.h"
#include "memory/upkeep/digests.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

const json kNullableObject = {"object", "null"};

json DocumentSchema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}}, {"content", {{"type", "string"}}}, {"updated_at", {{"type", "string"}}}}},
          {"required", {"name", "content"}}};
}

std::string DocumentText(const json& document) {
  return fmt::format("## {}\n{}\n", document.value("name", ""), document.value("content", ""));
}

std::string Trimmed(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t");
  return begin == std::string::npos ? "" : text.substr(begin, text.find_last_not_of(" \t") - begin + 1);
}

void AddGlossaryAndProfile(ToolRegistry& tools) {
  tools.Add({"glossary_set", "Define a glossary term",
             "Define a term the owner uses (a name, a nickname, an in-joke, a project) so every later turn that "
             "mentions it, or one of its aliases, is given the definition. Setting a term again replaces its "
             "definition and aliases.",
             Scope::kMemoryWrite, ToolHints{false, true, true},
             ObjectSchema({{"term", Field("string", "The term as the owner writes it, e.g. Mochi.",
                                          {{"minLength", 1}, {"maxLength", 100}})},
                           {"definition", Field("string", "What it means, in a sentence or two.",
                                                {{"minLength", 1}, {"maxLength", 2000}})},
                           {"aliases", Field("array", "Other spellings or names for it, e.g. [\"糯米\"].",
                                             {{"items", {{"type", "string"}}}, {"maxItems", 20}})}},
                          {"term", "definition"}),
             {{"type", "object"},
              {"properties",
               {{"term", {{"type", "string"}}},
                {"aliases", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                {"definition", {{"type", "string"}}}}},
              {"required", {"term", "aliases", "definition"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               store::GlossaryEntry entry;
               entry.term = Trimmed(StringArg(call.arguments, "term"));
               entry.definition = StringArg(call.arguments, "definition");
               for (const json& alias : call.arguments.value("aliases", json::array())) {
                 std::string trimmed = Trimmed(alias.get<std::string>());
                 if (!trimmed.empty() && std::find(entry.aliases.begin(), entry.aliases.end(), trimmed) == entry.aliases.end()) {
                   entry.aliases.push_back(std::move(trimmed));
                 }
               }
               CILIA_RETURN_IF_ERROR(store::CheckGlossaryEntry(entry));
               CILIA_ASSIGN_OR_RETURN(auto stored, memory::PutGlossaryTerm(call.ns, entry));
               json out = memory::GlossaryJson(stored);
               std::string text = fmt::format("Glossary: {}: {}", stored.term, stored.definition);
               if (!stored.aliases.empty()) text += fmt::format(" (also: {})", fmt::join(stored.aliases, ", "));
               return ToolOutput{std::move(text), std::move(out)};
             }});

  tools.Add({"profile_get", "Read the profile",
             "Read the owner's profile documents (persona, user, relationship, rules, and any others): the "
             "hand-kept text every chat turn starts from. Give a name for one document.",
             Scope::kMemoryRead, ToolHints{true, false, true},
             ObjectSchema({{"name", Field("string", "One document's name, e.g. user; omit for all.",
                                          {{"minLength", 1}, {"maxLength", 64}})}}),
             {{"type", "object"},
              {"properties", {{"documents", {{"type", "array"}, {"items", DocumentSchema()}}}}},
              {"required", {"documents"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               const std::string name = StringArg(call.arguments, "name");
               if (!name.empty()) CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
               std::vector<store::ProfileDocument> documents;
               if (name.empty()) {
                 CILIA_ASSIGN_OR_RETURN(documents, memory::ListProfile(call.ns));
               } else {
                 CILIA_ASSIGN_OR_RETURN(auto one, memory::FindProfileDocument(call.ns, name));
                 if (!one) return Status::NotFound(fmt::format("name: no profile document \"{}\"", name));
                 documents.push_back(std::move(*one));
               }
               json list = json::array();
               std::string text;
               for (const auto& document : documents) {
                 list.push_back(ProfileDocumentJson(document));
                 text += DocumentText(list.back());
               }
               if (text.empty()) text = "The profile has no documents yet.";
               return ToolOutput{std::move(text), json{{"documents", std::move(list)}}};
             }});

  tools.Add({"profile_set", "Write a profile document",
             "Replace one of the owner's profile documents with new markdown (the old text is kept as a version). "
             "Read it with profile_get first and change only what the owner asked for: every chat turn starts "
             "from these documents.",
             Scope::kMemoryWrite, ToolHints{false, true, true},
             ObjectSchema({{"name", Field("string", "The document: persona, user, relationship, rules, or another "
                                                    "name of lowercase letters, digits, - and _.",
                                          {{"minLength", 1}, {"maxLength", 64}})},
                           {"content", Field("string", "The whole document, markdown.")}},
                          {"name", "content"}),
             DocumentSchema(), [](const ToolContext& call) -> Result<ToolOutput> {
               const std::string name = StringArg(call.arguments, "name");
               CILIA_RETURN_IF_ERROR(store::CheckProfileName(name));
               CILIA_ASSIGN_OR_RETURN(auto document,
                                      memory::PutProfileDocument(call.ns, name, StringArg(call.arguments, "content")));
               json out = ProfileDocumentJson(document);
               return ToolOutput{"Saved profile document " + document.name + ".", std::move(out)};
             }});

  tools.Add({"digest_get", "Read the digest and a day's log",
             "Read the running digest of the owner's life and the daily log of one day (default yesterday, in the "
             "owner's time zone), each entry of which cites the messages it rests on. Written nightly.",
             Scope::kMemoryRead, ToolHints{true, false, true},
             ObjectSchema({{"day", Field("string", "The day, YYYY-MM-DD (default yesterday).",
                                         {{"minLength", 10}, {"maxLength", 10}})}}),
             {{"type", "object"},
              {"properties",
               {{"day", {{"type", "string"}}}, {"digest", {{"type", kNullableObject}}}, {"log", {{"type", kNullableObject}}}}},
              {"required", {"day", "digest", "log"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               std::string day = StringArg(call.arguments, "day");
               if (day.empty()) {
                 day = AddDays(call.ns.tz().LocalDate(call.ns.clock().Now()), -1).ToString();
               } else if (auto parsed = ParseDate(day); !parsed.ok()) {
                 return Status::InvalidArgument(fmt::format("day: must be a date YYYY-MM-DD, got \"{}\"", day));
               }
               CILIA_ASSIGN_OR_RETURN(auto digest, memory::LatestDigest(call.ns));
               CILIA_ASSIGN_OR_RETURN(auto log, memory::DailyLogOf(call.ns, day));
               json out = {{"day", day},
                           {"digest", digest ? memory::DigestJson(*digest) : json(nullptr)},
                           {"log", log ? memory::DailyLogJson(*log) : json(nullptr)}};
               std::string text = digest ? "## Digest\n" + digest->text + "\n" : "No digest has been written yet.\n";
               text += log ? fmt::format("\n## {}: {}\n{}\n", day, log->title, log->Text())
                           : fmt::format("\nNo log for {} (a day's log is written the night after it, when it had "
                                         "messages).\n",
                                         day);
               return ToolOutput{std::move(text), std::move(out)};
             }});
}

const json& CandidateIdField() {
  static const json kField = Field("string", "The candidate's id, c_<n>, as candidates_list shows it.",
                                   {{"minLength", 3}, {"maxLength", 30}});
  return kField;
}

void AddCandidates(ToolRegistry& tools) {
  tools.Add({"candidates_list", "List memory candidates",
             "List what the extractor was not sure enough to keep, waiting for a decision (candidate_review), "
             "newest first.",
             Scope::kMemoryRead, ToolHints{true, false, true},
             ObjectSchema({{"status", Field("string", "pending (default), approved, discarded, merged, or all.",
                                            {{"enum", store::Names<store::CandidateStatus>(/*all=*/true)}})},
                           {"limit", Field("integer", "Candidates per page (default 20).",
                                           {{"minimum", 1}, {"maximum", 100}})},
                           {"cursor", Field("string", "next_cursor of the page before.")}}),
             {{"type", "object"},
              {"properties",
               {{"candidates", {{"type", "array"}, {"items", CandidateObjectSchema()}}},
                {"next_cursor", {{"type", {"string", "null"}}}}}},
              {"required", {"candidates", "next_cursor"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(const auto status, store::ParseFilter<store::CandidateStatus>(
                                                             StringArg(call.arguments, "status", "pending"), "status"));
               CILIA_ASSIGN_OR_RETURN(store::PageRequest page, PageArgs(call.arguments, 20));
               CILIA_ASSIGN_OR_RETURN(auto list, memory::Candidates(call.ns).List(status, page));
               CILIA_ASSIGN_OR_RETURN(json candidates, memory::CandidateListJson(call.ns, list));
               json next = NextCursor(list.size(), page, list.empty() ? 0 : list.back().id);
               std::string text = ListText(candidates, CandidateText, "No candidates are waiting.");
               if (next.is_string()) text += fmt::format("More: call again with cursor \"{}\".", next.get<std::string>());
               return ToolOutput{std::move(text),
                                 json{{"candidates", std::move(candidates)}, {"next_cursor", std::move(next)}}};
             }});

  tools.Add(
      {"candidate_review", "Decide on a candidate",
       "Decide on a pending candidate: approve (it becomes a memory, superseding one with the same fact_key), "
       "discard, merge (it says what memory target_id says), or supersede (it becomes a memory replacing "
       "target_id). Ask the owner when unsure.",
       Scope::kMemoryWrite, ToolHints{false, true, true},
       ObjectSchema({{"id", CandidateIdField()},
                     {"action", Field("string", "approve, discard, merge or supersede.",
                                      {{"enum", {"approve", "discard", "merge", "supersede"}}})},
                     {"target_id", Field("string", "For merge and supersede: the memory (x_<n>) concerned.")}},
                    {"id", "action"}),
       {{"type", "object"},
        {"properties", {{"candidate", CandidateObjectSchema()}, {"memory", MemoryObjectSchema()}}},
        {"required", {"candidate"}}},
       [](const ToolContext& call) -> Result<ToolOutput> {
         const std::string raw = StringArg(call.arguments, "id");
         auto id = memory::ParseCandidateId(raw);
         if (!id) return Status::NotFound(fmt::format("id: no candidate \"{}\" (candidate ids look like c_7)", raw));
         const std::string action = StringArg(call.arguments, "action");
         const memory::Author who = AuthorOf(call.who);
         memory::Candidates candidates(call.ns);
         std::optional<store::ExcerptRecord> made;
         if (action == "discard") {
           CILIA_RETURN_IF_ERROR(candidates.Discard(*id, who));
         } else if (action == "approve") {
           CILIA_ASSIGN_OR_RETURN(made, candidates.Approve(*id, who));
         } else {
           if (!call.arguments.contains("target_id")) {
             return Status::InvalidArgument(fmt::format("target_id: required for {}, the memory (x_<n>) concerned", action));
           }
           CILIA_ASSIGN_OR_RETURN(int64_t target, MemoryIdArg(call.arguments, "target_id"));
           if (action == "merge") {
             CILIA_ASSIGN_OR_RETURN(made, candidates.Merge(*id, target, who));
           } else {
             CILIA_ASSIGN_OR_RETURN(made, candidates.Supersede(*id, target, who));
           }
         }
         CILIA_ASSIGN_OR_RETURN(auto candidate, candidates.Get(*id));
         if (!candidate) return Status::NotFound(fmt::format("id: no candidate \"{}\"", raw));
         CILIA_ASSIGN_OR_RETURN(json list, memory::CandidateListJson(call.ns, {*candidate}));
         json out = {{"candidate", list.front()}};
         std::string text = "Candidate " + action + (action.back() == 'e' ? "d" : "ed") + ": " + CandidateText(list.front());
         if (made) {
           CILIA_ASSIGN_OR_RETURN(out["memory"], memory::ExcerptJson(call.ns, *made));
           text += "\nMemory: " + MemoryText(out["memory"]);
         }
         return ToolOutput{std::move(text), std::move(out)};
       }});
}

}  // namespace

void AddCurationTools(ToolRegistry& tools) {
  AddGlossaryAndProfile(tools);
  AddCandidates(tools);
}

}  // namespace cilia::api::mcp
