#include "llm/responses_stream.h"

#include <fmt/format.h>

#include "llm/json_access.h"

namespace cilia::llm {
namespace {

using json = nlohmann::json;

constexpr std::string_view kDone = "[DONE]";

// The Responses error code for an upstream error type.
std::string ErrorCode(std::string_view type) {
  if (type == "rate_limit_error" || type == "rate_limit_exceeded") return "rate_limit_exceeded";
  if (type == "invalid_request_error" || type == "invalid_prompt") return "invalid_prompt";
  return "server_error";
}

}  // namespace

// ---- Chat Completions chunks → Responses events --------------------------------

ChatToResponsesStream::ChatToResponsesStream(json request, ResponseHeader header)
    : request_(std::move(request)), header_(std::move(header)), response_(ResponseSkeleton(request_, header_)) {}

void ChatToResponsesStream::Emit(json event, std::string& out) {
  event["sequence_number"] = sequence_++;
  const std::string type = event["type"].get<std::string>();
  out += SseFrame(Dump(event), type);
}

void ChatToResponsesStream::Start(std::string& out) {
  if (started_) return;
  started_ = true;
  Emit({{"type", "response.created"}, {"response", response_}}, out);
  Emit({{"type", "response.in_progress"}, {"response", response_}}, out);
}

json ChatToResponsesStream::ItemJson(size_t index, bool done) const {
  const Item& item = items_[index];
  switch (item.kind) {
    case Kind::kReasoning: {
      json summary = json::array();
      if (done) summary.push_back({{"type", "summary_text"}, {"text", item.text}});
      return {{"id", item.id}, {"type", "reasoning"}, {"summary", std::move(summary)}};
    }
    case Kind::kMessage: {
      json content = json::array();
      if (done) content.push_back({{"type", "output_text"}, {"text", item.text}, {"annotations", json::array()}});
      return {{"id", item.id}, {"type", "message"}, {"status", done ? "completed" : "in_progress"}, {"role", "assistant"},
              {"content", std::move(content)}};
    }
    case Kind::kFunctionCall:
      return {{"id", item.id}, {"type", "function_call"}, {"status", done ? "completed" : "in_progress"},
              {"call_id", item.call_id}, {"name", item.name}, {"arguments", done ? item.text : ""}};
  }
  return json::object();
}

size_t ChatToResponsesStream::Open(Kind kind, int64_t tool_index, std::string& out) {
  for (size_t i = 0; i < items_.size(); ++i) {
    if (items_[i].open && items_[i].kind == kind && items_[i].tool_index == tool_index) return i;
  }
  // Text and reasoning end where something else begins; function calls stay
  // open to the end (their arguments may come interleaved).
  for (size_t i = 0; i < items_.size(); ++i) {
    if (items_[i].open && items_[i].kind != Kind::kFunctionCall) Close(i, out);
  }
  const std::string suffix = ItemIdSuffix(header_.id);
  const size_t index = items_.size();
  Item item{kind, "", tool_index};
  switch (kind) {
    case Kind::kReasoning: item.id = fmt::format("rs_{}_{}", suffix, index); break;
    case Kind::kMessage: item.id = fmt::format("msg_{}_{}", suffix, index); break;
    case Kind::kFunctionCall: item.id = fmt::format("fc_{}_{}", suffix, index); break;
  }
  items_.push_back(std::move(item));
  return index;
}

void ChatToResponsesStream::Announce(size_t index, std::string& out) {
  Item& item = items_[index];
  if (item.announced) return;
  item.announced = true;
  const int64_t at = static_cast<int64_t>(index);
  Emit({{"type", "response.output_item.added"}, {"output_index", at}, {"item", ItemJson(index, false)}}, out);
  if (item.kind == Kind::kReasoning) {
    Emit({{"type", "response.reasoning_summary_part.added"}, {"item_id", item.id}, {"output_index", at},
          {"summary_index", 0}, {"part", {{"type", "summary_text"}, {"text", ""}}}},
         out);
  } else if (item.kind == Kind::kMessage) {
    Emit({{"type", "response.content_part.added"}, {"item_id", item.id}, {"output_index", at}, {"content_index", 0},
          {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}},
         out);
  }
}

void ChatToResponsesStream::Close(size_t index, std::string& out) {
  Item& item = items_[index];
  if (!item.open) return;
  Announce(index, out);
  item.open = false;
  const int64_t at = static_cast<int64_t>(index);
  switch (item.kind) {
    case Kind::kReasoning:
      Emit({{"type", "response.reasoning_summary_text.done"}, {"item_id", item.id}, {"output_index", at},
            {"summary_index", 0}, {"text", item.text}},
           out);
      Emit({{"type", "response.reasoning_summary_part.done"}, {"item_id", item.id}, {"output_index", at},
            {"summary_index", 0}, {"part", {{"type", "summary_text"}, {"text", item.text}}}},
           out);
      break;
    case Kind::kMessage:
      Emit({{"type", "response.output_text.done"}, {"item_id", item.id}, {"output_index", at}, {"content_index", 0},
            {"text", item.text}, {"logprobs", json::array()}},
           out);
      Emit({{"type", "response.content_part.done"}, {"item_id", item.id}, {"output_index", at}, {"content_index", 0},
            {"part", {{"type", "output_text"}, {"text", item.text}, {"annotations", json::array()}}}},
           out);
      break;
    case Kind::kFunctionCall:
      Emit({{"type", "response.function_call_arguments.done"}, {"item_id", item.id}, {"output_index", at},
            {"name", item.name}, {"arguments", item.text}},
           out);
      break;
  }
  Emit({{"type", "response.output_item.done"}, {"output_index", at}, {"item", ItemJson(index, true)}}, out);
}

void ChatToResponsesStream::CloseAll(std::string& out) {
  for (size_t i = 0; i < items_.size(); ++i) Close(i, out);
}

json ChatToResponsesStream::Output() const {
  json output = json::array();
  for (size_t i = 0; i < items_.size(); ++i) output.push_back(ItemJson(i, true));
  return output;
}

void ChatToResponsesStream::End(std::string& out) {
  CloseAll(out);
  const bool incomplete = turn_.finish == FinishReason::kLength || turn_.finish == FinishReason::kContentFilter;
  response_["status"] = incomplete ? "incomplete" : "completed";
  if (incomplete) {
    response_["incomplete_details"] = {{"reason", turn_.finish == FinishReason::kLength ? "max_output_tokens" : "content_filter"}};
  }
  response_["output"] = Output();
  response_["usage"] = UsageToResponses(turn_.usage);
  Emit({{"type", incomplete ? "response.incomplete" : "response.completed"}, {"response", response_}}, out);
  done_ = true;
}

void ChatToResponsesStream::Fail(std::string_view code, std::string_view message, std::string& out) {
  Start(out);
  upstream_error_ = std::string(message);
  response_["status"] = "failed";
  response_["error"] = {{"code", ErrorCode(code)}, {"message", message}};
  response_["output"] = Output();
  response_["usage"] = UsageToResponses(turn_.usage);
  Emit({{"type", "response.failed"}, {"response", response_}}, out);
  done_ = true;
}

void ChatToResponsesStream::OnEvent(const net::SseEvent& event, std::string& out) {
  if (event.data == kDone) return End(out);
  json chunk = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (!chunk.is_object()) return;
  if (const json* error = Member(chunk, "error")) {
    return Fail(StringOr(*error, "type", "server_error"), StringOr(*error, "message", Dump(*error)), out);
  }
  Start(out);
  builder_.Apply(chunk);
  const json& choices = ArrayOrEmpty(chunk, "choices");
  if (choices.empty()) return;
  const json* delta = Member(choices[0], "delta");
  if (delta == nullptr) return;
  const std::string reasoning = StringOr(*delta, "reasoning_content", StringOr(*delta, "reasoning"));
  if (!reasoning.empty()) {
    const size_t i = Open(Kind::kReasoning, -1, out);
    Announce(i, out);
    items_[i].text += reasoning;
    Emit({{"type", "response.reasoning_summary_text.delta"}, {"item_id", items_[i].id},
          {"output_index", static_cast<int64_t>(i)}, {"summary_index", 0}, {"delta", reasoning}},
         out);
  }
  if (const std::string text = StringOr(*delta, "content"); !text.empty()) {
    const size_t i = Open(Kind::kMessage, -1, out);
    Announce(i, out);
    items_[i].text += text;
    Emit({{"type", "response.output_text.delta"}, {"item_id", items_[i].id}, {"output_index", static_cast<int64_t>(i)},
          {"content_index", 0}, {"delta", text}, {"logprobs", json::array()}},
         out);
  }
  for (const json& fragment : ArrayOrEmpty(*delta, "tool_calls")) {
    const size_t i = Open(Kind::kFunctionCall, IntOr(fragment, "index"), out);
    Item& item = items_[i];
    const json function = MemberOr(fragment, "function", json::object());
    if (item.call_id.empty()) item.call_id = StringOr(fragment, "id");
    if (item.name.empty()) item.name = StringOr(function, "name");
    Announce(i, out);
    const std::string arguments = StringOr(function, "arguments");
    if (arguments.empty()) continue;
    items_[i].text += arguments;
    Emit({{"type", "response.function_call_arguments.delta"}, {"item_id", items_[i].id},
          {"output_index", static_cast<int64_t>(i)}, {"delta", arguments}},
         out);
  }
}

void ChatToResponsesStream::OnEnd(std::string_view error_message, std::string& out) {
  // A finished answer that lacked [DONE] is whole; anything else stopped short.
  if (turn_.finish != FinishReason::kNone) return End(out);
  Fail("server_error", error_message, out);
}

// ---- Responses events → Chat Completions chunks -------------------------------

std::string ResponsesToChatStream::Chunk(json delta, const json& finish_reason) const {
  const json chunk = {{"id", id_},
                      {"object", "chat.completion.chunk"},
                      {"created", created_},
                      {"model", model_},
                      {"choices", json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish_reason}}})}};
  return SseFrame(Dump(chunk));
}

