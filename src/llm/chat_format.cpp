#include "llm/chat_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "llm/json_access.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;

Status Bad(const std::string& path, std::string_view what) {
  return Status::InvalidArgument(fmt::format("{}: {}", path, what));
}

// ---- usage and finish reasons ------------------------------------------------

int64_t NonNegative(int64_t n) { return std::max<int64_t>(n, 0); }

// ---- OpenAI → Anthropic request ----------------------------------------------

// "data:<media type>;base64,<data>" → an Anthropic base64 image source.
Result<json> DataUrlSource(const std::string& url, const std::string& path) {
  const size_t marker = url.find(";base64,");
  if (marker == std::string::npos || marker <= 5) return Bad(path, "a data URL must be \"data:<type>;base64,<data>\"");
  return json{{"type", "base64"}, {"media_type", url.substr(5, marker - 5)}, {"data", url.substr(marker + 8)}};
}

Result<json> ImageBlockFromPart(const json& part, const std::string& path) {
  const json* image_url = Member(part, "image_url");
  // {"image_url": "..."} is a common shorthand for {"image_url": {"url": "..."}}.
  const std::string url = image_url != nullptr && image_url->is_string() ? image_url->get<std::string>()
                          : image_url != nullptr                        ? StringOr(*image_url, "url")
                                                                        : "";
  if (url.empty()) return Bad(path, "an image_url part needs image_url.url");
  json block = {{"type", "image"}};
  if (url.rfind("data:", 0) == 0) {
    CILIA_ASSIGN_OR_RETURN(block["source"], DataUrlSource(url, path + ".image_url.url"));
  } else if (url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) {
    block["source"] = {{"type", "url"}, {"url", url}};
  } else {
    return Bad(path, "image_url.url must be a data: or http(s): URL");
  }
  return block;
}

// Content (a string or a parts array) as Anthropic blocks: text and images.
// Empty text is left out: the Messages API refuses empty text blocks.
Result<json> ContentBlocks(const json& content, const std::string& path) {
  json blocks = json::array();
  if (content.is_null()) return blocks;
  if (content.is_string()) {
    if (!content.get_ref<const std::string&>().empty()) blocks.push_back({{"type", "text"}, {"text", content}});
    return blocks;
  }
  if (!content.is_array()) return Bad(path, "content must be a string or an array of parts");
  for (size_t i = 0; i < content.size(); ++i) {
    const json& part = content[i];
    const std::string part_path = fmt::format("{}[{}]", path, i);
    const std::string type = StringOr(part, "type");
    json block;
    if (type == "text" || type == "refusal") {
      const std::string text = StringOr(part, type.c_str());
      if (text.empty()) continue;
      block = {{"type", "text"}, {"text", text}};
    } else if (type == "image_url") {
      CILIA_ASSIGN_OR_RETURN(block, ImageBlockFromPart(part, part_path));
    } else {
      return Bad(part_path, fmt::format("content part type \"{}\" cannot be sent to an Anthropic upstream", type));
    }
    if (const json* marker = Member(part, "cache_control")) block["cache_control"] = *marker;
    blocks.push_back(std::move(block));
  }
  return blocks;
}

// A message-level cache_control (an OpenAI-compatible extension) marks the
// message's last block, which is where Anthropic wants it.
void CarryMessageMarker(const json& message, json& blocks) {
  const json* marker = Member(message, "cache_control");
  if (marker != nullptr && !blocks.empty()) blocks.back()["cache_control"] = *marker;
}

Result<json> ToolUseBlock(const json& call, const std::string& path) {
  const json* function = Member(call, "function");
  if (function == nullptr) return Bad(path, "a tool call needs a function");
  const std::string id = StringOr(call, "id");
  if (id.empty()) return Bad(path, "a tool call needs an id");
  const json* arguments = Member(*function, "arguments");
  json input = json::object();
  if (arguments != nullptr && arguments->is_string() && !arguments->get_ref<const std::string&>().empty()) {
    input = json::parse(arguments->get<std::string>(), nullptr, false);
  } else if (arguments != nullptr && arguments->is_object()) {
    input = *arguments;
  }
  if (!input.is_object()) {
    return Bad(path + ".function.arguments", "must be a JSON object (Anthropic tool_use input is one)");
  }
  return json{{"type", "tool_use"}, {"id", id}, {"name", StringOr(*function, "name")}, {"input", std::move(input)}};
}

