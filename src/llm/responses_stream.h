// Streaming between the Responses API's typed events and Chat Completions
// chunks (llm/responses_format.h has the whole-body conversions).
//
// - ChatToResponsesStream: the gateway's answer to a Responses client. Fed
//   the Chat Completions SSE the gateway produced for the turn (one answer,
//   recall rounds already spliced away, usage at the end), it writes
//   response.created, response.in_progress, then for each output item
//   response.output_item.added, its deltas (response.output_text.delta,
//   response.function_call_arguments.delta,
//   response.reasoning_summary_text.delta) and closing events, then
//   response.output_item.done, and at the end response.completed (or
//   response.incomplete). An error chunk, or a stream that stops short,
//   ends with response.failed. Every event carries a sequence_number.
// - ResponsesToChatStream: an upstream that speaks Responses, read as Chat
//   Completions chunks, so the rest of the gateway sees one format.
// - ResponsesStreamObserver: a Responses client on an upstream that speaks
//   Responses. Events go out as they came (re-framed); the turn is read from
//   them. A stream that stops short ends with response.failed.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "llm/chat_format.h"
#include "llm/responses_format.h"
#include "llm/stream.h"

namespace cilia::llm {

class ChatToResponsesStream : public StreamReader {
 public:
  // `request`: the client's Responses body, for the fields the response repeats.
  ChatToResponsesStream(nlohmann::json request, ResponseHeader header);

  // The Response object as the last event carried it (status completed,
  // incomplete or failed); status in_progress until the stream ended.
  const nlohmann::json& response() const { return response_; }

 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  enum class Kind { kReasoning, kMessage, kFunctionCall };
  struct Item {
    Kind kind;
    std::string id;
    int64_t tool_index = -1;  // the chunk's tool call index, for function calls
    bool open = true;
    bool announced = false;  // output_item.added went out
    std::string text;        // text, reasoning or arguments so far
    std::string call_id, name;
  };

  void Emit(nlohmann::json event, std::string& out);
  void Start(std::string& out);
  // The output index of the open item of `kind` (a new one when none).
  size_t Open(Kind kind, int64_t tool_index, std::string& out);
  // output_item.added (and the opening part event) once per item.
  void Announce(size_t index, std::string& out);
  void Close(size_t index, std::string& out);
  nlohmann::json Output() const;
  void CloseAll(std::string& out);
  // The item as it stands now, from the turn so far.
  nlohmann::json ItemJson(size_t index, bool done) const;
  void End(std::string& out);
  void Fail(std::string_view code, std::string_view message, std::string& out);

  nlohmann::json request_;
  ResponseHeader header_;
  nlohmann::json response_;
  OpenAITurnBuilder builder_{turn_};
  std::vector<Item> items_;
  int64_t sequence_ = 0;
  bool started_ = false;
};

class ResponsesToChatStream : public StreamReader {
 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  std::string Chunk(nlohmann::json delta, const nlohmann::json& finish_reason = nullptr) const;

  struct Call {
    int64_t index = 0;  // the chunk's tool call index
    std::string sent;   // arguments sent so far
  };
  std::string id_, model_;
  int64_t created_ = 0;
  bool started_ = false;
  std::map<std::string, Call> calls_;  // by function_call item id
};

class ResponsesStreamObserver : public StreamReader {
 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  nlohmann::json response_ = nlohmann::json::object();  // as the last lifecycle event carried it
  int64_t sequence_ = 0;                                // the next event's, for the closing failure
};

}  // namespace cilia::llm
