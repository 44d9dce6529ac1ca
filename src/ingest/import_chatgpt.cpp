// ChatGPT `conversations.json`: an array of conversations whose messages form
// a tree in `mapping`; the conversation as the user last saw it is the chain
// of parents from `current_node` up to the root.

#include <algorithm>
#include <unordered_set>

#include "ingest/import_util.h"
#include "ingest/importers.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

// The content parts of one `parts` entry: strings are text; among objects,
// image pointers become image parts (their `asset_pointer` names the file in
// the export archive) and voice transcriptions become text. Audio and other
// objects carry nothing we can store.
Result<std::optional<nlohmann::json>> ConvertPart(const nlohmann::json& part, const std::string& path) {
  if (part.is_string()) {
    if (part.get_ref<const std::string&>().empty()) return std::optional<nlohmann::json>();
    return std::optional<nlohmann::json>(TextPart(part.get<std::string>()));
  }
  if (!part.is_object()) return json::FieldError(path, "must be a string or an object");
  CILIA_ASSIGN_OR_RETURN(std::string type, json::OptionalString(part, "content_type", path));
  if (type == "image_asset_pointer") {
    CILIA_ASSIGN_OR_RETURN(std::string pointer, json::RequiredString(part, "asset_pointer", path));
    return std::optional<nlohmann::json>(ImageUrlPart(std::move(pointer)));
  }
  if (type == "audio_transcription") {
    CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(part, "text", path));
    if (!text.empty()) return std::optional<nlohmann::json>(TextPart(std::move(text)));
  }
  return std::optional<nlohmann::json>();
}

// The message of one node, or nullopt when it is not part of what the user
// saw: tool output, calls the assistant addressed to a tool, hidden context,
// reasoning, and every content type other than text and multimodal_text.
Result<std::optional<IngestMessage>> ConvertMessage(const nlohmann::json& message, const std::string& node_id,
                                                    const std::string& path) {
  std::optional<IngestMessage> skipped;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* author, json::OptionalObject(message, "author", path));
  if (author == nullptr) return json::FieldError(json::PathKey(path, "author"), "is required");
  std::string author_path = json::PathKey(path, "author");
  CILIA_ASSIGN_OR_RETURN(std::string role, json::RequiredString(*author, "role", author_path));
  if (role == "tool") return skipped;
  if (role != "user" && role != "assistant" && role != "system") {
    return json::FieldError(json::PathKey(author_path, "role"), "must be one of user, assistant, system, tool");
  }
  CILIA_ASSIGN_OR_RETURN(std::string recipient, json::OptionalString(message, "recipient", path));
  if (!recipient.empty() && recipient != "all") return skipped;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* metadata, json::OptionalObject(message, "metadata", path));
  if (metadata != nullptr) {
    CILIA_ASSIGN_OR_RETURN(
        bool hidden, json::OptionalBool(*metadata, "is_visually_hidden_from_conversation", json::PathKey(path, "metadata"), false));
    if (hidden) return skipped;
  }
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* content, json::OptionalObject(message, "content", path));
  if (content == nullptr) return skipped;
  std::string content_path = json::PathKey(path, "content");
  CILIA_ASSIGN_OR_RETURN(std::string content_type, json::OptionalString(*content, "content_type", content_path));
  if (content_type != "text" && content_type != "multimodal_text") return skipped;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* parts, json::OptionalArray(*content, "parts", content_path));
  if (parts == nullptr) return skipped;

  std::vector<nlohmann::json> converted;
  std::string parts_path = json::PathKey(content_path, "parts");
  for (size_t k = 0; k < parts->size(); ++k) {
    CILIA_ASSIGN_OR_RETURN(std::optional<nlohmann::json> part, ConvertPart((*parts)[k], json::PathIndex(parts_path, k)));
    if (part) converted.push_back(std::move(*part));
  }
  IngestMessage result;
  result.id = node_id;
  result.role = std::move(role);
  CILIA_ASSIGN_OR_RETURN(result.name, json::OptionalString(*author, "name", author_path));
  result.content = ContentFromParts(std::move(converted));
  CILIA_ASSIGN_OR_RETURN(result.created_at_ms, OptionalEpochTime(message, "create_time", path, EpochUnit::kSeconds));
  return std::optional<IngestMessage>(std::move(result));
}

