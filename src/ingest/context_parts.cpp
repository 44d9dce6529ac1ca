#include "ingest/context_parts.h"

namespace cilia::ingest {
namespace {

std::string_view TypeOf(const nlohmann::json& part) {
  if (!part.is_object()) return {};
  auto type = part.find("type");
  return type != part.end() && type->is_string() ? std::string_view(type->get_ref<const std::string&>())
                                                 : std::string_view();
}

std::string StringMember(const nlohmann::json& part, const char* key) {
  auto value = part.find(key);
  return value != part.end() && value->is_string() ? value->get<std::string>() : "";
}

}  // namespace

nlohmann::json ToolCallPart(std::string id, std::string name, std::string arguments) {
  return {
      {"type", kToolCallPart}, {"id", std::move(id)}, {"name", std::move(name)}, {"arguments", std::move(arguments)}};
}

nlohmann::json ToolResultPart(std::string tool_call_id, nlohmann::json content, bool is_error) {
  nlohmann::json part = {
      {"type", kToolResultPart}, {"tool_call_id", std::move(tool_call_id)}, {"content", std::move(content)}};
  if (is_error) part["is_error"] = true;
  return part;
}

nlohmann::json SystemPromptPart(std::string text) { return {{"type", kSystemPromptPart}, {"text", std::move(text)}}; }

bool HoldsContextParts(const nlohmann::json& content) {
  if (!content.is_array()) return false;
  for (const nlohmann::json& part : content) {
    const std::string_view type = TypeOf(part);
    if (type == kToolCallPart || type == kToolResultPart || type == kSystemPromptPart) return true;
  }
  return false;
}

std::string ContextKey(const nlohmann::json& content) {
  std::string key;
  if (!content.is_array()) return key;
  for (const nlohmann::json& part : content) {
    const std::string_view type = TypeOf(part);
    std::string id;
    if (type == kToolCallPart) {
      id = "call:" + StringMember(part, "id");
    } else if (type == kToolResultPart) {
      id = "result:" + StringMember(part, "tool_call_id");
    } else {
      continue;
    }
    if (!key.empty()) key += ',';
    key += id;
  }
  return key;
}

}  // namespace cilia::ingest
