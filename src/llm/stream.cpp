#include "llm/stream.h"

#include "llm/json_access.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;

constexpr std::string_view kDone = "[DONE]";

std::string AnthropicEvent(const json& event) { return SseFrame(Dump(event), event["type"].get<std::string>()); }

// The error object of an upstream error event or chunk: {type, message}.
std::pair<std::string, std::string> ErrorOf(const json& body) {
  const json* error = Member(body, "error");
  if (error == nullptr) return {"api_error", "upstream error"};
  if (error->is_string()) return {"api_error", error->get<std::string>()};
  return {StringOr(*error, "type", "api_error"), StringOr(*error, "message", Dump(*error))};
}

}  // namespace

std::string SseFrame(std::string_view data, std::string_view event) {
  std::string frame;
  if (!event.empty()) {
    frame += "event: ";
    frame += event;
    frame += '\n';
  }
  size_t begin = 0;
  while (true) {
    const size_t end = data.find('\n', begin);
    frame += "data: ";
    frame += data.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
    frame += '\n';
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  frame += '\n';
  return frame;
}

std::string OpenAIStreamError(std::string_view type, std::string_view message) {
  const json body = {{"error", {{"message", message}, {"type", type}, {"code", nullptr}}}};
  return SseFrame(Dump(body)) + SseFrame(kDone);
}

std::string AnthropicStreamError(std::string_view type, std::string_view message) {
  return AnthropicEvent({{"type", "error"}, {"error", {{"type", type}, {"message", message}}}});
}

// ---- StreamReader ------------------------------------------------------------

std::string StreamReader::Feed(std::string_view upstream_bytes) {
  std::string out;
  parser_.Feed(upstream_bytes, [this, &out](const net::SseEvent& event) {
    if (!done_) OnEvent(event, out);
  });
  return out;
}

std::string StreamReader::Finish(std::string_view error_message) {
  std::string out;
  if (!done_) OnEnd(error_message, out);
  done_ = true;
  return out;
}

// ---- turn builders -----------------------------------------------------------

const AnthropicTurnBuilder::Block* AnthropicTurnBuilder::Find(int64_t index) const {
  for (const auto& [at, block] : blocks_) {
    if (at == index) return &block;
  }
  return nullptr;
}

int AnthropicTurnBuilder::ToolSlot(int64_t index) const {
  const Block* block = Find(index);
  return block != nullptr && block->type == "tool_use" ? block->slot : -1;
}

void AnthropicTurnBuilder::Apply(const json& event) {
  const std::string type = StringOr(event, "type");
  if (type == "message_start") {
    const json message = MemberOr(event, "message", json::object());
    turn_.id = StringOr(message, "id");
    turn_.model = StringOr(message, "model");
    if (const json* usage = Member(message, "usage"); usage != nullptr && usage->is_object()) usage_ = *usage;
    turn_.usage = UsageFromAnthropic(usage_);
  } else if (type == "content_block_start") {
    const json block = MemberOr(event, "content_block", json::object());
    Block state{StringOr(block, "type")};
    if (state.type == "text") {
      turn_.text += StringOr(block, "text");
    } else if (state.type == "thinking" || state.type == "redacted_thinking") {
      state.slot = static_cast<int>(turn_.thinking.size());
      turn_.thinking.push_back({StringOr(block, "thinking"), StringOr(block, "signature"), StringOr(block, "data")});
    } else if (state.type == "tool_use") {
      state.slot = static_cast<int>(turn_.tool_calls.size());
      state.start_input = MemberOr(block, "input", json::object());
      turn_.tool_calls.push_back({StringOr(block, "id"), StringOr(block, "name"), ""});
    }
    blocks_.emplace_back(IntOr(event, "index"), std::move(state));
  } else if (type == "content_block_delta") {
    const Block* block = Find(IntOr(event, "index"));
    const json delta = MemberOr(event, "delta", json::object());
    const std::string kind = StringOr(delta, "type");
    if (kind == "text_delta") {
      turn_.text += StringOr(delta, "text");
    } else if (block == nullptr || block->slot < 0) {
      return;
    } else if (kind == "thinking_delta" && block->type == "thinking") {
      turn_.thinking[block->slot].thinking += StringOr(delta, "thinking");
    } else if (kind == "signature_delta" && block->type == "thinking") {
      turn_.thinking[block->slot].signature += StringOr(delta, "signature");
    } else if (kind == "input_json_delta" && block->type == "tool_use") {
      turn_.tool_calls[block->slot].arguments += StringOr(delta, "partial_json");
    }
  } else if (type == "content_block_stop") {
    const Block* block = Find(IntOr(event, "index"));
    if (block == nullptr || block->type != "tool_use") return;
    // A tool without arguments streams none; its input is then what the block started with.
    std::string& arguments = turn_.tool_calls[block->slot].arguments;
    if (arguments.empty()) arguments = block->start_input.is_object() ? Dump(block->start_input) : "{}";
  } else if (type == "message_delta") {
    const json delta = MemberOr(event, "delta", json::object());
    if (const std::string stop = StringOr(delta, "stop_reason"); !stop.empty()) turn_.finish = FinishFromAnthropic(stop);
    // Cumulative counts: what message_delta gives replaces what message_start said.
    if (const json* usage = Member(event, "usage"); usage != nullptr && usage->is_object()) {
      for (const auto& [key, value] : usage->items()) {
        if (!value.is_null()) usage_[key] = value;
      }
      turn_.usage = UsageFromAnthropic(usage_);
    }
  }
}

int OpenAITurnBuilder::ToolSlot(int64_t index) const {
  for (size_t slot = 0; slot < tool_indexes_.size(); ++slot) {
    if (tool_indexes_[slot] == index) return static_cast<int>(slot);
  }
  return -1;
}

void OpenAITurnBuilder::Apply(const json& chunk) {
  if (turn_.id.empty()) turn_.id = StringOr(chunk, "id");
  if (turn_.model.empty()) turn_.model = StringOr(chunk, "model");
  if (const json* usage = Member(chunk, "usage"); usage != nullptr && usage->is_object()) {
    turn_.usage = UsageFromOpenAI(*usage);
  }
  const json& choices = ArrayOrEmpty(chunk, "choices");
  if (choices.empty()) return;
  if (const std::string finish = StringOr(choices[0], "finish_reason"); !finish.empty()) {
    turn_.finish = FinishFromOpenAI(finish);
  }
  const json* delta = Member(choices[0], "delta");
  if (delta == nullptr) return;
  turn_.text += StringOr(*delta, "content");
  const std::string reasoning = StringOr(*delta, "reasoning_content", StringOr(*delta, "reasoning"));
  if (!reasoning.empty()) {
    if (turn_.thinking.empty()) turn_.thinking.emplace_back();
    turn_.thinking.back().thinking += reasoning;
  }
  for (const json& fragment : ArrayOrEmpty(*delta, "tool_calls")) {
    const int64_t index = IntOr(fragment, "index");
    int slot = ToolSlot(index);
    if (slot < 0) {
      slot = static_cast<int>(turn_.tool_calls.size());
      tool_indexes_.push_back(index);
      turn_.tool_calls.emplace_back();
    }
    ToolCall& call = turn_.tool_calls[slot];
    const json function = MemberOr(fragment, "function", json::object());
    if (call.id.empty()) call.id = StringOr(fragment, "id");
    if (call.name.empty()) call.name = StringOr(function, "name");
    call.arguments += StringOr(function, "arguments");
  }
}

// ---- Anthropic upstream → OpenAI client --------------------------------------

std::string AnthropicToOpenAIStream::Chunk(json delta, const json& finish_reason) const {
  const json chunk = {{"id", turn_.id},
                      {"object", "chat.completion.chunk"},
                      {"created", options_.created},
                      {"model", options_.model.empty() ? turn_.model : options_.model},
                      {"choices", json::array({{{"index", 0},
                                                {"delta", std::move(delta)},
                                                {"logprobs", nullptr},
                                                {"finish_reason", finish_reason}}})}};
  return SseFrame(Dump(chunk));
}

void AnthropicToOpenAIStream::OnEvent(const net::SseEvent& event, std::string& out) {
  const json data = json::parse(event.data, nullptr, false);
  const std::string type = StringOr(data, "type");
  if (type == "error") {
    const auto [kind, message] = ErrorOf(data);
    upstream_error_ = message;
    out += OpenAIStreamError(kind, message);
    done_ = true;
    return;
  }
  const int64_t index = IntOr(data, "index");
  const bool tool_had_no_arguments = type == "content_block_stop" && builder_.ToolSlot(index) >= 0 &&
                                     turn_.tool_calls[builder_.ToolSlot(index)].arguments.empty();
  builder_.Apply(data);
  const int slot = builder_.ToolSlot(index);
  const json delta = MemberOr(data, "delta", json::object());
  const std::string delta_type = StringOr(delta, "type");

  auto tool_delta = [slot](json fragment) {
    fragment["index"] = slot;
    return json{{"tool_calls", json::array({std::move(fragment)})}};
  };

  if (type == "message_start") {
    out += Chunk({{"role", "assistant"}, {"content", ""}});
  } else if (type == "content_block_start" && slot >= 0) {
    const ToolCall& call = turn_.tool_calls[slot];
    out += Chunk(tool_delta({{"id", call.id}, {"type", "function"}, {"function", {{"name", call.name}, {"arguments", ""}}}}));
  } else if (type == "content_block_start") {
    const json block = MemberOr(data, "content_block", json::object());
    if (const std::string text = StringOr(block, "text"); !text.empty()) out += Chunk({{"content", text}});
    if (const std::string thinking = StringOr(block, "thinking"); !thinking.empty()) out += Chunk({{"reasoning_content", thinking}});
  } else if (type == "content_block_delta" && delta_type == "text_delta") {
    out += Chunk({{"content", StringOr(delta, "text")}});
  } else if (type == "content_block_delta" && delta_type == "thinking_delta") {
    out += Chunk({{"reasoning_content", StringOr(delta, "thinking")}});
  } else if (type == "content_block_delta" && delta_type == "input_json_delta" && slot >= 0) {
    const std::string fragment = StringOr(delta, "partial_json");
    if (!fragment.empty()) out += Chunk(tool_delta({{"function", {{"arguments", fragment}}}}));
  } else if (tool_had_no_arguments) {
    out += Chunk(tool_delta({{"function", {{"arguments", turn_.tool_calls[slot].arguments}}}}));
  } else if (type == "message_stop") {
    const FinishReason finish = turn_.finish == FinishReason::kNone ? FinishReason::kStop : turn_.finish;
    out += Chunk(json::object(), OpenAIFinishName(finish));
    if (options_.include_usage) {
      const json usage_chunk = {{"id", turn_.id},
                                {"object", "chat.completion.chunk"},
                                {"created", options_.created},
                                {"model", options_.model.empty() ? turn_.model : options_.model},
                                {"choices", json::array()},
                                {"usage", UsageToOpenAI(turn_.usage)}};
      out += SseFrame(Dump(usage_chunk));
    }
    out += SseFrame(kDone);
    done_ = true;
  }
}

void AnthropicToOpenAIStream::OnEnd(std::string_view error_message, std::string& out) {
  out += OpenAIStreamError("upstream_error", error_message);
}

// ---- OpenAI upstream → Anthropic client --------------------------------------

void OpenAIToAnthropicStream::Start(const json& chunk, std::string& out) {
  if (started_) return;
  started_ = true;
  const std::string id = StringOr(chunk, "id", "msg_cilia");
  const json message = {{"id", id},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"model", model_.empty() ? StringOr(chunk, "model") : model_},
                        {"content", json::array()},
                        {"stop_reason", nullptr},
                        {"stop_sequence", nullptr},
                        {"usage", {{"input_tokens", 0}, {"output_tokens", 0}}}};
  out += AnthropicEvent({{"type", "message_start"}, {"message", message}});
}

