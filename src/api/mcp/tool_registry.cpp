#include "api/mcp/tool_registry.h"

#include <fmt/format.h>

#include "api/mcp/schema_check.h"
#include "core/log.h"

namespace cilia::api::mcp {

namespace {

using nlohmann::json;

json ToolJson(const Tool& tool, ToolShape shape) {
  json out = {{"name", tool.name}, {"description", tool.description}, {"inputSchema", tool.input_schema}};
  json annotations = {{"title", tool.title}, {"readOnlyHint", tool.hints.read_only}, {"openWorldHint", false}};
  if (!tool.hints.read_only) {
    annotations["destructiveHint"] = tool.hints.destructive;
    annotations["idempotentHint"] = tool.hints.idempotent;
  }
  out["annotations"] = std::move(annotations);
  if (shape.structured) {
    out["title"] = tool.title;
    out["outputSchema"] = tool.output_schema;
  }
  return out;
}

json Failed(std::string text) {
  return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})}, {"isError", true}};
}

}  // namespace

void ToolRegistry::Add(Tool tool) { tools_.push_back(std::move(tool)); }

const Tool* ToolRegistry::Find(std::string_view name) const {
  for (const Tool& tool : tools_) {
    if (tool.name == name) return &tool;
  }
  return nullptr;
}

json ToolRegistry::List(const Principal& who, ToolShape shape) const {
  json tools = json::array();
  for (const Tool& tool : tools_) {
    if (who.Has(tool.scope)) tools.push_back(ToolJson(tool, shape));
  }
  return {{"tools", std::move(tools)}};
}

json ToolRegistry::Call(const Tool& tool, memory::Registry& registry, const Principal& who, const json& arguments,
                        const std::string& client_name, ToolShape shape) const {
  if (!who.Has(tool.scope)) {
    return Failed(fmt::format("{} needs a key with the \"{}\" scope, and this key has only {}. Ask the owner for "
                              "such a key, or use the tools tools/list shows.",
                              tool.name, ScopeName(tool.scope), fmt::join(ScopeNames(who.scopes), ", ")));
  }
  if (Status valid = CheckAgainstSchema(tool.input_schema, arguments); !valid.ok()) {
    return Failed(FailureText(tool, valid));
  }
  auto ns = registry.Get(who.name_space);
  if (!ns.ok()) return Failed(FailureText(tool, ns.status()));
  Result<ToolOutput> output = tool.run(ToolContext{registry, **ns, who, arguments, client_name});
  if (!output.ok()) {
    if (output.status().code() == Code::kInternal || output.status().code() == Code::kIOError) {
      LogError("MCP tool {} failed: {}", tool.name, output.status().ToString());
    }
    return Failed(FailureText(tool, output.status()));
  }
  json result = {{"content", json::array({{{"type", "text"}, {"text", output->text}}})}, {"isError", false}};
  if (shape.structured) result["structuredContent"] = std::move(output->structured);
  return result;
}

std::string FailureText(const Tool& tool, const Status& status) {
  const std::string& what = status.message();
  switch (status.code()) {
    case Code::kInvalidArgument:
      return fmt::format("{} was not run: {}. Correct that argument (the tool's input schema describes each one) "
                         "and call it again.",
                         tool.name, what);
    case Code::kNotFound:
      return fmt::format("{}: {}. Check the id or name: memory_list, memory_search and candidates_list show the "
                         "ids that exist.",
                         tool.name, what);
    case Code::kConflict:
      return fmt::format("{} was refused: {}. Nothing was changed.", tool.name, what);
    case Code::kPermissionDenied:
      return fmt::format("{} was refused: {}. Ask the owner for a key with that scope.", tool.name, what);
    case Code::kTooLarge:
      return fmt::format("{} was not run: {}. Send less at a time.", tool.name, what);
    case Code::kBusy:
    case Code::kUnavailable:
    case Code::kTimeout:
      return fmt::format("{} could not finish now: {}. Try again in a moment.", tool.name, what);
    default:
      return fmt::format("{} failed inside cilia: {}. Try again; if it keeps failing, tell the owner to look at "
                         "the server log.",
                         tool.name, what);
  }
}

}  // namespace cilia::api::mcp
