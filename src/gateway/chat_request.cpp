#include "gateway/chat_request.h"

#include <fmt/format.h>

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

}  // namespace

Result<ClientTurn> ReadClientTurn(const json& body, Wire wire) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  const json* messages = llm::Member(body, "messages");
  if (messages == nullptr || !messages->is_array()) {
    return Status::InvalidArgument("messages: required, an array of messages");
  }
  if (messages->empty()) return Status::InvalidArgument("messages: must not be empty");
  ClientTurn turn;
  for (size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    if (!m.is_object()) return Status::InvalidArgument(fmt::format("messages[{}]: must be an object", i));
    const json* role = llm::Member(m, "role");
    if (role == nullptr || !role->is_string()) {
      return Status::InvalidArgument(fmt::format("messages[{}].role: required, a string", i));
    }
    const std::string name = role->get<std::string>();
    if (name != "user" && name != "assistant") continue;
    bool has_image = false;
    ClientMessage message = ReadMessage(name, llm::MemberOr(m, "content", json(nullptr)), wire, &has_image);
    turn.has_images = turn.has_images || has_image;
    if (message.content.is_null() || (message.text.empty() && !has_image)) continue;
    const bool last = i + 1 == messages->size();
    if (last && name == "user") {
      turn.current = std::move(message);
    } else {
      turn.history.push_back(std::move(message));
    }
  }
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