Result<json> AssistantBlocks(const json& message, const std::string& path) {
  CILIA_ASSIGN_OR_RETURN(json blocks, ContentBlocks(MemberOr(message, "content", json()), path + ".content"));
  const json& calls = ArrayOrEmpty(message, "tool_calls");
  for (size_t i = 0; i < calls.size(); ++i) {
    CILIA_ASSIGN_OR_RETURN(json block, ToolUseBlock(calls[i], fmt::format("{}.tool_calls[{}]", path, i)));
    blocks.push_back(std::move(block));
  }
  return blocks;
}

Result<json> ToolResultBlock(const json& message, const std::string& path) {
  const std::string id = StringOr(message, "tool_call_id");
  if (id.empty()) return Bad(path, "a tool message needs tool_call_id");
  json block = {{"type", "tool_result"}, {"tool_use_id", id}};
  const json content = MemberOr(message, "content", json(""));
  if (content.is_string()) {
    block["content"] = content;
  } else {
    CILIA_ASSIGN_OR_RETURN(block["content"], ContentBlocks(content, path + ".content"));
  }
  return block;
}

// Adds blocks as a `role` turn, merged into the turn before when that has the
// same role: the Messages API wants user and assistant to alternate.
void AppendTurn(json& turns, const char* role, json blocks) {
  if (blocks.empty()) return;
  if (!turns.empty() && turns.back()["role"] == role) {
    for (json& block : blocks) turns.back()["content"].push_back(std::move(block));
    return;
  }
  turns.push_back({{"role", role}, {"content", std::move(blocks)}});
}

Result<json> AnthropicTools(const json& tools) {
  json out = json::array();
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string path = fmt::format("tools[{}]", i);
    const json* function = Member(tools[i], "function");
    if (StringOr(tools[i], "type", "function") != "function" || function == nullptr) {
      return Bad(path, "only function tools can be sent to an Anthropic upstream");
    }
    json tool = {{"name", StringOr(*function, "name")}};
    if (const json* description = Member(*function, "description")) tool["description"] = *description;
    const json* parameters = Member(*function, "parameters");
    tool["input_schema"] = parameters != nullptr ? *parameters : json{{"type", "object"}, {"properties", json::object()}};
    if (const json* marker = Member(tools[i], "cache_control")) tool["cache_control"] = *marker;
    out.push_back(std::move(tool));
  }
  return out;
}

Result<json> AnthropicToolChoice(const json& choice) {
  if (choice.is_string()) {
    const std::string& mode = choice.get_ref<const std::string&>();
    if (mode == "auto") return json{{"type", "auto"}};
    if (mode == "none") return json{{"type", "none"}};
    if (mode == "required") return json{{"type", "any"}};
  } else if (const json* function = Member(choice, "function"); function != nullptr && Member(*function, "name")) {
    return json{{"type", "tool"}, {"name", StringOr(*function, "name")}};
  }
  return Bad("tool_choice", "expected \"auto\", \"none\", \"required\" or {\"type\":\"function\",\"function\":{\"name\"}}");
}

// ---- Anthropic → OpenAI request ----------------------------------------------

Result<json> ImagePartFromBlock(const json& block, const std::string& path) {
  const json* source = Member(block, "source");
  const std::string type = source != nullptr ? StringOr(*source, "type") : "";
  if (type == "base64") {
    return json{{"type", "image_url"},
                {"image_url", {{"url", fmt::format("data:{};base64,{}", StringOr(*source, "media_type"),
                                                   StringOr(*source, "data"))}}}};
  }
  if (type == "url") return json{{"type", "image_url"}, {"image_url", {{"url", StringOr(*source, "url")}}}};
  return Bad(path, fmt::format("image source type \"{}\" cannot be sent to an OpenAI-compatible upstream", type));
}

// OpenAI content from parts: a single text part collapses to a string, which
// every OpenAI-compatible server accepts.
json OpenAIContent(json parts) {
  if (parts.size() == 1 && parts[0]["type"] == "text") return parts[0]["text"];
  return parts;
}

