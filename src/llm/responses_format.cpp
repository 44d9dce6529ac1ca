#include "llm/responses_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "llm/json_access.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;

Status Bad(const std::string& field, const std::string& why) { return Status::InvalidArgument(field + ": " + why); }

// A refusal of what only an upstream that speaks Responses can take: true
// when the caller leaves the thing out instead (upstream_only set; the first
// such refusal is noted there), false when it must refuse.
bool LeaveOut(const Status& refusal, Status* upstream_only) {
  if (upstream_only == nullptr) return false;
  if (upstream_only->ok()) *upstream_only = refusal;
  return true;
}

// A content part of an input message as a Chat Completions part.
Result<json> ChatPart(const json& part, const std::string& field) {
  const std::string type = StringOr(part, "type");
  if (type == "input_text" || type == "output_text" || type == "text") {
    return json{{"type", "text"}, {"text", StringOr(part, "text")}};
  }
  if (type == "refusal") return json{{"type", "text"}, {"text", StringOr(part, "refusal")}};
  if (type == "input_image") {
    const std::string url = StringOr(part, "image_url");
    if (url.empty()) return Bad(field, "an input_image needs an image_url (a URL or a data URL); file_id is not supported");
    json image = {{"url", url}};
    if (const std::string detail = StringOr(part, "detail"); !detail.empty() && detail != "original") image["detail"] = detail;
    return json{{"type", "image_url"}, {"image_url", std::move(image)}};
  }
  if (type == "input_file") return Bad(field, "input_file parts are not supported; send the text or an input_image");
  return Bad(field + ".type", fmt::format("'{}' is not a content part cilia knows", type));
}

// A message item's content in the Chat Completions shape: a string stays a
// string; parts become parts, or one string for roles that take only text.
Result<json> ChatContent(const json& content, const std::string& role, const std::string& field,
                         Status* upstream_only) {
  if (content.is_string()) return content;
  if (!content.is_array()) return Bad(field, "must be a string or an array of content parts");
  json parts = json::array();
  bool only_text = true;
  for (size_t i = 0; i < content.size(); ++i) {
    Result<json> part = ChatPart(content[i], fmt::format("{}[{}]", field, i));
    if (!part.ok()) {
      if (LeaveOut(part.status(), upstream_only)) continue;
      return part.status();
    }
    only_text = only_text && (*part)["type"] == "text";
    parts.push_back(std::move(*part));
  }
  if (role == "user" && !only_text) return parts;
  if (!only_text) {
    const Status refusal = Bad(field, "images are only allowed in user messages");
    if (!LeaveOut(refusal, upstream_only)) return refusal;
    json text_parts = json::array();
    for (json& part : parts) {
      if (part["type"] == "text") text_parts.push_back(std::move(part));
    }
    parts = std::move(text_parts);
  }
  std::string text;
  for (const json& part : parts) {
    if (!text.empty()) text += "\n";
    text += part["text"].get<std::string>();
  }
  return json(text);
}

// The output of a function_call_output item as tool message text.
std::string OutputText(const json& output) {
  if (output.is_string()) return output.get<std::string>();
  std::string text;
  for (const json& part : output.is_array() ? output : json::array()) {
    if (!text.empty()) text += "\n";
    text += StringOr(part, "text");
  }
  return text;
}

// Appends a function call to the assistant message it belongs with: the
// last message when that is the assistant's, else a new one.
void AddToolCall(json& messages, json call) {
  if (messages.empty() || StringOr(messages.back(), "role") != "assistant") {
    messages.push_back({{"role", "assistant"}, {"content", nullptr}});
  }
  json& message = messages.back();
  if (!message.contains("tool_calls")) message["tool_calls"] = json::array();
  message["tool_calls"].push_back(std::move(call));
}