// Node ids from the root down to `current_node`.
Result<std::vector<std::string>> VisibleBranch(const nlohmann::json& mapping, const std::string& current_node,
                                               const std::string& path) {
  std::string mapping_path = json::PathKey(path, "mapping");
  if (!mapping.contains(current_node)) {
    return json::FieldError(json::PathKey(path, "current_node"), "names no node of mapping");
  }
  std::vector<std::string> branch;
  std::unordered_set<std::string> seen;
  std::string node_id = current_node;
  // The chain ends at a node without a parent, or one whose parent is not in
  // the mapping.
  while (!node_id.empty() && mapping.contains(node_id)) {
    std::string node_path = json::PathKey(mapping_path, node_id);
    if (!seen.insert(node_id).second) return json::FieldError(node_path, "is its own ancestor");
    const nlohmann::json& node = *mapping.find(node_id);
    if (!node.is_object()) return json::FieldError(node_path, "must be an object");
    branch.push_back(node_id);
    CILIA_ASSIGN_OR_RETURN(node_id, json::OptionalString(node, "parent", node_path));
  }
  std::reverse(branch.begin(), branch.end());
  return branch;
}

Status ImportConversation(const nlohmann::json& conversation, const std::string& path,
                          std::vector<IngestConversation>& out) {
  if (!conversation.is_object()) return json::FieldError(path, "must be an object");
  IngestConversation result;
  CILIA_ASSIGN_OR_RETURN(result.conversation_id, json::OptionalString(conversation, "conversation_id", path));
  if (result.conversation_id.empty()) {
    CILIA_ASSIGN_OR_RETURN(result.conversation_id, json::RequiredString(conversation, "id", path));
  }
  CILIA_ASSIGN_OR_RETURN(result.title, json::OptionalString(conversation, "title", path));
  CILIA_ASSIGN_OR_RETURN(std::optional<int64_t> created,
                         OptionalEpochTime(conversation, "create_time", path, EpochUnit::kSeconds));
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* mapping, json::OptionalObject(conversation, "mapping", path));
  if (mapping == nullptr) return json::FieldError(json::PathKey(path, "mapping"), "is required");
  CILIA_ASSIGN_OR_RETURN(std::string current_node, json::OptionalString(conversation, "current_node", path));
  if (current_node.empty()) return Status::Ok();  // nothing was ever shown

  CILIA_ASSIGN_OR_RETURN(std::vector<std::string> branch, VisibleBranch(*mapping, current_node, path));
  for (const std::string& node_id : branch) {
    std::string node_path = json::PathKey(json::PathKey(path, "mapping"), node_id);
    CILIA_ASSIGN_OR_RETURN(const nlohmann::json* message,
                           json::OptionalObject(*mapping->find(node_id), "message", node_path));
    if (message == nullptr) continue;
    CILIA_ASSIGN_OR_RETURN(std::optional<IngestMessage> converted,
                           ConvertMessage(*message, node_id, json::PathKey(node_path, "message")));
    if (converted) result.messages.push_back(std::move(*converted));
  }
  return AppendImported(std::move(result), created, out).With(path);
}

}  // namespace

Result<std::vector<IngestConversation>> ImportChatGPT(const nlohmann::json& export_root) {
  if (!export_root.is_array()) {
    return Status::InvalidArgument("a ChatGPT export must be a JSON array of conversations");
  }
  std::vector<IngestConversation> conversations;
  for (size_t i = 0; i < export_root.size(); ++i) {
    CILIA_RETURN_IF_ERROR(ImportConversation(export_root[i], json::PathIndex("", i), conversations));
  }
  return conversations;
}

}  // namespace cilia::ingest
