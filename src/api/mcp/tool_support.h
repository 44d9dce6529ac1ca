// What the MCP tool files share: JSON Schema pieces for input and output
// schemas, the arguments' small readers, and the text a model reads for a
// memory, a candidate and a recall answer (verbatim passages with dates and
// speakers first, ids last).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "core/status.h"
#include "store/excerpt_repo.h"

namespace cilia::api::mcp {

// {"type": "object", "properties", "required" (always there: some clients
// require it), "additionalProperties": false}.
nlohmann::json ObjectSchema(nlohmann::json properties, std::initializer_list<const char*> required = {});
// A property: {"type": type, "description": description} (type may be a list).
nlohmann::json Field(nlohmann::json type, std::string description);
// The same with extra keywords (enum, minimum, ...).
nlohmann::json Field(nlohmann::json type, std::string description, nlohmann::json keywords);

// The output shapes of the REST objects the tools return.
nlohmann::json MemoryObjectSchema();     // memory::ExcerptJson
nlohmann::json CandidateObjectSchema();  // memory::CandidateListJson's items
nlohmann::json RecallReplySchema();      // memory::ToJson(RecallReply)

// Arguments, already checked against the schema.
std::string StringArg(const nlohmann::json& arguments, const char* name, std::string fallback = "");
// "x_12" as 12: NotFound naming `field` when it is not such an id.
Result<int64_t> MemoryIdArg(const nlohmann::json& arguments, const char* field);
// limit (default `fallback`) and cursor (a next_cursor given before), as
// the REST routes read them (PageOf); their NextCursor answers the next one.
Result<store::PageRequest> PageArgs(const nlohmann::json& arguments, int fallback);

// One line: content — "quote" (date, conversation) · type, fact_key, status, pinned · id.
std::string MemoryText(const nlohmann::json& memory);
std::string CandidateText(const nlohmann::json& candidate);
// A recall or search reply as passages, best first; `query` for the empty case.
std::string RecallText(const nlohmann::json& reply, const std::string& query);
// Lines of a list, or `empty` when there are none.
std::string ListText(const nlohmann::json& items, std::string (*line)(const nlohmann::json&), const std::string& empty);

}  // namespace cilia::api::mcp
