// One answer out of several upstream rounds. When the model calls cilia's
// own `recall` tool, cilia runs it and calls the upstream again; the client
// must still see a single message. The splicer sits after the per-round
// stream readers (llm/stream.h), on the client's format:
//
// - calls to the hidden tool never reach the client; the client's own tool
//   calls keep their ids, and their indexes count on across rounds;
// - the opening of every round after the first (OpenAI role chunk, Anthropic
//   message_start) is dropped, and ids stay those of the first round;
// - each round's ending (finish chunk, usage chunk, [DONE]; message_delta,
//   message_stop) is held back until EndRound says whether another round
//   follows; the last one goes out with the usage of all rounds together;
// - every chunk names the model the client asked for;
// - text and thinking stream through as they come.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "gateway/prompt_assembler.h"
#include "llm/chat_format.h"
#include "llm/responses_format.h"
#include "net/sse.h"

namespace cilia::gateway {

class StreamSplicer {
 public:
  // `client` is the format the client reads; `hidden_tool` the name of the
  // tool whose calls are cilia's ("" for none); `model` the name shown.
  static std::unique_ptr<StreamSplicer> Create(Wire client, std::string hidden_tool, std::string model);
  virtual ~StreamSplicer() = default;

  // Client-format SSE bytes of the current round (what a StreamReader
  // returned), in pieces of any size; returns what the client gets now.
  virtual std::string Feed(std::string_view frames) = 0;
  // Ends the current round. more = true: a round follows and this round's
  // ending is dropped; false: the held ending goes out, carrying `total`.
  virtual std::string EndRound(bool more, const llm::Usage& total) = 0;
  // The round produced an error event (it passed through; nothing follows).
  virtual bool failed() const = 0;
};

// A Responses client on an upstream that speaks Responses: the events as
// the upstream sent them, except that
// - the items of calls to the hidden tool and all their events are dropped,
//   and output_index counts on across rounds over the items the client sees;
// - response.created / in_progress of every round after the first are
//   dropped; each round's response.completed (or incomplete) is held until
//   EndRound, and the last one goes out with every round's visible items and
//   (after several rounds) the usage of all;
// - the Response objects the events carry read as the client's
//   (llm::AsClientResponse: cilia's id, the model asked for, the client's
//   instructions and tools);
// - sequence_number counts from 0 over what goes out. An event nothing of
//   this touches goes out byte for byte.
class ResponsesSplicer : public StreamSplicer {
 public:
  ResponsesSplicer(std::string hidden_tool, nlohmann::json request, llm::ResponseHeader header);

  std::string Feed(std::string_view frames) override;
  std::string EndRound(bool more, const llm::Usage& total) override;
  bool failed() const override { return failed_; }
  // The Response object the last event that carried one went out with.
  const nlohmann::json& response() const { return response_; }

 private:
  void OnEvent(const net::SseEvent& event, std::string& out);
  // Sends `data` as an event of its type, with the next sequence number and
  // the Response it carries made the client's.
  void Emit(nlohmann::json data, std::string& out);

  const std::string hidden_tool_;
  const nlohmann::json request_;
  const llm::ResponseHeader header_;
  net::SseParser parser_;
  int round_ = 0;
  int64_t sequence_ = 0;
  nlohmann::json held_;                             // this round's ending, until EndRound
  nlohmann::json shown_ = nlohmann::json::array();  // the visible items of the rounds before
  std::map<int64_t, int64_t> round_items_;          // this round's output_index -> client's, -1 hidden
  int64_t next_index_ = 0;
  bool failed_ = false;
  nlohmann::json response_ = nlohmann::json::object();
};

}  // namespace cilia::gateway
