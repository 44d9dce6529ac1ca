// The MCP tools (docs/mcp.md): each with its name, description, input and
// output schemas, truthful annotations and the scope a key needs to see and
// call it. tools/list shows a key only the tools its scopes allow, in a fixed
// order (a stable list keeps the client's prompt cache warm); tools/call
// checks the arguments against the input schema, runs the tool, and turns
// every failure into an isError result whose text says what to do next.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/auth.h"
#include "core/status.h"
#include "memory/namespace.h"
#include "memory/registry.h"

namespace cilia::api::mcp {

// What a tool runs with: the caller's namespace (the only one it sees), the
// caller, and the arguments, already checked against the input schema.
struct ToolContext {
  memory::Registry& registry;
  memory::Namespace& ns;
  const Principal& who;
  const nlohmann::json& arguments;  // an object
  std::string client_name;          // clientInfo.name when the client gave one
};

struct ToolOutput {
  std::string text;           // what a model reads: verbatim passages with dates and speakers, ids last
  nlohmann::json structured;  // structuredContent, as the output schema describes it
};

struct ToolHints {
  bool read_only = true;
  bool destructive = false;  // meaningful only when not read-only
  bool idempotent = true;    // meaningful only when not read-only
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  Scope scope = Scope::kMemoryRead;
  ToolHints hints;
  nlohmann::json input_schema;   // {"type": "object", ...}
  nlohmann::json output_schema;  // {"type": "object", ...}
  std::function<Result<ToolOutput>(const ToolContext&)> run;
};

// What a protocol revision's tool objects may carry: `title`,
// `outputSchema` and `structuredContent` came with 2025-06-18.
struct ToolShape {
  bool structured = true;
};

class ToolRegistry {
 public:
  void Add(Tool tool);

  const Tool* Find(std::string_view name) const;
  // {"tools": [...]} of the tools `who` may call.
  nlohmann::json List(const Principal& who, ToolShape shape) const;
  // A CallToolResult, {"content": [{"type": "text", "text"}],
  // "structuredContent"?, "isError"}, run in the caller's namespace.
  nlohmann::json Call(const Tool& tool, memory::Registry& registry, const Principal& who,
                      const nlohmann::json& arguments, const std::string& client_name, ToolShape shape) const;

  const std::vector<Tool>& tools() const { return tools_; }

 private:
  std::vector<Tool> tools_;
};

// The isError text for `status` from `tool`: what went wrong and what the
// model can do about it.
std::string FailureText(const Tool& tool, const Status& status);

}  // namespace cilia::api::mcp
