// Chatbox's data backup: one JSON object holding Chatbox's storage keys.
// Older versions keep every session under "chat-sessions"; newer ones keep
// each session under "session:<id>" (beside a "chat-sessions-list" index),
// sometimes as a JSON string, with message text in `contentParts`.

#include <string_view>

#include "ingest/import_util.h"
#include "ingest/importers.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

constexpr std::string_view kSessionKeyPrefix = "session:";

// Text parts only: image parts point at Chatbox's own blob store, which the
// backup does not carry; reasoning, tool calls and info notes are not words
// of the conversation.
Result<nlohmann::json> ConvertContent(const nlohmann::json& message, const std::string& path) {
  std::vector<nlohmann::json> parts;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* content_parts, json::OptionalArray(message, "contentParts", path));
  if (content_parts == nullptr) {
    CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(message, "content", path));
    if (!text.empty()) parts.push_back(TextPart(std::move(text)));
    return ContentFromParts(std::move(parts));
  }
  std::string parts_path = json::PathKey(path, "contentParts");
  for (size_t k = 0; k < content_parts->size(); ++k) {
    const nlohmann::json& part = (*content_parts)[k];
    std::string part_path = json::PathIndex(parts_path, k);
    if (!part.is_object()) return json::FieldError(part_path, "must be an object");
    CILIA_ASSIGN_OR_RETURN(std::string type, json::OptionalString(part, "type", part_path));
    if (type != "text") continue;
    CILIA_ASSIGN_OR_RETURN(std::string text, json::OptionalString(part, "text", part_path));
    if (!text.empty()) parts.push_back(TextPart(std::move(text)));
  }
  return ContentFromParts(std::move(parts));
}

// Appends the messages of `messages` (an array of Chatbox messages, if given).
Status ConvertMessages(const nlohmann::json& holder, const std::string& path, std::vector<IngestMessage>& out) {
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* messages, json::OptionalArray(holder, "messages", path));
  if (messages == nullptr) return Status::Ok();
  std::string messages_path = json::PathKey(path, "messages");
  for (size_t i = 0; i < messages->size(); ++i) {
    const nlohmann::json& message = (*messages)[i];
    std::string message_path = json::PathIndex(messages_path, i);
    if (!message.is_object()) return json::FieldError(message_path, "must be an object");
    IngestMessage result;
    CILIA_ASSIGN_OR_RETURN(result.role, json::RequiredString(message, "role", message_path));
    if (result.role == "tool") continue;
    if (result.role != "user" && result.role != "assistant" && result.role != "system") {
      return json::FieldError(json::PathKey(message_path, "role"), "must be one of user, assistant, system, tool");
    }
    CILIA_ASSIGN_OR_RETURN(result.id, json::RequiredString(message, "id", message_path));
    CILIA_ASSIGN_OR_RETURN(result.name, json::OptionalString(message, "name", message_path));
    CILIA_ASSIGN_OR_RETURN(result.content, ConvertContent(message, message_path));
    CILIA_ASSIGN_OR_RETURN(result.created_at_ms,
                           OptionalEpochTime(message, "timestamp", message_path, EpochUnit::kMilliseconds));
    out.push_back(std::move(result));
  }
  return Status::Ok();
}

// One session: its older threads (what "new thread" set aside, oldest
// first), then its current messages. Forks (alternative replies) are left out.
Status ImportSession(const nlohmann::json& session, const std::string& path, std::vector<IngestConversation>& out) {
  if (!session.is_object()) return json::FieldError(path, "must be an object");
  IngestConversation result;
  CILIA_ASSIGN_OR_RETURN(result.conversation_id, json::RequiredString(session, "id", path));
  CILIA_ASSIGN_OR_RETURN(result.title, json::OptionalString(session, "name", path));
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* threads, json::OptionalArray(session, "threads", path));
  if (threads != nullptr) {
    std::string threads_path = json::PathKey(path, "threads");
    for (size_t t = 0; t < threads->size(); ++t) {
      std::string thread_path = json::PathIndex(threads_path, t);
      if (!(*threads)[t].is_object()) return json::FieldError(thread_path, "must be an object");
      CILIA_RETURN_IF_ERROR(ConvertMessages((*threads)[t], thread_path, result.messages));
    }
  }
  CILIA_RETURN_IF_ERROR(ConvertMessages(session, path, result.messages));
  return AppendImported(std::move(result), std::nullopt, out).With(path);
}

}  // namespace

Result<std::vector<IngestConversation>> ImportChatbox(const nlohmann::json& backup_root) {
  if (!backup_root.is_object()) {
    return Status::InvalidArgument("a Chatbox backup must be a JSON object");
  }
  std::vector<IngestConversation> conversations;
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* old_sessions, json::OptionalArray(backup_root, "chat-sessions", ""));
  if (old_sessions != nullptr) {
    std::string sessions_path = json::PathKey("", "chat-sessions");
    for (size_t i = 0; i < old_sessions->size(); ++i) {
      CILIA_RETURN_IF_ERROR(ImportSession((*old_sessions)[i], json::PathIndex(sessions_path, i), conversations));
    }
  }
  for (const auto& [key, value] : backup_root.items()) {
    if (!key.starts_with(kSessionKeyPrefix)) continue;
    std::string path = json::PathKey("", key);
    if (!value.is_string()) {
      CILIA_RETURN_IF_ERROR(ImportSession(value, path, conversations));
      continue;
    }
    // Some versions store the session as a JSON string.
    Result<nlohmann::json> session = json::ParseJsonText(value.get_ref<const std::string&>());
    if (!session.ok()) return session.status().With(path);
    CILIA_RETURN_IF_ERROR(ImportSession(*session, path, conversations));
  }
  return conversations;
}

}  // namespace cilia::ingest
