#include "ingest/ingest_request.h"

#include <unordered_map>

#include "core/time.h"
#include "text/utf8.h"
#include "core/json_read.h"

namespace cilia::ingest {
namespace {

// The "type" of a content part; empty when there is none.
std::string_view PartType(const nlohmann::json& part) {
  if (!part.is_object()) return {};
  auto type = part.find("type");
  if (type == part.end() || !type->is_string()) return {};
  return type->get_ref<const std::string&>();
}

bool IsTextPart(const nlohmann::json& part) { return PartType(part) == "text"; }

// Anything but Unicode whitespace (so a lone ideographic space is not text).
bool HasVisibleText(std::string_view value) {
  size_t pos = 0;
  while (pos < value.size()) {
    if (!text::IsWhitespace(text::NextCodePoint(value, &pos))) return true;
  }
  return false;
}

Status CheckUtf8(std::string_view value, const std::string& path) {
  return text::IsValidUtf8(value) ? Status::Ok() : json::FieldError(path, "must be valid UTF-8");
}

Status CheckId(const std::string& id, const std::string& path) {
  if (id.empty()) return json::FieldError(path, "is required");
  if (id.size() > kMaxIngestIdBytes) {
    return json::FieldError(path, "must be at most " + std::to_string(kMaxIngestIdBytes) + " bytes");
  }
  return CheckUtf8(id, path);
}

// A string member that must be given and valid UTF-8; returns it.
Result<std::string> RequiredUtf8(const nlohmann::json& object, std::string_view key, const std::string& path) {
  CILIA_ASSIGN_OR_RETURN(std::string value, json::RequiredString(object, key, path));
  CILIA_RETURN_IF_ERROR(CheckUtf8(value, json::PathKey(path, key)));
  return value;
}

// Anthropic-style {"type": "image", "source": {...}}.
Status CheckImageSource(const nlohmann::json& part, const std::string& part_path) {
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* source, json::OptionalObject(part, "source", part_path));
  std::string source_path = json::PathKey(part_path, "source");
  if (source == nullptr) return json::FieldError(source_path, "is required");
  CILIA_ASSIGN_OR_RETURN(std::string type, RequiredUtf8(*source, "type", source_path));
  if (type == "base64") {
    CILIA_RETURN_IF_ERROR(RequiredUtf8(*source, "media_type", source_path).status());
    return RequiredUtf8(*source, "data", source_path).status();
  }
  if (type == "url") return RequiredUtf8(*source, "url", source_path).status();
  if (type == "file") return RequiredUtf8(*source, "file_id", source_path).status();
  return json::FieldError(json::PathKey(source_path, "type"), "must be one of base64, url, file");
}

Status CheckPart(const nlohmann::json& part, const std::string& path) {
  if (!part.is_object()) return json::FieldError(path, "must be an object");
  CILIA_ASSIGN_OR_RETURN(std::string type, RequiredUtf8(part, "type", path));
  if (type == "text") {
    auto text = part.find("text");
    if (text == part.end() || !text->is_string()) {
      return json::FieldError(json::PathKey(path, "text"), "must be a string");
    }
    return CheckUtf8(text->get_ref<const std::string&>(), json::PathKey(path, "text"));
  }
  if (type == "image_url") {
    CILIA_ASSIGN_OR_RETURN(const nlohmann::json* image_url, json::OptionalObject(part, "image_url", path));
    if (image_url == nullptr) return json::FieldError(json::PathKey(path, "image_url"), "is required");
    return RequiredUtf8(*image_url, "url", json::PathKey(path, "image_url")).status();
  }
  if (type == "image") return CheckImageSource(part, path);
  return json::FieldError(json::PathKey(path, "type"), "must be one of text, image_url, image");
}

Status CheckContent(const nlohmann::json& content, const std::string& path) {
  if (content.is_string()) {
    CILIA_RETURN_IF_ERROR(CheckUtf8(content.get_ref<const std::string&>(), path));
  } else if (content.is_array()) {
    for (size_t k = 0; k < content.size(); ++k) {
      CILIA_RETURN_IF_ERROR(CheckPart(content[k], json::PathIndex(path, k)));
    }
  } else {
    return json::FieldError(path, "must be a string or an array of content parts");
  }
  return HasTextOrImage(content) ? Status::Ok() : json::FieldError(path, "must contain text or an image");
}

// True when the member is present as "" (absent and null mean "not given").
bool IsEmptyString(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() && it->get_ref<const std::string&>().empty();
}

Result<IngestMessage> ParseMessage(const nlohmann::json& body, const std::string& path) {
  if (!body.is_object()) return json::FieldError(path, "must be an object");
  IngestMessage message;
  if (IsEmptyString(body, "id")) return json::FieldError(json::PathKey(path, "id"), "must not be empty");
  CILIA_ASSIGN_OR_RETURN(message.id, json::OptionalString(body, "id", path));
  CILIA_ASSIGN_OR_RETURN(message.role, json::RequiredString(body, "role", path));
  CILIA_ASSIGN_OR_RETURN(message.name, json::OptionalString(body, "name", path));
  auto content = body.find("content");
  if (content == body.end() || content->is_null()) {
    return json::FieldError(json::PathKey(path, "content"), "is required");
  }
  message.content = *content;
  std::string created_at_path = json::PathKey(path, "created_at");
  if (IsEmptyString(body, "created_at")) return json::FieldError(created_at_path, "must not be empty");
  CILIA_ASSIGN_OR_RETURN(std::string created_at, json::OptionalString(body, "created_at", path));
  if (!created_at.empty()) {
    Result<UnixMs> parsed = ParseRfc3339(created_at);
    if (!parsed.ok()) {
      return json::FieldError(created_at_path, "must be an RFC 3339 time such as 2023-05-08T13:56:00Z");
    }
    message.created_at_ms = *parsed;
  }
  return message;
}

}  // namespace