void ResponsesToChatStream::OnEvent(const net::SseEvent& event, std::string& out) {
  const json data = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (!data.is_object()) return;
  const std::string type = StringOr(data, "type", event.event);
  const json response = MemberOr(data, "response", json::object());
  if (type == "response.created" || type == "response.in_progress") {
    if (id_.empty()) id_ = StringOr(response, "id");
    if (model_.empty()) model_ = StringOr(response, "model");
    if (created_ == 0) created_ = IntOr(response, "created_at");
    if (!started_) out += Chunk({{"role", "assistant"}, {"content", ""}});
    started_ = true;
    return;
  }
  if (!started_) {
    out += Chunk({{"role", "assistant"}, {"content", ""}});
    started_ = true;
  }
  if (type == "response.output_text.delta" || type == "response.refusal.delta") {
    out += Chunk({{"content", StringOr(data, "delta")}});
  } else if (type == "response.reasoning_summary_text.delta" || type == "response.reasoning_text.delta") {
    out += Chunk({{"reasoning_content", StringOr(data, "delta")}});
  } else if (type == "response.output_item.added") {
    const json item = MemberOr(data, "item", json::object());
    if (StringOr(item, "type") != "function_call") return;
    const int64_t index = static_cast<int64_t>(calls_.size());
    calls_[StringOr(item, "id")] = {index, StringOr(item, "arguments")};
    json call = {{"index", index},
                 {"id", StringOr(item, "call_id")},
                 {"type", "function"},
                 {"function", {{"name", StringOr(item, "name")}, {"arguments", StringOr(item, "arguments")}}}};
    out += Chunk({{"tool_calls", json::array({std::move(call)})}});
  } else if (type == "response.function_call_arguments.delta" || type == "response.function_call_arguments.done") {
    auto it = calls_.find(StringOr(data, "item_id"));
    if (it == calls_.end()) return;
    std::string piece = StringOr(data, "delta");
    if (type == "response.function_call_arguments.done") {
      // Servers that send the arguments only whole: the part not sent yet.
      const std::string whole = StringOr(data, "arguments");
      piece = whole.rfind(it->second.sent, 0) == 0 ? whole.substr(it->second.sent.size()) : "";
    }
    if (piece.empty()) return;
    it->second.sent += piece;
    out += Chunk({{"tool_calls", json::array({{{"index", it->second.index}, {"function", {{"arguments", piece}}}}})}});
  } else if (type == "response.completed" || type == "response.incomplete") {
    std::string finish = calls_.empty() ? "stop" : "tool_calls";
    if (type == "response.incomplete") {
      finish = StringOr(MemberOr(response, "incomplete_details", json::object()), "reason") == "content_filter"
                   ? "content_filter"
                   : "length";
    }
    out += Chunk(json::object(), finish);
    json chat_usage = UsageToOpenAI(UsageFromResponses(MemberOr(response, "usage", json::object())));
    const json usage_chunk = {{"id", id_}, {"object", "chat.completion.chunk"}, {"created", created_}, {"model", model_},
                              {"choices", json::array()}, {"usage", std::move(chat_usage)}};
    out += SseFrame(Dump(usage_chunk)) + SseFrame(kDone);
    done_ = true;
  } else if (type == "response.failed" || type == "error") {
    const json error = type == "error" ? data : MemberOr(response, "error", json::object());
    upstream_error_ = StringOr(error, "message", "the upstream response failed");
    out += OpenAIStreamError(StringOr(error, "code", "api_error"), upstream_error_);
    done_ = true;
  }
}

