#include "api/mcp/tool_support.h"

#include <fmt/format.h>

#include "api/excerpt_routes.h"
#include "memory/excerpts/excerpts.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

std::string DateOf(const json& time) {
  return time.is_string() ? time.get<std::string>().substr(0, 10) : std::string("undated");
}

const json kNullableString = {"string", "null"};

}  // namespace

json ObjectSchema(json properties, std::initializer_list<const char*> required) {
  json names = json::array();
  for (const char* name : required) names.push_back(name);
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(names)},
          {"additionalProperties", false}};
}

json Field(json type, std::string description) {
  return {{"type", std::move(type)}, {"description", std::move(description)}};
}

json Field(json type, std::string description, json keywords) {
  json field = Field(std::move(type), std::move(description));
  field.update(keywords);
  return field;
}

// What an excerpt and a candidate show alike (memory::QuotedItemJson), with `more`.
json QuotedItemSchema(json more) {
  json properties = {{"id", {{"type", "string"}}},
                     {"content", {{"type", "string"}}},
                     {"quote", {{"type", "string"}}},
                     {"conversation_id", {{"type", "string"}}},
                     {"message_ids", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                     {"type", {{"type", "string"}}},
                     {"fact_key", {{"type", kNullableString}}},
                     {"confidence", {{"type", "number"}}}};
  properties.update(more);
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", {"id", "content", "quote", "conversation_id", "message_ids", "status"}}};
}

json MemoryObjectSchema() {
  return QuotedItemSchema({{"status", {{"type", "string"}, {"enum", store::Names<store::ExcerptStatus>()}}},
                           {"superseded_by", {{"type", kNullableString}}},
                           {"importance", {{"type", "number"}}},
                           {"pinned", {{"type", "boolean"}}},
                           {"author", {{"type", "string"}}},
                           {"said_at", {{"type", kNullableString}}},
                           {"created_at", {{"type", kNullableString}}}});
}

json CandidateObjectSchema() {
  return QuotedItemSchema({{"reason", {{"type", kNullableString}}},
                           {"target_id", {{"type", kNullableString}}},
                           {"status", {{"type", "string"}}},
                           {"result_id", {{"type", kNullableString}}}});
}

json RecallReplySchema() {
  json result = {{"type", "object"},
                 {"properties",
                  {{"layer", {{"type", "string"}, {"enum", {"archive", "excerpt"}}}},
                   {"id", {{"type", "string"}}},
                   {"conversation_id", {{"type", "string"}}},
                   {"message_ids", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                   {"created_at", {{"type", "string"}}},
                   {"text", {{"type", "string"}}},
                   {"score", {{"type", "number"}}}}},
                 {"required", {"layer", "id", "conversation_id", "message_ids", "created_at", "text"}}};
  return {{"type", "object"},
          {"properties", {{"results", {{"type", "array"}, {"items", std::move(result)}}}, {"took_ms", {{"type", "number"}}}}},
          {"required", {"results"}}};
}

std::string StringArg(const json& arguments, const char* name, std::string fallback) {
  auto it = arguments.find(name);
  return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::move(fallback);
}

Result<int64_t> MemoryIdArg(const json& arguments, const char* field) {
  const std::string id = StringArg(arguments, field);
  if (auto parsed = memory::ParseExcerptId(id)) return *parsed;
  return Status::NotFound(fmt::format("{}: no memory \"{}\" (memory ids look like x_12)", field, id));
}

Result<store::PageRequest> PageArgs(const json& arguments, int fallback) {
  return PageOf(arguments.value("limit", fallback), StringArg(arguments, "cursor"));
}

std::string MemoryText(const json& m) {
  std::string traits = m.value("type", "other");
  if (m.contains("fact_key") && m["fact_key"].is_string()) traits += ", fact_key " + m["fact_key"].get<std::string>();
  traits += ", " + m.value("status", "active");
  if (m.value("pinned", false)) traits += ", pinned";
  if (m.value("author", "") == "owner") traits += ", by the owner";
  return fmt::format("{} — \"{}\" ({}, {}) · {} · {}", m.value("content", ""), m.value("quote", ""),
                     DateOf(m.value("said_at", json())), m.value("conversation_id", ""), traits, m.value("id", ""));
}

std::string CandidateText(const json& c) {
  std::string reason = c.contains("reason") && c["reason"].is_string() ? c["reason"].get<std::string>() : "";
  return fmt::format("{} — \"{}\" ({}, {}) · {}{} · {}", c.value("content", ""), c.value("quote", ""),
                     c.contains("date") && c["date"].is_string() ? c["date"].get<std::string>() : "undated",
                     c.value("conversation_id", ""), c.value("status", ""),
                     reason.empty() ? "" : ", " + reason, c.value("id", ""));
}

std::string RecallText(const json& reply, const std::string& query) {
  const json& results = reply["results"];
  if (results.empty()) {
    return fmt::format("Nothing stored matches \"{}\". Try other words, a wider after/before range, or exact: false.",
                       query);
  }
  std::string out = fmt::format("{} passage{} for \"{}\", best first:\n", results.size(), results.size() == 1 ? "" : "s",
                                query);
  for (const json& r : results) {
    std::vector<std::string> ids;
    for (const json& id : r["message_ids"]) ids.push_back(id.get<std::string>());
    out += fmt::format("\n{}\n({} · {} · messages {})\n", r.value("text", ""), r.value("id", ""),
                       r.value("conversation_id", ""), fmt::join(ids, ", "));
  }
  return out;
}

std::string ListText(const json& items, std::string (*line)(const json&), const std::string& empty) {
  if (items.empty()) return empty;
  std::string out;
  for (const json& item : items) out += "- " + line(item) + "\n";
  return out;
}

}  // namespace cilia::api::mcp