Result<json> ChatTool(const json& tool, const std::string& field) {
  const std::string type = StringOr(tool, "type");
  if (type != "function") {
    return Bad(field + ".type", fmt::format("'{}' tools are not supported by cilia; only function tools are", type));
  }
  const std::string name = StringOr(tool, "name");
  if (name.empty()) return Bad(field + ".name", "a function tool needs a name");
  json function = {{"name", name}};
  if (const json* d = Member(tool, "description")) function["description"] = *d;
  function["parameters"] = MemberOr(tool, "parameters", json{{"type", "object"}, {"properties", json::object()}});
  if (const json* strict = Member(tool, "strict"); strict != nullptr && strict->is_boolean()) function["strict"] = *strict;
  return json{{"type", "function"}, {"function", std::move(function)}};
}

Result<json> ChatToolChoice(const json& choice) {
  if (choice.is_string()) {
    const std::string mode = choice.get<std::string>();
    if (mode != "auto" && mode != "none" && mode != "required") return Bad("tool_choice", "must be auto, none or required");
    return choice;
  }
  if (StringOr(choice, "type") == "function" && !StringOr(choice, "name").empty()) {
    return json{{"type", "function"}, {"function", {{"name", StringOr(choice, "name")}}}};
  }
  return Bad("tool_choice.type", fmt::format("'{}' is not supported; use auto, none, required or a function",
                                             StringOr(choice, "type")));
}