// A tool_result's content as tool-message text; its images go to `images`,
// since OpenAI tool messages carry text only.
Result<std::string> ToolResultText(const json& block, const std::string& path, json& images) {
  const json content = MemberOr(block, "content", json(""));
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  const json& parts = content.is_array() ? content : json::array();
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string type = StringOr(parts[i], "type");
    if (type == "text") {
      if (!text.empty()) text += "\n";
      text += StringOr(parts[i], "text");
    } else if (type == "image") {
      CILIA_ASSIGN_OR_RETURN(json image, ImagePartFromBlock(parts[i], fmt::format("{}.content[{}]", path, i)));
      images.push_back(std::move(image));
    } else {
      return Bad(fmt::format("{}.content[{}]", path, i), fmt::format("block type \"{}\" in a tool_result is not supported", type));
    }
  }
  return text;
}

// A user turn: its tool_result blocks become tool messages (first, as the
// Messages API has them first), the rest one user message after them.
Status AppendOpenAIUser(const json& content, const std::string& path, json& messages) {
  if (content.is_string()) {
    messages.push_back({{"role", "user"}, {"content", content}});
    return Status::Ok();
  }
  if (!content.is_array()) return Bad(path, "content must be a string or an array of blocks");
  json parts = json::array();
  json tool_images = json::array();
  for (size_t i = 0; i < content.size(); ++i) {
    const json& block = content[i];
    const std::string block_path = fmt::format("{}[{}]", path, i);
    const std::string type = StringOr(block, "type");
    if (type == "text") {
      parts.push_back({{"type", "text"}, {"text", StringOr(block, "text")}});
    } else if (type == "image") {
      CILIA_ASSIGN_OR_RETURN(json image, ImagePartFromBlock(block, block_path));
      parts.push_back(std::move(image));
    } else if (type == "tool_result") {
      CILIA_ASSIGN_OR_RETURN(std::string text, ToolResultText(block, block_path, tool_images));
      messages.push_back({{"role", "tool"}, {"tool_call_id", StringOr(block, "tool_use_id")}, {"content", text}});
    } else {
      return Bad(block_path, fmt::format("block type \"{}\" cannot be sent to an OpenAI-compatible upstream", type));
    }
  }
  for (json& image : tool_images) parts.push_back(std::move(image));
  if (!parts.empty()) messages.push_back({{"role", "user"}, {"content", OpenAIContent(std::move(parts))}});
  return Status::Ok();
}

// An assistant turn: text joined, tool_use → tool_calls, thinking dropped
// (OpenAI-compatible servers take no signed thinking back).
Status AppendOpenAIAssistant(const json& content, const std::string& path, json& messages) {
  if (content.is_string()) {
    messages.push_back({{"role", "assistant"}, {"content", content}});
    return Status::Ok();
  }
  if (!content.is_array()) return Bad(path, "content must be a string or an array of blocks");
  std::string text;
  json calls = json::array();
  for (size_t i = 0; i < content.size(); ++i) {
    const json& block = content[i];
    const std::string type = StringOr(block, "type");
    if (type == "text") {
      text += StringOr(block, "text");
    } else if (type == "tool_use") {
      calls.push_back({{"id", StringOr(block, "id")},
                       {"type", "function"},
                       {"function", {{"name", StringOr(block, "name")}, {"arguments", Dump(MemberOr(block, "input", json::object()))}}}});
    } else if (type != "thinking" && type != "redacted_thinking") {
      return Bad(fmt::format("{}[{}]", path, i), fmt::format("block type \"{}\" cannot be sent to an OpenAI-compatible upstream", type));
    }
  }
  json message = {{"role", "assistant"}, {"content", text.empty() && !calls.empty() ? json() : json(text)}};
  if (!calls.empty()) message["tool_calls"] = std::move(calls);
  messages.push_back(std::move(message));
  return Status::Ok();
}

Result<std::string> SystemText(const json& system) {
  if (system.is_string()) return system.get<std::string>();
  if (!system.is_array()) return Bad("system", "must be a string or an array of text blocks");
  std::string text;
  for (size_t i = 0; i < system.size(); ++i) {
    if (StringOr(system[i], "type") != "text") return Bad(fmt::format("system[{}]", i), "only text blocks are supported");
    if (!text.empty()) text += "\n\n";
    text += StringOr(system[i], "text");
  }
  return text;
}

