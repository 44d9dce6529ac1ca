#include "api/mcp/memory_tools.h"

#include <fmt/format.h>

#include <sstream>

#include "api/excerpt_routes.h"
#include "api/mcp/tool_support.h"
#include "ingest/ingest_request.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/excerpts/own_words.h"
#include "memory/recall/boot.h"
#include "memory/recall/recall.h"
#include "memory/transfer/export.h"
#include "memory/upkeep/precious.h"
#include "store/excerpt_repo.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

// An export larger than this is refused with a pointer to GET /v1/export:
// a tool result is read by a model, not saved by a browser.
constexpr size_t kMaxExportBytes = size_t{8} << 20;

const char* const kDateHelp =
    "a date YYYY-MM-DD in the owner's time zone, or an RFC 3339 time such as 2026-05-01T09:00:00+08:00";

json RecallInput(const memory::Registry& registry) {
  const int max_limit = registry.config().retrieval.max_limit;
  return ObjectSchema(
      {{"query", Field("string",
                       "What to look for, in the words the conversation would have used; time words (\"last week\", "
                       "\"上个月\") narrow the dates by themselves.",
                       {{"minLength", 1}, {"maxLength", 2000}})},
       {"limit", Field("integer", fmt::format("How many passages, best first (default {}).",
                                              registry.config().retrieval.default_limit),
                       {{"minimum", 1}, {"maximum", max_limit}})},
       {"after", Field("string", std::string("Only what was said on or after this: ") + kDateHelp + ".")},
       {"before", Field("string", std::string("Only what was said on or before this: ") + kDateHelp + ".")},
       {"conversation_id", Field("string", "Only this conversation (its id as results show it).")},
       {"exact", Field("boolean", "Only passages that contain the query text verbatim (default false).")},
       {"now", Field("string", "The moment the question is asked, RFC 3339, against which time words are read "
                               "(default: the present).")}},
      {"query"});
}

Result<ToolOutput> RunRecall(const ToolContext& call, bool count_access) {
  const auto& retrieval = call.registry.config().retrieval;
  CILIA_ASSIGN_OR_RETURN(memory::RecallRequest request,
                         memory::ParseRecallRequest(call.arguments, call.registry.tz(), retrieval.default_limit,
                                                    retrieval.max_limit));
  CILIA_ASSIGN_OR_RETURN(memory::RecallReply reply, memory::Recall(call.ns, request, count_access));
  json structured = memory::ToJson(reply, call.ns.tz());
  return ToolOutput{RecallText(structured, request.query), std::move(structured)};
}

json MemoryOutput() {
  return {{"type", "object"}, {"properties", {{"memory", MemoryObjectSchema()}}}, {"required", {"memory"}}};
}

Result<ToolOutput> MemoryResult(memory::Namespace& ns, const store::ExcerptRecord& excerpt, const std::string& verb) {
  CILIA_ASSIGN_OR_RETURN(json memory, memory::ExcerptJson(ns, excerpt));
  std::string text = verb.empty() ? MemoryText(memory) : verb + ": " + MemoryText(memory);
  return ToolOutput{std::move(text), json{{"memory", std::move(memory)}}};
}

const json& MemoryIdField() {
  static const json kField = Field("string", "The memory's id, x_<n>, as memory_list and memory_search show it.",
                                   {{"minLength", 3}, {"maxLength", 30}});
  return kField;
}

// memory_archive and memory_delete: one id, one Excerpts call.
template <typename Apply>
Result<ToolOutput> ForMemory(const ToolContext& call, const std::string& verb, Apply&& apply) {
  CILIA_ASSIGN_OR_RETURN(int64_t id, MemoryIdArg(call.arguments, "id"));
  memory::Excerpts excerpts(call.ns);
  CILIA_ASSIGN_OR_RETURN(store::ExcerptRecord excerpt, apply(excerpts, id, AuthorOf(call.who)));
  return MemoryResult(call.ns, excerpt, verb);
}

