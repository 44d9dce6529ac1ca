#include "gateway/chat_request.h"

#include <fmt/format.h>

#include "ingest/context_parts.h"
#include "ingest/ingest_request.h"
#include "llm/json_access.h"
#include "text/harness.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

bool IsImagePart(const json& part, Wire wire) {
  const std::string type = llm::StringOr(part, "type");
  return wire == Wire::kOpenAI ? type == "image_url" : type == "image";
}

// The text and image parts of a message's content, as the archive stores
// them; a string stays a string.
ClientMessage ReadMessage(const std::string& role, const json& content, Wire wire, bool* has_image) {
  ClientMessage message{role, "", nullptr};
  if (content.is_string()) {
    message.text = content.get<std::string>();
    message.content = content;
    return message;
  }
  if (!content.is_array()) return message;
  json parts = json::array();
  for (const json& part : content) {
    if (!part.is_object()) continue;
    const std::string type = llm::StringOr(part, "type");
    if (type == "text") {
      const std::string text = llm::StringOr(part, "text");
      if (text.empty()) continue;
      if (!message.text.empty()) message.text += "\n";
      message.text += text;
      parts.push_back({{"type", "text"}, {"text", text}});
    } else if (IsImagePart(part, wire)) {
      *has_image = true;
      json image = part;
      image.erase("cache_control");
      parts.push_back(std::move(image));
    }
  }
  if (!parts.empty()) message.content = std::move(parts);
  return message;
}

// A copy of `value` without cache_control markers at any depth: they are
// the client's instructions to the upstream's cache, no part of the content.
json WithoutCacheControl(json value) {
  if (value.is_object()) {
    value.erase("cache_control");
    for (auto& [key, member] : value.items()) member = WithoutCacheControl(std::move(member));
  } else if (value.is_array()) {
    for (json& item : value) item = WithoutCacheControl(std::move(item));
  }
  return value;
}

// The system_prompt parts of one system message's content, or of Anthropic's
// `system`: a string, or its text blocks.
void AddSystemPrompt(const json& content, json& parts) {
  if (content.is_string()) {
    const std::string& text = content.get_ref<const std::string&>();
    if (!text.empty()) parts.push_back(ingest::SystemPromptPart(text));
    return;
  }
  for (const json& block : content.is_array() ? content : json::array()) {
    const std::string text = llm::StringOr(block, "type") == "text" ? llm::StringOr(block, "text") : "";
    if (!text.empty()) parts.push_back(ingest::SystemPromptPart(text));
  }
}

// The tool calls of an assistant message: OpenAI's tool_calls, or
// Anthropic's tool_use blocks (their input as JSON text).
std::vector<json> ToolCallParts(const json& message, Wire wire) {
  std::vector<json> parts;
  if (wire == Wire::kOpenAI) {
    for (const json& call : llm::ArrayOrEmpty(message, "tool_calls")) {
      const json function = llm::MemberOr(call, "function", json::object());
      parts.push_back(ingest::ToolCallPart(llm::StringOr(call, "id"), llm::StringOr(function, "name"),
                                           llm::StringOr(function, "arguments")));
    }
    return parts;
  }
  for (const json& block : llm::ArrayOrEmpty(message, "content")) {
    if (llm::StringOr(block, "type") != "tool_use") continue;
    parts.push_back(ingest::ToolCallPart(llm::StringOr(block, "id"), llm::StringOr(block, "name"),
                                         llm::MemberOr(block, "input", json::object()).dump()));
  }
  return parts;
}

// A role "tool" message holding one result.
ClientMessage ToolMessage(std::string call_id, const json& content, bool is_error) {
  json result = content.is_null() ? json("") : WithoutCacheControl(content);
  return {"tool", "", json::array({ingest::ToolResultPart(std::move(call_id), std::move(result), is_error)})};
}

// The text and image parts of `message`, then `calls`: the content keeps
// its string form when there are no calls.
void AppendToolCalls(ClientMessage& message, std::vector<json> calls) {
  if (calls.empty()) return;
  json parts = message.content.is_array() ? std::move(message.content) : json::array();
  if (message.content.is_string() && !message.text.empty()) parts.push_back(ingest::TextPart(message.text));
  for (json& call : calls) parts.push_back(std::move(call));
  message.content = std::move(parts);
}

}  // namespace