// text.format as response_format; null when the format is plain text.
Result<json> ChatResponseFormat(const json& text) {
  const json format = MemberOr(text, "format", json::object());
  const std::string type = StringOr(format, "type", "text");
  if (type == "text") return json(nullptr);
  if (type == "json_object") return json{{"type", "json_object"}};
  if (type == "json_schema") {
    json schema = {{"name", StringOr(format, "name", "response")}, {"schema", MemberOr(format, "schema", json::object())}};
    if (const json* d = Member(format, "description")) schema["description"] = *d;
    if (const json* s = Member(format, "strict")) schema["strict"] = *s;
    return json{{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  }
  return Bad("text.format.type", fmt::format("'{}' is not supported", type));
}

std::string ResponsesStatus(FinishReason finish) {
  return finish == FinishReason::kLength || finish == FinishReason::kContentFilter ? "incomplete" : "completed";
}

}  // namespace

std::string ItemIdSuffix(std::string_view response_id) {
  constexpr std::string_view kPrefix = "resp_";
  if (response_id.substr(0, kPrefix.size()) == kPrefix) response_id.remove_prefix(kPrefix.size());
  return std::string(response_id);
}

Result<json> ResponsesInputToChatMessages(const json& input, Status* upstream_only) {
  json messages = json::array();
  if (input.is_string()) {
    messages.push_back({{"role", "user"}, {"content", input}});
    return messages;
  }
  if (!input.is_array()) return Bad("input", "must be a string or an array of items");
  for (size_t i = 0; i < input.size(); ++i) {
    const json& item = input[i];
    const std::string field = fmt::format("input[{}]", i);
    if (!item.is_object()) return Bad(field, "must be an object");
    const std::string type = StringOr(item, "type", item.contains("role") ? "message" : "");
    if (type == "message") {
      const std::string role = StringOr(item, "role");
      if (role != "user" && role != "assistant" && role != "system" && role != "developer") {
        return Bad(field + ".role", "must be user, assistant, system or developer");
      }
      const json* content = Member(item, "content");
      if (content == nullptr) return Bad(field + ".content", "is missing");
      CILIA_ASSIGN_OR_RETURN(json chat_content, ChatContent(*content, role, field + ".content", upstream_only));
      // Many Chat Completions servers know no developer role; to those that do it is the system's.
      messages.push_back({{"role", role == "developer" ? "system" : role}, {"content", std::move(chat_content)}});
    } else if (type == "function_call") {
      const std::string call_id = StringOr(item, "call_id");
      if (call_id.empty()) return Bad(field + ".call_id", "is missing");
      AddToolCall(messages, {{"id", call_id},
                             {"type", "function"},
                             {"function", {{"name", StringOr(item, "name")}, {"arguments", StringOr(item, "arguments", "{}")}}}});
    } else if (type == "function_call_output") {
      const std::string call_id = StringOr(item, "call_id");
      if (call_id.empty()) return Bad(field + ".call_id", "is missing");
      messages.push_back({{"role", "tool"}, {"tool_call_id", call_id}, {"content", OutputText(MemberOr(item, "output", ""))}});
    } else if (type == "reasoning") {
      continue;  // no Chat Completions form; the model reasons again
    } else {
      const Status refusal =
          type == "item_reference"
              ? Bad(field, "item_reference is not supported; send the item itself, or previous_response_id")
              : Bad(field + ".type", fmt::format("'{}' items are not supported by cilia", type));
      if (!LeaveOut(refusal, upstream_only)) return refusal;
    }
  }
  return messages;
}

Result<json> ResponsesRequestToChat(const json& body, const json& history, Status* upstream_only) {
  if (!body.is_object()) return Bad("body", "must be a JSON object");
  if (const json* background = Member(body, "background"); background != nullptr && *background == true) {
    return Bad("background", "background responses are not supported by cilia");
  }
  if (Member(body, "conversation") != nullptr) {
    return Bad("conversation", "not supported; chain with previous_response_id, or name it with X-Cilia-Conversation");
  }
  if (Member(body, "prompt") != nullptr) return Bad("prompt", "stored prompts are not supported by cilia");
  const json* input = Member(body, "input");
  if (input == nullptr) return Bad("input", "is missing");
  json messages = json::array();
  if (const json* instructions = Member(body, "instructions")) {
    if (instructions->is_string()) {
      if (!instructions->get<std::string>().empty()) messages.push_back({{"role", "system"}, {"content", *instructions}});
    } else {
      return Bad("instructions", "must be a string");
    }
  }
  for (const json& m : history.is_array() ? history : json::array()) messages.push_back(m);
  CILIA_ASSIGN_OR_RETURN(json turn, ResponsesInputToChatMessages(*input, upstream_only));
  for (json& m : turn) messages.push_back(std::move(m));

  json out = {{"messages", std::move(messages)}};
  CopyIfPresent(body, "model", out, "model");
  const json& tools = ArrayOrEmpty(body, "tools");
  if (!tools.empty()) {
    json chat_tools = json::array();
    for (size_t i = 0; i < tools.size(); ++i) {
      Result<json> tool = ChatTool(tools[i], fmt::format("tools[{}]", i));
      if (tool.ok()) {
        chat_tools.push_back(std::move(*tool));
      } else if (!LeaveOut(tool.status(), upstream_only)) {
        return tool.status();
      }
    }
    if (!chat_tools.empty()) out["tools"] = std::move(chat_tools);
  }
  if (const json* choice = Member(body, "tool_choice")) {
    Result<json> chat_choice = ChatToolChoice(*choice);
    if (chat_choice.ok()) {
      out["tool_choice"] = std::move(*chat_choice);
    } else if (!LeaveOut(chat_choice.status(), upstream_only)) {
      return chat_choice.status();
    }
  }
  if (const json* max = Member(body, "max_output_tokens")) {
    if (!max->is_number_integer() || max->get<int64_t>() < 1) return Bad("max_output_tokens", "must be a positive integer");
    out["max_tokens"] = *max;
  }
  if (const json* reasoning = Member(body, "reasoning")) {
    if (const std::string effort = StringOr(*reasoning, "effort"); !effort.empty()) out["reasoning_effort"] = effort;
  }
  if (const json* text = Member(body, "text")) {
    Result<json> format = ChatResponseFormat(*text);
    if (!format.ok() && !LeaveOut(format.status(), upstream_only)) return format.status();
    if (format.ok() && !format->is_null()) out["response_format"] = std::move(*format);
  }
  CopyIfPresent(body, "temperature", out, "temperature");
  CopyIfPresent(body, "top_p", out, "top_p");
  CopyIfPresent(body, "parallel_tool_calls", out, "parallel_tool_calls");
  CopyIfPresent(body, "user", out, "user");
  const bool stream = MemberOr(body, "stream", false) == true;
  out["stream"] = stream;
  if (stream) out["stream_options"] = {{"include_usage", true}};
  return out;
}

json ResponseSkeleton(const json& request, const ResponseHeader& header) {
  json reasoning = nullptr;
  if (const json* r = Member(request, "reasoning")) {
    reasoning = {{"effort", MemberOr(*r, "effort", nullptr)}, {"summary", MemberOr(*r, "summary", nullptr)}};
  }
  return {{"id", header.id},
          {"object", "response"},
          {"created_at", header.created_at},
          {"status", "in_progress"},
          {"background", false},
          {"error", nullptr},
          {"incomplete_details", nullptr},
          {"instructions", MemberOr(request, "instructions", nullptr)},
          {"max_output_tokens", MemberOr(request, "max_output_tokens", nullptr)},
          {"metadata", MemberOr(request, "metadata", json::object())},
          {"model", header.model},
          {"output", json::array()},
          {"parallel_tool_calls", MemberOr(request, "parallel_tool_calls", true)},
          {"previous_response_id", MemberOr(request, "previous_response_id", nullptr)},
          {"reasoning", reasoning},
          {"store", MemberOr(request, "store", true)},
          {"temperature", MemberOr(request, "temperature", nullptr)},
          {"text", MemberOr(request, "text", json{{"format", {{"type", "text"}}}})},
          {"tool_choice", MemberOr(request, "tool_choice", "auto")},
          {"tools", MemberOr(request, "tools", json::array())},
          {"top_p", MemberOr(request, "top_p", nullptr)},
          {"truncation", MemberOr(request, "truncation", "disabled")},
          {"usage", nullptr},
          {"user", MemberOr(request, "user", nullptr)}};
}

json ResponseOutputItems(const AssistantTurn& turn, const std::string& response_id) {
  const std::string suffix = ItemIdSuffix(response_id);
  json output = json::array();
  if (const std::string reasoning = turn.ReasoningText(); !reasoning.empty()) {
    output.push_back({{"id", "rs_" + suffix},
                      {"type", "reasoning"},
                      {"summary", json::array({{{"type", "summary_text"}, {"text", reasoning}}})}});
  }
  if (!turn.text.empty()) {
    output.push_back({{"id", "msg_" + suffix},
                      {"type", "message"},
                      {"status", ResponsesStatus(turn.finish)},
                      {"role", "assistant"},
                      {"content", json::array({{{"type", "output_text"}, {"text", turn.text}, {"annotations", json::array()}}})}});
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const ToolCall& call = turn.tool_calls[i];
    output.push_back({{"id", fmt::format("fc_{}_{}", suffix, i)},
                      {"type", "function_call"},
                      {"status", "completed"},
                      {"call_id", call.id},
                      {"name", call.name},
                      {"arguments", call.arguments}});
  }
  return output;
}

json UsageToResponses(const Usage& usage) {
  return {{"input_tokens", usage.input},
          {"input_tokens_details", {{"cached_tokens", usage.cache_read}}},
          {"output_tokens", usage.output},
          {"output_tokens_details", {{"reasoning_tokens", usage.reasoning}}},
          {"total_tokens", usage.input + usage.output}};
}

Usage UsageFromResponses(const json& usage) {
  Usage out;
  out.input = IntOr(usage, "input_tokens");
  out.output = IntOr(usage, "output_tokens");
  out.cache_read = IntOr(MemberOr(usage, "input_tokens_details", json::object()), "cached_tokens");
  out.reasoning = IntOr(MemberOr(usage, "output_tokens_details", json::object()), "reasoning_tokens");
  return out;
}

json ChatResponseToResponses(const json& chat_response, const json& request, const ResponseHeader& header) {
  const AssistantTurn turn = TurnFromOpenAIResponse(chat_response);
  json response = ResponseSkeleton(request, header);
  response["output"] = ResponseOutputItems(turn, header.id);
  response["status"] = ResponsesStatus(turn.finish);
  if (turn.finish == FinishReason::kLength) response["incomplete_details"] = {{"reason", "max_output_tokens"}};
  if (turn.finish == FinishReason::kContentFilter) response["incomplete_details"] = {{"reason", "content_filter"}};
  response["usage"] = UsageToResponses(turn.usage);
  return response;
}

json ResponseOutputToChatMessages(const json& output) {
  json messages = json::array();
  for (const json& item : output.is_array() ? output : json::array()) {
    const std::string type = StringOr(item, "type");
    if (type == "message") {
      std::string text;
      for (const json& part : ArrayOrEmpty(item, "content")) text += StringOr(part, "text", StringOr(part, "refusal"));
      messages.push_back({{"role", "assistant"}, {"content", text}});
    } else if (type == "function_call") {
      AddToolCall(messages, {{"id", StringOr(item, "call_id")},
                             {"type", "function"},
                             {"function", {{"name", StringOr(item, "name")}, {"arguments", StringOr(item, "arguments")}}}});
    }
  }
  return messages;
}

// ---- an upstream that speaks Responses ---------------------------------------

json ChatRequestToResponses(const json& chat_body) {
  json input = json::array();
  const json& messages = ArrayOrEmpty(chat_body, "messages");
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    const std::string role = StringOr(m, "role");
    if (role == "tool") {
      input.push_back({{"type", "function_call_output"},
                       {"call_id", StringOr(m, "tool_call_id")},
                       {"output", m.contains("content") && m["content"].is_string() ? m["content"] : json(OutputText(MemberOr(m, "content", "")))}});
      continue;
    }
    const json content = MemberOr(m, "content", "");
    const bool assistant = role == "assistant";
    json item_content;
    if (content.is_string()) {
      item_content = content;
    } else {
      item_content = json::array();
      for (const json& part : content.is_array() ? content : json::array()) {
        const std::string type = StringOr(part, "type");
        if (type == "text") {
          item_content.push_back({{"type", assistant ? "output_text" : "input_text"}, {"text", StringOr(part, "text")}});
        } else if (type == "image_url") {
          const json image = MemberOr(part, "image_url", json::object());
          json out = {{"type", "input_image"}, {"image_url", StringOr(image, "url")}, {"detail", StringOr(image, "detail", "auto")}};
          item_content.push_back(std::move(out));
        } else {
          item_content.push_back(part);
        }
      }
    }
    const bool has_text = item_content.is_string() ? !item_content.get<std::string>().empty() : !item_content.empty();
    if (has_text || !assistant) input.push_back({{"type", "message"}, {"role", role}, {"content", std::move(item_content)}});
    for (const json& call : ArrayOrEmpty(m, "tool_calls")) {
      const json function = MemberOr(call, "function", json::object());
      input.push_back({{"type", "function_call"},
                       {"call_id", StringOr(call, "id")},
                       {"name", StringOr(function, "name")},
                       {"arguments", StringOr(function, "arguments", "{}")}});
    }
  }
  json out = {{"input", std::move(input)}, {"store", false}};
  CopyIfPresent(chat_body, "model", out, "model");
  const json& tools = ArrayOrEmpty(chat_body, "tools");
  if (!tools.empty()) {
    json flat = json::array();
    for (const json& tool : tools) {
      const json function = MemberOr(tool, "function", json::object());
      json t = {{"type", "function"}, {"name", StringOr(function, "name")}};
      CopyIfPresent(function, "description", t, "description");
      t["parameters"] = MemberOr(function, "parameters", json{{"type", "object"}, {"properties", json::object()}});
      CopyIfPresent(function, "strict", t, "strict");
      flat.push_back(std::move(t));
    }
    out["tools"] = std::move(flat);
  }
  if (const json* choice = Member(chat_body, "tool_choice")) {
    if (choice->is_string()) {
      out["tool_choice"] = *choice;
    } else {
      out["tool_choice"] = {{"type", "function"}, {"name", StringOr(MemberOr(*choice, "function", json::object()), "name")}};
    }
  }
  if (const json* max = Member(chat_body, "max_completion_tokens")) {
    out["max_output_tokens"] = *max;
  } else if (const json* max_tokens = Member(chat_body, "max_tokens")) {
    out["max_output_tokens"] = *max_tokens;
  }
  if (const std::string effort = StringOr(chat_body, "reasoning_effort"); !effort.empty()) out["reasoning"] = {{"effort", effort}};
  if (const json* format = Member(chat_body, "response_format")) {
    const std::string type = StringOr(*format, "type");
    if (type == "json_schema") {
      json f = MemberOr(*format, "json_schema", json::object());
      f["type"] = "json_schema";
      out["text"] = {{"format", std::move(f)}};
    } else if (type == "json_object") {
      out["text"] = {{"format", {{"type", "json_object"}}}};
    }
  }
  CopyIfPresent(chat_body, "temperature", out, "temperature");
  CopyIfPresent(chat_body, "top_p", out, "top_p");
  CopyIfPresent(chat_body, "parallel_tool_calls", out, "parallel_tool_calls");
  CopyIfPresent(chat_body, "user", out, "user");
  CopyIfPresent(chat_body, "stream", out, "stream");
  return out;
}