void AddReadTools(ToolRegistry& tools, const memory::Registry& registry) {
  const std::string search_help =
      " Answers verbatim passages of stored conversations (L0 windows) and memories (L1 excerpts), best first, "
      "each with its date, conversation and speakers.";
  tools.Add({"memory_search", "Search memory",
             "Look into the owner's long-term memory without counting it as remembered. Use it to check whether "
             "something was ever discussed, or to browse." +
                 search_help,
             Scope::kMemoryRead, ToolHints{true, false, true}, RecallInput(registry), RecallReplySchema(),
             [](const ToolContext& call) { return RunRecall(call, false); }});
  tools.Add({"memory_recall", "Recall from memory",
             "Recall what the owner said or did before, when you are going to use it in your answer (it raises "
             "the access counts that keep often-used memories ranked high; memory_search is the same look without "
             "that)." +
                 search_help,
             Scope::kMemoryRead, ToolHints{false, false, false}, RecallInput(registry), RecallReplySchema(),
             [](const ToolContext& call) { return RunRecall(call, true); }});

  tools.Add({"memory_get", "Read one memory",
             "Read one memory (an L1 excerpt) by its id: its content, the verbatim quote it rests on with the "
             "date it was said, its type, fact_key, status and pin.",
             Scope::kMemoryRead, ToolHints{true, false, true}, ObjectSchema({{"id", MemoryIdField()}}, {"id"}),
             MemoryOutput(), [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(int64_t id, MemoryIdArg(call.arguments, "id"));
               CILIA_ASSIGN_OR_RETURN(auto excerpt, memory::Excerpts(call.ns).Get(id));
               if (!excerpt) {
                 return Status::NotFound(fmt::format("id: no memory \"{}\"", memory::ExcerptPublicId(id)));
               }
               return MemoryResult(call.ns, *excerpt, "");
             }});

  tools.Add(
      {"memory_list", "List memories",
       "List memories (L1 excerpts), newest first, a page at a time: to review what is kept about the owner, or "
       "to find the id of one to change. Filter by status or by fact_key.",
       Scope::kMemoryRead, ToolHints{true, false, true},
       ObjectSchema(
           {{"status", Field("string", "active (default), superseded, archived, or all.",
                             {{"enum", store::Names<memory::ExcerptStatus>(/*all=*/true)}})},
            {"fact_key", Field("string", "Only memories with this fact_key, e.g. home_city.")},
            {"limit", Field("integer", "Memories per page (default 20).", {{"minimum", 1}, {"maximum", 100}})},
            {"cursor", Field("string", "next_cursor of the page before, for the page after it.")}}),
       {{"type", "object"},
        {"properties",
         {{"memories", {{"type", "array"}, {"items", MemoryObjectSchema()}}},
          {"next_cursor", {{"type", {"string", "null"}}}}}},
        {"required", {"memories", "next_cursor"}}},
       [](const ToolContext& call) -> Result<ToolOutput> {
         CILIA_ASSIGN_OR_RETURN(const auto status, store::ParseFilter<memory::ExcerptStatus>(
                                                       StringArg(call.arguments, "status", "active"), "status"));
         CILIA_ASSIGN_OR_RETURN(store::PageRequest page, PageArgs(call.arguments, 20));
         std::optional<std::string> fact_key;
         if (call.arguments.contains("fact_key")) fact_key = StringArg(call.arguments, "fact_key");
         CILIA_ASSIGN_OR_RETURN(auto list, memory::Excerpts(call.ns).List(status, page, fact_key));
         CILIA_ASSIGN_OR_RETURN(json memories, memory::ExcerptListJson(call.ns, list));
         json next = NextCursor(list.size(), page, list.empty() ? 0 : list.back().id);
         std::string text = ListText(memories, MemoryText, "No memories match.");
         if (next.is_string()) text += fmt::format("More: call again with cursor \"{}\".", next.get<std::string>());
         return ToolOutput{std::move(text), json{{"memories", std::move(memories)}, {"next_cursor", std::move(next)}}};
       }});

  tools.Add({"memory_boot", "Read the boot pack",
             "Read this first in a new session: the owner's profile documents, the running digest, yesterday's "
             "log, the latest weekly and monthly summaries, precious passages, the glossary, and counts of what "
             "the memory holds.",
             Scope::kMemoryRead, ToolHints{true, false, true}, ObjectSchema(json::object()),
             {{"type", "object"},
              {"properties",
               {{"day", {{"type", "string"}}},
                {"digest", {{"type", {"object", "null"}}}},
                {"yesterday", {{"type", {"object", "null"}}}},
                {"week", {{"type", {"object", "null"}}}},
                {"month", {{"type", {"object", "null"}}}},
                {"precious", {{"type", "array"}}},
                {"glossary", {{"type", "array"}}},
                {"profile", {{"type", "array"}}},
                {"counts", {{"type", "object"}}}}},
              {"required", {"day", "precious", "glossary", "profile", "counts"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(json pack, memory::BootPack(call.ns, call.ns.clock().Now()));
               std::string text = fmt::format("Today is {} (the owner's time zone).\n", pack["day"].get<std::string>());
               for (const json& document : pack["profile"]) {
                 text += fmt::format("\n## Profile: {}\n{}\n", document["name"].get<std::string>(),
                                     document["content"].get<std::string>());
               }
               if (pack["digest"].is_object()) text += "\n## Digest\n" + pack["digest"].value("text", "") + "\n";
               if (pack["yesterday"].is_object()) {
                 text += fmt::format("\n## {} (yesterday)\n{}\n", pack["yesterday"].value("day", ""),
                                     pack["yesterday"].value("text", ""));
               }
               for (const char* period : {"week", "month"}) {
                 if (pack[period].is_object()) {
                   text += fmt::format("\n## {} {}\n{}\n", period, pack[period].value("period", ""),
                                       pack[period].value("text", ""));
                 }
               }
               if (!pack["precious"].empty()) text += "\n## Precious passages\n";
               for (const json& p : pack["precious"]) {
                 text += fmt::format("- \"{}\" ({}, {}) · {}\n", p.value("content", ""),
                                     p.value("created_at", "").substr(0, 10), p.value("conversation_id", ""),
                                     p.value("id", ""));
               }
               if (!pack["glossary"].empty()) text += "\n## Glossary\n";
               for (const json& g : pack["glossary"]) {
                 text += fmt::format("- {}: {}\n", g.value("term", ""), g.value("definition", ""));
               }
               text += "\n## Counts\n" + pack["counts"].dump() + "\n";
               return ToolOutput{std::move(text), std::move(pack)};
             }});
}

json UpsertInput() {
  return ObjectSchema(
      {{"content", Field("string",
                         "The memory in one sentence, in your own words or the owner's, e.g. \"Lena lives in "
                         "Chengdu.\" Without a quote this text itself is stored as a note message and quoted.",
                         {{"minLength", 1}, {"maxLength", 2000}})},
       {"quote", Field("string",
                       "Optional: words copied verbatim from a stored message that prove the memory (at least 8 "
                       "characters). Give conversation_id with it.")},
       {"conversation_id", Field("string", "With quote: the conversation of the quoted message.")},
       {"message_id", Field("string", "With quote, optional: the quoted message's id (else the newest message of "
                                      "the conversation holding the quote).")},
       {"type", Field("string", "What kind of memory (default other).",
                      {{"enum", {"fact", "preference", "event", "plan", "relationship", "rule", "project", "other"}}})},
       {"fact_key", Field({"string", "null"},
                          "A stable key for a fact that can change, e.g. home_city or favourite_food: writing the "
                          "same fact_key again updates that memory instead of adding one.",
                          {{"maxLength", 100}})},
       {"confidence", Field("number", "How sure, 0 to 1 (default 1).", {{"minimum", 0}, {"maximum", 1}})},
       {"importance", Field("number", "How much it matters, 0 to 1 (default 0.5).", {{"minimum", 0}, {"maximum", 1}})},
       {"valid_from", Field({"string", "null"}, std::string("When it became true: ") + kDateHelp + ".")},
       {"valid_to", Field({"string", "null"}, std::string("When it stopped being true: ") + kDateHelp + ".")},
       {"pinned", Field("boolean", "Pinned memories are always offered and never superseded automatically.")}},
      {"content"});
}

void AddUpsertTool(ToolRegistry& tools) {
  tools.Add(
      {"memory_upsert", "Write a memory",
       "Keep something about the owner for later: a fact, preference, plan, event or rule they would want "
       "remembered. With a fact_key that an active memory already holds, that memory is updated (its history "
       "keeps the old words); else a new one is made. Without a quote, content is first stored verbatim as a "
       "note (conversation \"notes\") that the memory quotes; with a quote, it must be found in the stored "
       "message. Memories the owner wrote cannot be overwritten by an agent.",
       Scope::kMemoryWrite, ToolHints{false, true, false}, UpsertInput(),
       {{"type", "object"},
        {"properties", {{"memory", MemoryObjectSchema()}, {"created", {{"type", "boolean"}}}}},
        {"required", {"memory", "created"}}},
       [](const ToolContext& call) -> Result<ToolOutput> {
         const memory::Author author = AuthorOf(call.who);
         memory::Excerpts::Upserted upserted;
         if (memory::IsInOwnWords(call.arguments)) {
           memory::NoteWriter writer{"mcp", call.client_name.empty() ? std::string(store::Name(author)) : call.client_name};
           CILIA_ASSIGN_OR_RETURN(upserted, memory::UpsertInOwnWords(call.ns, call.arguments, author, writer));
         } else {
           CILIA_ASSIGN_OR_RETURN(memory::NewExcerpt item, memory::ParseNewExcerpt(call.arguments));
           CILIA_ASSIGN_OR_RETURN(upserted, memory::Excerpts(call.ns).Upsert(item, author));
         }
         CILIA_ASSIGN_OR_RETURN(ToolOutput out,
                                MemoryResult(call.ns, upserted.excerpt, upserted.created ? "Kept" : "Updated"));
         out.structured["created"] = upserted.created;
         return out;
       }});
}

// Supersede, archive and delete: what becomes of a memory that is there.
void AddChangeTools(ToolRegistry& tools) {
  tools.Add({"memory_supersede", "Supersede a memory",
             "Mark a memory as replaced by a newer one (both must exist: write the new one first with "
             "memory_upsert). The old one stays, superseded, and can be revived; recall stops offering it.",
             Scope::kMemoryWrite, ToolHints{false, false, true},
             ObjectSchema({{"id", MemoryIdField()},
                           {"by", Field("string", "The id (x_<n>) of the memory that replaces it.",
                                        {{"minLength", 3}, {"maxLength", 30}})}},
                          {"id", "by"}),
             {{"type", "object"},
              {"properties", {{"memory", MemoryObjectSchema()}, {"by", MemoryObjectSchema()}}},
              {"required", {"memory", "by"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(int64_t id, MemoryIdArg(call.arguments, "id"));
               CILIA_ASSIGN_OR_RETURN(int64_t by_id, MemoryIdArg(call.arguments, "by"));
               memory::Excerpts excerpts(call.ns);
               CILIA_ASSIGN_OR_RETURN(auto old, excerpts.Supersede(id, by_id, AuthorOf(call.who)));
               CILIA_ASSIGN_OR_RETURN(auto by, excerpts.Get(by_id));
               if (!by) return Status::NotFound(fmt::format("by: no memory \"{}\"", memory::ExcerptPublicId(by_id)));
               CILIA_ASSIGN_OR_RETURN(json old_json, memory::ExcerptJson(call.ns, old));
               CILIA_ASSIGN_OR_RETURN(json by_json, memory::ExcerptJson(call.ns, *by));
               std::string text = "Superseded: " + MemoryText(old_json) + "\nBy: " + MemoryText(by_json);
               return ToolOutput{std::move(text), json{{"memory", std::move(old_json)}, {"by", std::move(by_json)}}};
             }});

  tools.Add({"memory_archive", "Archive a memory",
             "Put a memory aside that is no longer relevant but was not replaced by another (use memory_supersede "
             "for that). Archived memories are not offered; memory_list with status archived shows them.",
             Scope::kMemoryWrite, ToolHints{false, false, true}, ObjectSchema({{"id", MemoryIdField()}}, {"id"}),
             MemoryOutput(), [](const ToolContext& call) {
               return ForMemory(call, "Archived", [](memory::Excerpts& x, int64_t id, memory::Author who) {
                 return x.Archive(id, who);
               });
             }});

  tools.Add({"memory_delete", "Delete a memory",
             "Delete a memory (an L1 excerpt) that is wrong. Only the memory goes: the messages it quoted stay in "
             "the archive. Prefer memory_supersede or memory_archive when it was true once.",
             Scope::kMemoryWrite, ToolHints{false, true, true}, ObjectSchema({{"id", MemoryIdField()}}, {"id"}),
             {{"type", "object"},
              {"properties", {{"deleted", {{"type", "boolean"}}}, {"id", {{"type", "string"}}}}},
              {"required", {"deleted", "id"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(int64_t id, MemoryIdArg(call.arguments, "id"));
               CILIA_RETURN_IF_ERROR(memory::Excerpts(call.ns).Delete(id, AuthorOf(call.who)));
               const std::string public_id = memory::ExcerptPublicId(id);
               return ToolOutput{"Deleted memory " + public_id + ".", json{{"deleted", true}, {"id", public_id}}};
             }});
}

void AddPinTool(ToolRegistry& tools) {
  tools.Add(
      {"memory_pin", "Pin a precious passage",
       "Keep a passage the owner treasures, verbatim, among the precious passages the boot pack shows. It must "
       "be words of stored messages: name them; content is the passage (default: the messages whole). Pins are "
       "never edited; each call adds one.",
       Scope::kMemoryWrite, ToolHints{false, false, false},
       ObjectSchema({{"conversation_id", Field("string", "The conversation of the messages.", {{"minLength", 1}})},
                     {"message_ids", Field("array", "Ids of the messages the passage comes from.",
                                           {{"items", {{"type", "string"}}}, {"minItems", 1}, {"maxItems", 50}})},
                     {"content", Field("string",
                                       "The passage, verbatim from those messages (compared without whitespace); "
                                       "omit to keep the messages whole.")}},
                    {"conversation_id", "message_ids"}),
       {{"type", "object"},
        {"properties",
         {{"id", {{"type", "string"}}},
          {"content", {{"type", "string"}}},
          {"conversation_id", {{"type", "string"}}},
          {"message_ids", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
        {"required", {"id", "content"}}},
       [](const ToolContext& call) -> Result<ToolOutput> {
         memory::PinRequest pin;
         pin.conversation_id = StringArg(call.arguments, "conversation_id");
         for (const json& id : call.arguments["message_ids"]) pin.message_ids.push_back(id.get<std::string>());
         pin.content = StringArg(call.arguments, "content");
         pin.author = AuthorOf(call.who);
         CILIA_ASSIGN_OR_RETURN(auto passage, memory::Pin(call.ns, pin, call.ns.clock().Now()));
         json out = memory::PreciousJson(passage);
         std::string text = fmt::format("Pinned \"{}\" · {}", out.value("content", ""), out.value("id", ""));
         return ToolOutput{std::move(text), std::move(out)};
       }});
}

void AddIngestTool(ToolRegistry& tools) {
  json message = ObjectSchema(
      {{"id", Field("string", "Your id of the message, unique in the conversation; sending it again with the same "
                              "content stores nothing.")},
       {"role", Field("string", "Who spoke.", {{"enum", {"user", "assistant", "system"}}})},
       {"name", Field("string", "The speaker's name, e.g. Caroline.")},
       {"content", Field({"string", "array"}, "The text, or an OpenAI-style array of parts.")},
       {"created_at", Field("string", "When it was said, RFC 3339 (default: now).")}},
      {"role", "content"});
  tools.Add({"memory_ingest", "Store messages",
             "Store messages of a conversation verbatim in the archive, where search and recall find them at once. "
             "For transcripts and chats from elsewhere; the same shape as POST /v1/ingest/messages.",
             Scope::kMemoryWrite, ToolHints{false, false, true},
             ObjectSchema({{"conversation_id", Field("string", "The conversation's id (yours; e.g. trip-2023-05).",
                                                     {{"minLength", 1}, {"maxLength", 200}})},
                           {"title", Field("string", "A title for the conversation.")},
                           {"messages", Field("array", "The messages, oldest first.",
                                              {{"items", message}, {"minItems", 1}, {"maxItems", 1000}})}},
                          {"conversation_id", "messages"}),
             {{"type", "object"},
              {"properties",
               {{"conversation_id", {{"type", "string"}}},
                {"stored", {{"type", "integer"}}},
                {"duplicates", {{"type", "integer"}}}}},
              {"required", {"conversation_id", "stored", "duplicates"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               CILIA_ASSIGN_OR_RETURN(ingest::IngestConversation conversation, ingest::ParseIngestRequest(call.arguments));
               conversation.source = "mcp";
               CILIA_ASSIGN_OR_RETURN(auto outcome, memory::Archive(call.ns).StoreAndIndex(conversation));
               std::string text = fmt::format("Stored {} message(s) in {} ({} already there).", outcome.stored,
                                              conversation.conversation_id, outcome.duplicates);
               return ToolOutput{std::move(text), json{{"conversation_id", conversation.conversation_id},
                                                       {"stored", outcome.stored},
                                                       {"duplicates", outcome.duplicates}}};
             }});
}

void AddWriteTools(ToolRegistry& tools) {
  AddUpsertTool(tools);
  AddChangeTools(tools);
  AddPinTool(tools);
  AddIngestTool(tools);
}

void AddExportTool(ToolRegistry& tools) {
  tools.Add({"memory_export", "Export the memory",
             "Export this namespace, losslessly, as JSON Lines (what `cilia export` writes): every conversation and "
             "message verbatim, memories with their history, profile, glossary, precious passages and digests. "
             "Needs an admin key. Up to 8 MB; for more use GET /v1/export.",
             Scope::kAdmin, ToolHints{true, false, true}, ObjectSchema(json::object()),
             {{"type", "object"},
              {"properties",
               {{"jsonl", {{"type", "string"}}}, {"lines", {{"type", "integer"}}}, {"bytes", {{"type", "integer"}}}}},
              {"required", {"jsonl", "lines", "bytes"}}},
             [](const ToolContext& call) -> Result<ToolOutput> {
               std::ostringstream out;
               CILIA_RETURN_IF_ERROR(memory::ExportNamespace(call.ns, out));
               std::string jsonl = std::move(out).str();
               if (jsonl.size() > kMaxExportBytes) {
                 return Status::TooLarge(fmt::format("the export is {} MB, over the {} MB a tool answers; fetch GET "
                                                     "/v1/export instead",
                                                     jsonl.size() >> 20, kMaxExportBytes >> 20));
               }
               const int64_t lines = std::count(jsonl.begin(), jsonl.end(), '\n');
               const int64_t bytes = static_cast<int64_t>(jsonl.size());
               std::string text = jsonl;
               return ToolOutput{std::move(text), json{{"jsonl", std::move(jsonl)}, {"lines", lines}, {"bytes", bytes}}};
             }});
}

}  // namespace

void AddMemoryTools(ToolRegistry& tools, const memory::Registry& registry) {
  AddReadTools(tools, registry);
  AddWriteTools(tools);
  AddExportTool(tools);
}

}  // namespace cilia::api::mcp