Result<json> OpenAITools(const json& tools) {
  json out = json::array();
  for (size_t i = 0; i < tools.size(); ++i) {
    const json& tool = tools[i];
    const std::string type = StringOr(tool, "type", "custom");
    if (type != "custom" || Member(tool, "input_schema") == nullptr) {
      return Bad(fmt::format("tools[{}]", i), fmt::format("tool \"{}\" (type \"{}\") has no OpenAI equivalent",
                                                          StringOr(tool, "name"), type));
    }
    json function = {{"name", StringOr(tool, "name")}, {"parameters", tool["input_schema"]}};
    if (const json* description = Member(tool, "description")) function["description"] = *description;
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

Result<json> OpenAIToolChoice(const json& choice) {
  const std::string type = StringOr(choice, "type");
  if (type == "auto") return json("auto");
  if (type == "none") return json("none");
  if (type == "any") return json("required");
  if (type == "tool") return json{{"type", "function"}, {"function", {{"name", StringOr(choice, "name")}}}};
  return Bad("tool_choice", "expected type auto, any, tool or none");
}

// OpenAI's reasoning_effort (where the Responses API's reasoning.effort lands
// too) as Anthropic's extended thinking: a budget by level, within
// max_tokens as Anthropic requires (the answer keeps what the client asked
// for). Thinking takes no temperature or top_k, so those are left out.
Status ApplyReasoningEffort(const json& body, json& out) {
  const json* effort = Member(body, "reasoning_effort");
  if (effort == nullptr || effort->is_null()) return Status::Ok();
  static constexpr std::pair<std::string_view, int64_t> kBudgets[] = {
      {"minimal", 1024}, {"low", 2048}, {"medium", 8192}, {"high", 16384}, {"xhigh", 32768}};
  const std::string level = effort->is_string() ? effort->get<std::string>() : "";
  if (level == "none") return Status::Ok();
  const auto* found = std::find_if(std::begin(kBudgets), std::end(kBudgets),
                                   [&level](const auto& entry) { return entry.first == level; });
  if (found == std::end(kBudgets)) return Bad("reasoning_effort", "expected none, minimal, low, medium, high or xhigh");
  const int64_t budget = found->second;
  out["thinking"] = {{"type", "enabled"}, {"budget_tokens", budget}};
  const int64_t answer = out["max_tokens"].get<int64_t>();
  if (answer <= budget) out["max_tokens"] = budget + answer;
  out.erase("temperature");
  out.erase("top_k");
  return Status::Ok();
}

Result<json> ConvertOpenAIRequest(const json& body) {
  const json* messages = Member(body, "messages");
  if (messages == nullptr || !messages->is_array()) return Bad("messages", "must be an array");
  if (IntOr(body, "n", 1) != 1) return Bad("n", "only n = 1 is supported");

  json out = json::object();
  CopyIfPresent(body, "model", out, "model");
  json system = json::array();
  json turns = json::array();
  for (size_t i = 0; i < messages->size(); ++i) {
    const json& message = (*messages)[i];
    const std::string path = fmt::format("messages[{}]", i);
    const std::string role = StringOr(message, "role");
    json blocks;
    if (role == "system" || role == "developer") {
      CILIA_ASSIGN_OR_RETURN(blocks, ContentBlocks(MemberOr(message, "content", json()), path + ".content"));
      CarryMessageMarker(message, blocks);
      for (json& block : blocks) {
        if (block["type"] != "text") return Bad(path, "a system message may hold text only");
        system.push_back(std::move(block));
      }
      continue;
    }
    if (role == "user") {
      CILIA_ASSIGN_OR_RETURN(blocks, ContentBlocks(MemberOr(message, "content", json()), path + ".content"));
    } else if (role == "assistant") {
      CILIA_ASSIGN_OR_RETURN(blocks, AssistantBlocks(message, path));
    } else if (role == "tool") {
      CILIA_ASSIGN_OR_RETURN(json block, ToolResultBlock(message, path));
      blocks = json::array({std::move(block)});
    } else {
      return Bad(path + ".role", fmt::format("role \"{}\" is not supported", role));
    }
    CarryMessageMarker(message, blocks);
    AppendTurn(turns, role == "assistant" ? "assistant" : "user", std::move(blocks));
  }
  if (!system.empty()) out["system"] = std::move(system);
  out["messages"] = std::move(turns);

  const json& tools = ArrayOrEmpty(body, "tools");
  if (!tools.empty()) {
    CILIA_ASSIGN_OR_RETURN(out["tools"], AnthropicTools(tools));
    if (const json* choice = Member(body, "tool_choice")) {
      CILIA_ASSIGN_OR_RETURN(out["tool_choice"], AnthropicToolChoice(*choice));
    }
    const json* parallel = Member(body, "parallel_tool_calls");
    if (parallel != nullptr && parallel->is_boolean() && !parallel->get<bool>()) {
      if (!out.contains("tool_choice")) out["tool_choice"] = {{"type", "auto"}};
      if (out["tool_choice"]["type"] != "none") out["tool_choice"]["disable_parallel_tool_use"] = true;
    }
  }
  out["max_tokens"] = IntOr(body, "max_completion_tokens", IntOr(body, "max_tokens", kDefaultAnthropicMaxTokens));
  CopyIfPresent(body, "temperature", out, "temperature");
  CopyIfPresent(body, "top_p", out, "top_p");
  CopyIfPresent(body, "top_k", out, "top_k");
  CopyIfPresent(body, "stream", out, "stream");
  CopyIfPresent(body, "thinking", out, "thinking");  // a native field some clients send along
  if (!out.contains("thinking")) CILIA_RETURN_IF_ERROR(ApplyReasoningEffort(body, out));
  if (const json* stop = Member(body, "stop")) {
    out["stop_sequences"] = stop->is_string() ? json::array({*stop}) : *stop;
  }
  if (const json* user = Member(body, "user"); user != nullptr && user->is_string()) {
    out["metadata"] = {{"user_id", *user}};
  }
  return out;
}

Result<json> ConvertAnthropicRequest(const json& body) {
  const json* turns = Member(body, "messages");
  if (turns == nullptr || !turns->is_array()) return Bad("messages", "must be an array");

  json out = json::object();
  CopyIfPresent(body, "model", out, "model");
  json messages = json::array();
  if (const json* system = Member(body, "system")) {
    CILIA_ASSIGN_OR_RETURN(std::string text, SystemText(*system));
    if (!text.empty()) messages.push_back({{"role", "system"}, {"content", text}});
  }
  for (size_t i = 0; i < turns->size(); ++i) {
    const json& turn = (*turns)[i];
    const std::string path = fmt::format("messages[{}].content", i);
    const std::string role = StringOr(turn, "role");
    const json content = MemberOr(turn, "content", json(""));
    if (role == "user") {
      CILIA_RETURN_IF_ERROR(AppendOpenAIUser(content, path, messages));
    } else if (role == "assistant") {
      CILIA_RETURN_IF_ERROR(AppendOpenAIAssistant(content, path, messages));
    } else {
      return Bad(fmt::format("messages[{}].role", i), fmt::format("role \"{}\" is not supported", role));
    }
  }
  out["messages"] = std::move(messages);

  const json& tools = ArrayOrEmpty(body, "tools");
  if (!tools.empty()) {
    CILIA_ASSIGN_OR_RETURN(out["tools"], OpenAITools(tools));
    if (const json* choice = Member(body, "tool_choice")) {
      CILIA_ASSIGN_OR_RETURN(out["tool_choice"], OpenAIToolChoice(*choice));
      const json* serial = Member(*choice, "disable_parallel_tool_use");
      if (serial != nullptr && serial->is_boolean() && serial->get<bool>()) out["parallel_tool_calls"] = false;
    }
  }
  CopyIfPresent(body, "max_tokens", out, "max_tokens");
  CopyIfPresent(body, "temperature", out, "temperature");
  CopyIfPresent(body, "top_p", out, "top_p");
  CopyIfPresent(body, "stop_sequences", out, "stop");
  CopyIfPresent(body, "stream", out, "stream");
  if (const json* metadata = Member(body, "metadata")) CopyIfPresent(*metadata, "user_id", out, "user");
  return out;
}

}  // namespace

Usage UsageFromOpenAI(const json& usage) {
  Usage u;
  u.input = NonNegative(IntOr(usage, "prompt_tokens"));
  u.output = NonNegative(IntOr(usage, "completion_tokens"));
  const json* details = Member(usage, "prompt_tokens_details");
  u.cache_read = NonNegative(details != nullptr ? IntOr(*details, "cached_tokens", IntOr(usage, "prompt_cache_hit_tokens"))
                                                : IntOr(usage, "prompt_cache_hit_tokens"));
  u.reasoning = NonNegative(IntOr(MemberOr(usage, "completion_tokens_details", json::object()), "reasoning_tokens"));
  return u;
}

Usage UsageFromAnthropic(const json& usage) {
  Usage u;
  u.cache_read = NonNegative(IntOr(usage, "cache_read_input_tokens"));
  u.cache_write = NonNegative(IntOr(usage, "cache_creation_input_tokens"));
  u.input = NonNegative(IntOr(usage, "input_tokens")) + u.cache_read + u.cache_write;
  u.output = NonNegative(IntOr(usage, "output_tokens"));
  return u;
}

json UsageToOpenAI(const Usage& u) {
  json out = {{"prompt_tokens", u.input},
              {"completion_tokens", u.output},
              {"total_tokens", u.input + u.output},
              {"prompt_tokens_details", {{"cached_tokens", u.cache_read}}}};
  if (u.reasoning > 0) out["completion_tokens_details"] = {{"reasoning_tokens", u.reasoning}};
  return out;
}

json UsageToAnthropic(const Usage& u) {
  return {{"input_tokens", NonNegative(u.input - u.cache_read - u.cache_write)},
          {"output_tokens", u.output},
          {"cache_creation_input_tokens", u.cache_write},
          {"cache_read_input_tokens", u.cache_read}};
}

FinishReason FinishFromOpenAI(std::string_view r) {
  if (r == "stop") return FinishReason::kStop;
  if (r == "length") return FinishReason::kLength;
  if (r == "tool_calls" || r == "function_call") return FinishReason::kToolCalls;
  if (r == "content_filter") return FinishReason::kContentFilter;
  return FinishReason::kNone;
}

FinishReason FinishFromAnthropic(std::string_view r) {
  if (r == "end_turn" || r == "pause_turn") return FinishReason::kStop;
  if (r == "stop_sequence") return FinishReason::kStopSequence;
  if (r == "max_tokens" || r == "model_context_window_exceeded") return FinishReason::kLength;
  if (r == "tool_use") return FinishReason::kToolCalls;
  if (r == "refusal") return FinishReason::kContentFilter;
  return FinishReason::kNone;
}

std::string OpenAIFinishName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
    case FinishReason::kStopSequence: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kToolCalls: return "tool_calls";
    case FinishReason::kContentFilter: return "content_filter";
    case FinishReason::kNone: break;
  }
  return "";
}