json ResponsesResponseToChat(const json& response) {
  json message = {{"role", "assistant"}, {"content", nullptr}};
  std::string text, reasoning;
  json tool_calls = json::array();
  for (const json& item : ArrayOrEmpty(response, "output")) {
    const std::string type = StringOr(item, "type");
    if (type == "message") {
      for (const json& part : ArrayOrEmpty(item, "content")) text += StringOr(part, "text", StringOr(part, "refusal"));
    } else if (type == "reasoning") {
      for (const json& part : ArrayOrEmpty(item, "summary")) reasoning += StringOr(part, "text");
      for (const json& part : ArrayOrEmpty(item, "content")) reasoning += StringOr(part, "text");
    } else if (type == "function_call") {
      tool_calls.push_back({{"id", StringOr(item, "call_id")},
                            {"type", "function"},
                            {"function", {{"name", StringOr(item, "name")}, {"arguments", StringOr(item, "arguments")}}}});
    }
  }
  if (!text.empty()) message["content"] = text;
  if (!reasoning.empty()) message["reasoning_content"] = reasoning;
  std::string finish = "stop";
  if (!tool_calls.empty()) {
    message["tool_calls"] = std::move(tool_calls);
    finish = "tool_calls";
  }
  const json incomplete = MemberOr(response, "incomplete_details", json::object());
  if (StringOr(response, "status") == "incomplete") {
    finish = StringOr(incomplete, "reason") == "content_filter" ? "content_filter" : "length";
  }
  json chat_usage = UsageToOpenAI(UsageFromResponses(MemberOr(response, "usage", json::object())));
  return {{"id", StringOr(response, "id")},
          {"object", "chat.completion"},
          {"created", IntOr(response, "created_at")},
          {"model", StringOr(response, "model")},
          {"choices", json::array({{{"index", 0}, {"message", std::move(message)}, {"finish_reason", finish}}})},
          {"usage", std::move(chat_usage)}};
}