Result<ClientTurn> ReadClientTurn(const json& body, Wire wire) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  const json* messages = llm::Member(body, "messages");
  if (messages == nullptr || !messages->is_array()) {
    return Status::InvalidArgument("messages: required, an array of messages");
  }
  if (messages->empty()) return Status::InvalidArgument("messages: must not be empty");
  ClientTurn turn;
  json system_prompt = json::array();
  if (wire == Wire::kAnthropic) AddSystemPrompt(llm::MemberOr(body, "system", json(nullptr)), system_prompt);
  for (size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    if (!m.is_object()) return Status::InvalidArgument(fmt::format("messages[{}]: must be an object", i));
    const json* role = llm::Member(m, "role");
    if (role == nullptr || !role->is_string()) {
      return Status::InvalidArgument(fmt::format("messages[{}].role: required, a string", i));
    }
    const std::string name = role->get<std::string>();
    const json content = llm::MemberOr(m, "content", json(nullptr));
    if (name == "system" || name == "developer") {
      AddSystemPrompt(content, system_prompt);
      continue;
    }
    if (name == "tool" && wire == Wire::kOpenAI) {
      turn.history.push_back(ToolMessage(llm::StringOr(m, "tool_call_id"), content, false));
      continue;
    }
    if (name != "user" && name != "assistant") continue;
    if (wire == Wire::kAnthropic && name == "user") {
      for (const json& block : content.is_array() ? content : json::array()) {
        if (llm::StringOr(block, "type") != "tool_result") continue;
        turn.history.push_back(ToolMessage(llm::StringOr(block, "tool_use_id"),
                                           llm::MemberOr(block, "content", json("")),
                                           llm::MemberOr(block, "is_error", false) == true));
      }
    }
    bool has_image = false;
    ClientMessage message = ReadMessage(name, content, wire, &has_image);
    turn.has_images = turn.has_images || has_image;
    if (name == "assistant") AppendToolCalls(message, ToolCallParts(m, wire));
    const bool has_calls = ingest::HoldsContextParts(message.content);
    if (message.content.is_null() || (message.text.empty() && !has_image && !has_calls)) continue;
    const bool last = i + 1 == messages->size();
    if (last && name == "user") {
      turn.current = std::move(message);
    } else {
      turn.history.push_back(std::move(message));
    }
  }
  if (!system_prompt.empty()) turn.system_prompt = std::move(system_prompt);
  turn.stream = body.contains("stream") && body["stream"].is_boolean() && body["stream"].get<bool>();
  if (wire == Wire::kOpenAI) {
    // One answer per request: several choices would be several answers to store and splice.
    if (const json* n = llm::Member(body, "n"); n != nullptr && !n->is_null() && !(n->is_number_integer() && *n == 1)) {
      return Status::InvalidArgument("n: only 1 is supported");
    }
    turn.client_user = llm::StringOr(body, "user");
    const json options = llm::MemberOr(body, "stream_options", json::object());
    turn.include_usage = options.is_object() && options.contains("include_usage") &&
                         options["include_usage"].is_boolean() && options["include_usage"].get<bool>();
  } else {
    turn.client_user = llm::StringOr(llm::MemberOr(body, "metadata", json::object()), "user_id");
  }
  return turn;
}

std::string MessageText(const json& message) {
  bool has_image = false;
  return ReadMessage("", llm::MemberOr(message, "content", json(nullptr)), Wire::kOpenAI, &has_image).text;
}

MenuQuery MenuQueryOf(const ClientTurn& turn, size_t user_count) {
  MenuQuery query;
  // The owner's words only: harness text (text/harness.h) would make the menu
  // find the boilerplate of earlier sessions.
  if (turn.current) {
    std::string own = text::OwnWords(turn.current->text);
    if (!own.empty()) query.user_texts.push_back(std::move(own));
  }
  for (auto it = turn.history.rbegin(); it != turn.history.rend(); ++it) {
    if (it->role == "assistant" && query.previous_assistant.empty() && query.user_texts.size() <= 1) {
      query.previous_assistant = it->text;
    }
    if (it->role == "user" && query.user_texts.size() < user_count) {
      std::string own = text::OwnWords(it->text);
      if (!own.empty()) query.user_texts.insert(query.user_texts.begin(), std::move(own));
    }
    if (query.user_texts.size() >= user_count) break;
  }
  return query;
}

}  // namespace cilia::gateway