std::string AnthropicStopName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop: return "end_turn";
    case FinishReason::kStopSequence: return "stop_sequence";
    case FinishReason::kLength: return "max_tokens";
    case FinishReason::kToolCalls: return "tool_use";
    case FinishReason::kContentFilter: return "refusal";
    case FinishReason::kNone: break;
  }
  return "";
}

std::string AssistantTurn::ReasoningText() const {
  std::string text;
  for (const ThinkingBlock& block : thinking) text += block.thinking;
  return text;
}

bool AssistantTurn::CalledTool(std::string_view name) const {
  return std::any_of(tool_calls.begin(), tool_calls.end(), [name](const ToolCall& c) { return c.name == name; });
}

AssistantTurn TurnFromOpenAIResponse(const json& response) {
  AssistantTurn turn;
  turn.id = StringOr(response, "id");
  turn.model = StringOr(response, "model");
  turn.usage = UsageFromOpenAI(MemberOr(response, "usage", json()));
  const json& choices = ArrayOrEmpty(response, "choices");
  if (choices.empty()) return turn;
  turn.finish = FinishFromOpenAI(StringOr(choices[0], "finish_reason"));
  const json* message = Member(choices[0], "message");
  if (message == nullptr) return turn;
  if (const json* content = Member(*message, "content"); content != nullptr && content->is_array()) {
    for (const json& part : *content) turn.text += StringOr(part, "text");
  } else {
    turn.text = StringOr(*message, "content");
  }
  if (turn.text.empty()) turn.text = StringOr(*message, "refusal");
  // DeepSeek and vLLM say reasoning_content; OpenRouter and others say reasoning.
  const std::string reasoning = StringOr(*message, "reasoning_content", StringOr(*message, "reasoning"));
  if (!reasoning.empty()) turn.thinking.push_back({reasoning, "", ""});
  for (const json& call : ArrayOrEmpty(*message, "tool_calls")) {
    const json function = MemberOr(call, "function", json::object());
    turn.tool_calls.push_back({StringOr(call, "id"), StringOr(function, "name"), StringOr(function, "arguments")});
  }
  return turn;
}