// ---- a Responses client on an upstream that speaks Responses ------------------

AssistantTurn TurnFromResponsesResponse(const json& response) {
  AssistantTurn turn = TurnFromOpenAIResponse(ResponsesResponseToChat(response));
  turn.items = ArrayOrEmpty(response, "output");
  return turn;
}

json WithoutCallsTo(const json& output, std::string_view tool) {
  json kept = json::array();
  for (const json& item : output.is_array() ? output : json::array()) {
    if (StringOr(item, "type") == "function_call" && StringOr(item, "name") == tool) continue;
    kept.push_back(item);
  }
  return kept;
}

json InputItems(const json& input) {
  if (input.is_array()) return input;
  if (input.is_string()) return json::array({{{"type", "message"}, {"role", "user"}, {"content", input}}});
  return json::array();
}

json AsClientResponse(json response, const json& request, const ResponseHeader& header) {
  // The skeleton has what cilia sets; what the upstream says overlays the rest.
  json client = ResponseSkeleton(request, header);
  static constexpr std::string_view kCiliasOwn[] = {"id",    "model",       "instructions",
                                                    "tools", "tool_choice", "previous_response_id"};
  if (!response.is_object()) return client;
  for (auto it = response.begin(); it != response.end(); ++it) {
    const bool ours = std::find(std::begin(kCiliasOwn), std::end(kCiliasOwn), it.key()) != std::end(kCiliasOwn);
    if (!ours) client[it.key()] = std::move(it.value());
  }
  return client;
}

}  // namespace cilia::llm