void ResponsesToChatStream::OnEnd(std::string_view, std::string&) {
  // Nothing to add: the reader after this one sees the answer unfinished
  // and ends the client's stream with an error.
}

// ---- Responses events relayed as they came ------------------------------------

void ResponsesStreamObserver::OnEvent(const net::SseEvent& event, std::string& out) {
  const json data = json::parse(event.data, nullptr, /*allow_exceptions=*/false);
  if (!data.is_object()) return;
  const std::string type = StringOr(data, "type", event.event);
  out += SseFrame(event.data, event.event.empty() ? type : event.event);
  sequence_ = IntOr(data, "sequence_number", sequence_) + 1;
  const json* response = Member(data, "response");
  if (response != nullptr && response->is_object()) response_ = *response;
  if (type == "response.output_text.delta") {
    turn_.text += StringOr(data, "delta");
  } else if (type == "response.completed" || type == "response.incomplete") {
    AssistantTurn whole = TurnFromResponsesResponse(response_);
    // Servers that leave the output out of the last event: the text streamed.
    if (whole.items.empty()) whole.text = turn_.text;
    turn_ = std::move(whole);
    done_ = true;
  } else if (type == "response.failed" || type == "error") {
    const json error = type == "error" ? data : MemberOr(response_, "error", json::object());
    upstream_error_ = StringOr(error, "message", "the upstream response failed");
    done_ = true;
  }
}

void ResponsesStreamObserver::OnEnd(std::string_view error_message, std::string& out) {
  json response = response_;
  response["status"] = "failed";
  response["error"] = {{"code", "server_error"}, {"message", error_message}};
  const json event = {{"type", "response.failed"}, {"sequence_number", sequence_}, {"response", std::move(response)}};
  out += SseFrame(Dump(event), "response.failed");
}

}  // namespace cilia::llm
