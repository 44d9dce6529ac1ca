// Streaming answers, event by event. Each class is fed the upstream's SSE
// bytes in pieces of any size and returns the SSE bytes for the client; all
// of them keep what they saw (the assistant turn and its usage), so that the
// gateway can store the answer and log usage when the stream is over.
//
// - AnthropicToOpenAIStream: an Anthropic upstream, an OpenAI-shaped client.
// - OpenAIToAnthropicStream: an OpenAI-compatible upstream, an Anthropic client.
// - OpenAIStreamObserver / AnthropicStreamObserver: same format on both sides;
//   events go out as they came (re-framed, comments dropped), except the usage
//   chunk of an OpenAI stream when the client did not ask for usage.
//
// A stream that ends before the answer is complete (the upstream closed, a
// timeout) must be closed with Finish(), which sends the client an error event
// in its own format rather than silence.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "llm/chat_format.h"
#include "net/sse.h"

namespace cilia::llm {

// One SSE event: "event: <name>\n" (when a name is given), one "data:" line
// per line of `data`, and the blank line.
std::string SseFrame(std::string_view data, std::string_view event = "");
// An error inside an OpenAI stream — a chunk whose body is {"error":{...}},
// which the OpenAI SDKs raise — followed by "data: [DONE]".
std::string OpenAIStreamError(std::string_view type, std::string_view message);
// Anthropic's "event: error" with {"type":"error","error":{type, message}}.
std::string AnthropicStreamError(std::string_view type, std::string_view message);

class StreamReader {
 public:
  virtual ~StreamReader() = default;

  // Upstream bytes in, client bytes out (possibly none). Events after the end
  // of the answer are ignored.
  std::string Feed(std::string_view upstream_bytes);
  // The upstream is over. An answer that was complete but lacked its closing
  // marker gets it; an incomplete one ends with an error event carrying
  // `error_message`. Returns "" when the stream had already ended.
  std::string Finish(std::string_view error_message = "the upstream stream ended before the answer was complete");

  // The answer ended, normally or with an upstream error event.
  bool done() const { return done_; }
  const AssistantTurn& turn() const { return turn_; }
  // The message of an error event the upstream sent, "" when none.
  const std::string& upstream_error() const { return upstream_error_; }

 protected:
  virtual void OnEvent(const net::SseEvent& event, std::string& out) = 0;
  virtual void OnEnd(std::string_view error_message, std::string& out) = 0;

  AssistantTurn turn_;
  bool done_ = false;
  std::string upstream_error_;

 private:
  net::SseParser parser_;
};

// Keeps an AssistantTurn up to date from Anthropic stream events.
class AnthropicTurnBuilder {
 public:
  explicit AnthropicTurnBuilder(AssistantTurn& turn) : turn_(turn) {}
  // `event` is one event's parsed data.
  void Apply(const nlohmann::json& event);
  // The position in turn.tool_calls of the tool_use block at `index`, or -1.
  int ToolSlot(int64_t index) const;

 private:
  struct Block {
    std::string type;
    int slot = -1;              // into turn.thinking or turn.tool_calls
    nlohmann::json start_input;  // a tool_use block's input as it started
  };
  const Block* Find(int64_t index) const;

  AssistantTurn& turn_;
  std::vector<std::pair<int64_t, Block>> blocks_;
  nlohmann::json usage_ = nlohmann::json::object();  // merged over message_start and message_delta
};

// Keeps an AssistantTurn up to date from OpenAI stream chunks (choice 0).
class OpenAITurnBuilder {
 public:
  explicit OpenAITurnBuilder(AssistantTurn& turn) : turn_(turn) {}
  void Apply(const nlohmann::json& chunk);
  // The position in turn.tool_calls of the call with that delta index, or -1.
  int ToolSlot(int64_t index) const;

 private:
  AssistantTurn& turn_;
  std::vector<int64_t> tool_indexes_;  // delta index of turn.tool_calls[i]
};

struct OpenAIStreamOptions {
  std::string model;         // the name the client sees; "" keeps the upstream's
  int64_t created = 0;       // the chunks' `created` (Unix seconds)
  bool include_usage = false;  // the client's stream_options.include_usage
};

class AnthropicToOpenAIStream : public StreamReader {
 public:
  explicit AnthropicToOpenAIStream(OpenAIStreamOptions options) : options_(std::move(options)) {}

 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  std::string Chunk(nlohmann::json delta, const nlohmann::json& finish_reason = nullptr) const;

  OpenAIStreamOptions options_;
  AnthropicTurnBuilder builder_{turn_};
};

class OpenAIToAnthropicStream : public StreamReader {
 public:
  explicit OpenAIToAnthropicStream(std::string model) : model_(std::move(model)) {}

 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  enum class BlockKind { kNone, kThinking, kText, kTool };
  void Start(const nlohmann::json& chunk, std::string& out);
  // Closes the open block unless it is (kind, tool slot); opens that one.
  void Open(BlockKind kind, int tool_slot, std::string& out);
  void CloseBlock(std::string& out);
  void Close(std::string& out);

  std::string model_;
  OpenAITurnBuilder builder_{turn_};
  bool started_ = false;
  BlockKind open_ = BlockKind::kNone;
  int open_tool_slot_ = -1;
  int next_index_ = 0;  // Anthropic content block index
};

class OpenAIStreamObserver : public StreamReader {
 public:
  explicit OpenAIStreamObserver(bool client_wants_usage) : client_wants_usage_(client_wants_usage) {}

 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  bool client_wants_usage_;
  OpenAITurnBuilder builder_{turn_};
};

class AnthropicStreamObserver : public StreamReader {
 protected:
  void OnEvent(const net::SseEvent& event, std::string& out) override;
  void OnEnd(std::string_view error_message, std::string& out) override;

 private:
  AnthropicTurnBuilder builder_{turn_};
};

}  // namespace cilia::llm
