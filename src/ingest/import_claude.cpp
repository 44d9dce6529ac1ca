// Claude (claude.ai) `conversations.json`: an array of conversations, each
// with its messages in order under `chat_messages`.

#include "ingest/import_util.h"
#include "ingest/importers.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

// The text blocks of `content`; the flat `text` field when there are none
// (older exports have no `content`). Thinking, tool use and tool results are
// not part of the conversation's words and are left out.
Result<nlohmann::json> ConvertContent(const nlohmann::json& message, const std::string& path) {
  std::vector<nlohmann::json> parts;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* blocks, json::OptionalArray(message, "content", path));
  if (blocks != nullptr) {
    std::string blocks_path = json::PathKey(path, "content");
    for (size_t k = 0; k < blocks->size(); ++k) {
      const nlohmann::json& block = (*blocks)[k];
      std::string block_path = json::PathIndex(blocks_path, k);
      if (!block.is_object()) return json::FieldError(block_path, "must be an object");
      CILIA_ASSIGN_OR_RETURN(std::string type, json::OptionalString(block, "type", block_path));
      if (type != "text") continue;
      CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(block, "text", block_path));
      if (!text.empty()) parts.push_back(TextPart(std::move(text)));
    }
  }
  if (parts.empty()) {
    CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(message, "text", path));
    if (!text.empty()) parts.push_back(TextPart(std::move(text)));
  }
  return ContentFromParts(std::move(parts));
}

Result<IngestMessage> ConvertMessage(const nlohmann::json& message, const std::string& path) {
  if (!message.is_object()) return json::FieldError(path, "must be an object");
  IngestMessage result;
  CILIA_ASSIGN_OR_RETURN(result.id, json::RequiredString(message, "uuid", path));
  CILIA_ASSIGN_OR_RETURN(std::string sender, json::RequiredString(message, "sender", path));
  if (sender == "human") {
    result.role = "user";
  } else if (sender == "assistant") {
    result.role = "assistant";
  } else {
    return json::FieldError(json::PathKey(path, "sender"), "must be human or assistant");
  }
  CILIA_ASSIGN_OR_RETURN(result.content, ConvertContent(message, path));
  CILIA_ASSIGN_OR_RETURN(result.created_at_ms, OptionalRfc3339Time(message, "created_at", path));
  return result;
}

Status ImportConversation(const nlohmann::json& conversation, const std::string& path,
                          std::vector<IngestConversation>& out) {
  if (!conversation.is_object()) return json::FieldError(path, "must be an object");
  IngestConversation result;
  CILIA_ASSIGN_OR_RETURN(result.conversation_id, json::RequiredString(conversation, "uuid", path));
  CILIA_ASSIGN_OR_RETURN(result.title, json::OptionalString(conversation, "name", path));
  CILIA_ASSIGN_OR_RETURN(std::optional<int64_t> created, OptionalRfc3339Time(conversation, "created_at", path));
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* messages, json::OptionalArray(conversation, "chat_messages", path));
  if (messages != nullptr) {
    std::string messages_path = json::PathKey(path, "chat_messages");
    for (size_t i = 0; i < messages->size(); ++i) {
      CILIA_ASSIGN_OR_RETURN(IngestMessage message, ConvertMessage((*messages)[i], json::PathIndex(messages_path, i)));
      result.messages.push_back(std::move(message));
    }
  }
  return AppendImported(std::move(result), created, out).With(path);
}

}  // namespace

Result<std::vector<IngestConversation>> ImportClaude(const nlohmann::json& export_root) {
  if (!export_root.is_array()) {
    return Status::InvalidArgument("a Claude export must be a JSON array of conversations");
  }
  std::vector<IngestConversation> conversations;
  for (size_t i = 0; i < export_root.size(); ++i) {
    CILIA_RETURN_IF_ERROR(ImportConversation(export_root[i], json::PathIndex("", i), conversations));
  }
  return conversations;
}

}  // namespace cilia::ingest