AssistantTurn TurnFromAnthropicResponse(const json& response) {
  AssistantTurn turn;
  turn.id = StringOr(response, "id");
  turn.model = StringOr(response, "model");
  turn.usage = UsageFromAnthropic(MemberOr(response, "usage", json()));
  turn.finish = FinishFromAnthropic(StringOr(response, "stop_reason"));
  for (const json& block : ArrayOrEmpty(response, "content")) {
    const std::string type = StringOr(block, "type");
    if (type == "text") {
      turn.text += StringOr(block, "text");
    } else if (type == "thinking") {
      turn.thinking.push_back({StringOr(block, "thinking"), StringOr(block, "signature"), ""});
    } else if (type == "redacted_thinking") {
      turn.thinking.push_back({"", "", StringOr(block, "data")});
    } else if (type == "tool_use") {
      turn.tool_calls.push_back({StringOr(block, "id"), StringOr(block, "name"), Dump(MemberOr(block, "input", json::object()))});
    }
  }
  return turn;
}

json OpenAIAssistantMessage(const AssistantTurn& turn) {
  json message = {{"role", "assistant"}, {"content", turn.text.empty() ? json() : json(turn.text)}};
  if (const std::string reasoning = turn.ReasoningText(); !reasoning.empty()) message["reasoning_content"] = reasoning;
  if (!turn.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& call : turn.tool_calls) {
      calls.push_back({{"id", call.id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  return message;
}

json AnthropicAssistantContent(const AssistantTurn& turn) {
  json blocks = json::array();
  for (const ThinkingBlock& block : turn.thinking) {
    if (!block.redacted.empty()) {
      blocks.push_back({{"type", "redacted_thinking"}, {"data", block.redacted}});
    } else {
      blocks.push_back({{"type", "thinking"}, {"thinking", block.thinking}, {"signature", block.signature}});
    }
  }
  if (!turn.text.empty()) blocks.push_back({{"type", "text"}, {"text", turn.text}});
  for (const ToolCall& call : turn.tool_calls) {
    json input = call.arguments.empty() ? json::object() : json::parse(call.arguments, nullptr, false);
    if (!input.is_object()) input = json::object();
    blocks.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", std::move(input)}});
  }
  return blocks;
}

Result<json> OpenAIRequestToAnthropic(const json& openai_body) {
  if (!openai_body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  try {
    return ConvertOpenAIRequest(openai_body);
  } catch (const json::exception& e) {  // a field of a type the code above did not expect
    return Status::InvalidArgument(fmt::format("request body: {}", e.what()));
  }
}

Result<json> AnthropicRequestToOpenAI(const json& anthropic_body) {
  if (!anthropic_body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  try {
    return ConvertAnthropicRequest(anthropic_body);
  } catch (const json::exception& e) {
    return Status::InvalidArgument(fmt::format("request body: {}", e.what()));
  }
}

json AnthropicResponseToOpenAI(const json& anthropic_response, const std::string& model) {
  const AssistantTurn turn = TurnFromAnthropicResponse(anthropic_response);
  const std::string finish = OpenAIFinishName(turn.finish);
  return {{"id", turn.id},
          {"object", "chat.completion"},
          {"created", static_cast<int64_t>(std::time(nullptr))},
          {"model", model},
          {"choices", json::array({{{"index", 0},
                                    {"message", OpenAIAssistantMessage(turn)},
                                    {"logprobs", nullptr},
                                    {"finish_reason", finish.empty() ? json() : json(finish)}}})},
          {"usage", UsageToOpenAI(turn.usage)}};
}

json OpenAIResponseToAnthropic(const json& openai_response, const std::string& model) {
  const AssistantTurn turn = TurnFromOpenAIResponse(openai_response);
  const std::string stop = AnthropicStopName(turn.finish);
  return {{"id", turn.id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", model},
          {"content", AnthropicAssistantContent(turn)},
          {"stop_reason", stop.empty() ? json() : json(stop)},
          {"stop_sequence", nullptr},
          {"usage", UsageToAnthropic(turn.usage)}};
}

}  // namespace cilia::llm