Result<IngestConversation> ParseIngestRequest(const nlohmann::json& body) {
  if (!body.is_object()) {
    return Status::InvalidArgument("must be a JSON object with conversation_id and messages");
  }
  IngestConversation conversation;
  CILIA_ASSIGN_OR_RETURN(conversation.conversation_id, json::RequiredString(body, "conversation_id", ""));
  CILIA_ASSIGN_OR_RETURN(conversation.title, json::OptionalString(body, "title", ""));
  CILIA_ASSIGN_OR_RETURN(const nlohmann::json* messages, json::RequiredArray(body, "messages", ""));
  conversation.messages.reserve(messages->size());
  for (size_t i = 0; i < messages->size(); ++i) {
    CILIA_ASSIGN_OR_RETURN(IngestMessage message, ParseMessage((*messages)[i], json::PathIndex("messages", i)));
    conversation.messages.push_back(std::move(message));
  }
  CILIA_RETURN_IF_ERROR(ValidateIngestConversation(conversation));
  return conversation;
}

Status ValidateIngestConversation(const IngestConversation& conversation) {
  CILIA_RETURN_IF_ERROR(CheckId(conversation.conversation_id, "conversation_id"));
  CILIA_RETURN_IF_ERROR(CheckUtf8(conversation.title, "title"));
  if (conversation.messages.empty()) return json::FieldError("messages", "must not be empty");
  std::unordered_map<std::string_view, size_t> first_use_of_id;
  for (size_t i = 0; i < conversation.messages.size(); ++i) {
    const IngestMessage& message = conversation.messages[i];
    std::string path = json::PathIndex("messages", i);
    if (!message.id.empty()) CILIA_RETURN_IF_ERROR(CheckId(message.id, json::PathKey(path, "id")));
    if (message.role != "user" && message.role != "assistant" && message.role != "system") {
      return json::FieldError(json::PathKey(path, "role"), "must be one of user, assistant, system");
    }
    CILIA_RETURN_IF_ERROR(CheckUtf8(message.name, json::PathKey(path, "name")));
    CILIA_RETURN_IF_ERROR(CheckContent(message.content, json::PathKey(path, "content")));
    if (message.id.empty()) continue;
    auto [first, inserted] = first_use_of_id.emplace(message.id, i);
    if (!inserted && conversation.messages[first->second].content != message.content) {
      return json::FieldError(json::PathKey(path, "id"), "\"" + message.id + "\" is already used by messages[" +
                                                 std::to_string(first->second) + "] with different content");
    }
  }
  return Status::Ok();
}

bool HasTextOrImage(const nlohmann::json& content) {
  if (content.is_string()) return HasVisibleText(content.get_ref<const std::string&>());
  if (!content.is_array()) return false;
  for (const nlohmann::json& part : content) {
    std::string_view type = PartType(part);
    if (type == "image_url" || type == "image") return true;
    if (type != "text") continue;
    auto text = part.find("text");
    if (text != part.end() && text->is_string() && HasVisibleText(text->get_ref<const std::string&>())) {
      return true;
    }
  }
  return false;
}

std::string ContentText(const nlohmann::json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (!content.is_array()) return text;
  bool first = true;
  for (const nlohmann::json& part : content) {
    if (!IsTextPart(part)) continue;
    auto value = part.find("text");
    if (value == part.end() || !value->is_string()) continue;
    if (!first) text += '\n';
    text += value->get_ref<const std::string&>();
    first = false;
  }
  return text;
}

nlohmann::json TextPart(std::string text) { return {{"type", "text"}, {"text", std::move(text)}}; }

nlohmann::json ImageUrlPart(std::string url) {
  return {{"type", "image_url"}, {"image_url", {{"url", std::move(url)}}}};
}

nlohmann::json ContentFromParts(std::vector<nlohmann::json> parts) {
  if (parts.empty()) return nullptr;
  if (parts.size() == 1 && IsTextPart(parts[0])) {
    return std::move(parts[0]["text"]);
  }
  return nlohmann::json(std::move(parts));
}

}  // namespace cilia::ingest