void OpenAIToAnthropicStream::CloseBlock(std::string& out) {
  if (open_ == BlockKind::kNone) return;
  if (open_ == BlockKind::kThinking) {
    // The thinking of an OpenAI-compatible model carries no signature.
    out += AnthropicEvent({{"type", "content_block_delta"},
                           {"index", next_index_ - 1},
                           {"delta", {{"type", "signature_delta"}, {"signature", ""}}}});
  }
  out += AnthropicEvent({{"type", "content_block_stop"}, {"index", next_index_ - 1}});
  open_ = BlockKind::kNone;
  open_tool_slot_ = -1;
}

void OpenAIToAnthropicStream::Open(BlockKind kind, int tool_slot, std::string& out) {
  if (open_ == kind && open_tool_slot_ == tool_slot) return;
  CloseBlock(out);
  json block;
  if (kind == BlockKind::kThinking) {
    block = {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}};
  } else if (kind == BlockKind::kText) {
    block = {{"type", "text"}, {"text", ""}};
  } else {
    const ToolCall& call = turn_.tool_calls[tool_slot];
    block = {{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", json::object()}};
  }
  out += AnthropicEvent({{"type", "content_block_start"}, {"index", next_index_}, {"content_block", block}});
  ++next_index_;
  open_ = kind;
  open_tool_slot_ = tool_slot;
}

void OpenAIToAnthropicStream::Close(std::string& out) {
  Start(json::object(), out);
  CloseBlock(out);
  FinishReason finish = turn_.finish;
  if (finish == FinishReason::kNone) finish = turn_.tool_calls.empty() ? FinishReason::kStop : FinishReason::kToolCalls;
  out += AnthropicEvent({{"type", "message_delta"},
                         {"delta", {{"stop_reason", AnthropicStopName(finish)}, {"stop_sequence", nullptr}}},
                         {"usage", UsageToAnthropic(turn_.usage)}});
  out += AnthropicEvent({{"type", "message_stop"}});
  done_ = true;
}

void OpenAIToAnthropicStream::OnEvent(const net::SseEvent& event, std::string& out) {
  if (event.data == kDone) return Close(out);
  const json chunk = json::parse(event.data, nullptr, false);
  if (!chunk.is_object()) return;  // not a chunk: nothing an Anthropic client could use
  if (Member(chunk, "error") != nullptr) {
    const auto [kind, message] = ErrorOf(chunk);
    upstream_error_ = message;
    out += AnthropicStreamError(kind, message);
    done_ = true;
    return;
  }
  Start(chunk, out);
  const json& choices = ArrayOrEmpty(chunk, "choices");
  const json delta = choices.empty() ? json::object() : MemberOr(choices[0], "delta", json::object());
  const std::string reasoning = StringOr(delta, "reasoning_content", StringOr(delta, "reasoning"));
  const std::string text = StringOr(delta, "content");
  const size_t arguments_before = turn_.tool_calls.size();
  std::vector<std::string> arguments_seen(arguments_before);
  for (size_t slot = 0; slot < arguments_before; ++slot) arguments_seen[slot] = turn_.tool_calls[slot].arguments;
  builder_.Apply(chunk);

  if (!reasoning.empty()) {
    Open(BlockKind::kThinking, -1, out);
    out += AnthropicEvent({{"type", "content_block_delta"},
                           {"index", next_index_ - 1},
                           {"delta", {{"type", "thinking_delta"}, {"thinking", reasoning}}}});
  }
  if (!text.empty()) {
    Open(BlockKind::kText, -1, out);
    out += AnthropicEvent({{"type", "content_block_delta"},
                           {"index", next_index_ - 1},
                           {"delta", {{"type", "text_delta"}, {"text", text}}}});
  }
  for (size_t slot = 0; slot < turn_.tool_calls.size(); ++slot) {
    const bool is_new = slot >= arguments_before;
    // Blocks are sequential: arguments for a call whose block was already
    // closed (a server interleaving parallel calls) reach the turn only.
    if (is_new) Open(BlockKind::kTool, static_cast<int>(slot), out);
    if (open_ != BlockKind::kTool || open_tool_slot_ != static_cast<int>(slot)) continue;
    const std::string& arguments = turn_.tool_calls[slot].arguments;
    const std::string fragment = arguments.substr(is_new ? 0 : arguments_seen[slot].size());
    if (fragment.empty()) continue;
    out += AnthropicEvent({{"type", "content_block_delta"},
                           {"index", next_index_ - 1},
                           {"delta", {{"type", "input_json_delta"}, {"partial_json", fragment}}}});
  }
}

void OpenAIToAnthropicStream::OnEnd(std::string_view error_message, std::string& out) {
  // Some servers end a complete answer without "[DONE]".
  if (turn_.finish != FinishReason::kNone) return Close(out);
  out += AnthropicStreamError("api_error", error_message);
}

// ---- same format on both sides -----------------------------------------------

void OpenAIStreamObserver::OnEvent(const net::SseEvent& event, std::string& out) {
  const std::string_view name = event.event == "message" ? "" : event.event;
  if (event.data == kDone) {
    out += SseFrame(kDone);
    done_ = true;
    return;
  }
  json chunk = json::parse(event.data, nullptr, false);
  if (!chunk.is_object()) {
    out += SseFrame(event.data, name);  // not ours to judge: the client sees it as it came
    return;
  }
  if (Member(chunk, "error") != nullptr) {
    upstream_error_ = ErrorOf(chunk).second;
    out += SseFrame(event.data, name) + SseFrame(kDone);
    done_ = true;
    return;
  }
  builder_.Apply(chunk);
  if (client_wants_usage_ || Member(chunk, "usage") == nullptr) {
    out += SseFrame(event.data, name);
    return;
  }
  // cilia asked for usage for itself; a client that did not gets no usage chunk.
  if (ArrayOrEmpty(chunk, "choices").empty()) return;
  chunk.erase("usage");
  out += SseFrame(Dump(chunk), name);
}

void OpenAIStreamObserver::OnEnd(std::string_view error_message, std::string& out) {
  if (turn_.finish != FinishReason::kNone) {
    out += SseFrame(kDone);
    return;
  }
  out += OpenAIStreamError("upstream_error", error_message);
}

void AnthropicStreamObserver::OnEvent(const net::SseEvent& event, std::string& out) {
  const json data = json::parse(event.data, nullptr, false);
  const std::string type = StringOr(data, "type");
  out += SseFrame(event.data, event.event == "message" ? type : event.event);
  if (type == "error") {
    upstream_error_ = ErrorOf(data).second;
    done_ = true;
    return;
  }
  builder_.Apply(data);
  if (type == "message_stop") done_ = true;
}

void AnthropicStreamObserver::OnEnd(std::string_view error_message, std::string& out) {
  out += AnthropicStreamError("api_error", error_message);
}

}  // namespace cilia::llm
