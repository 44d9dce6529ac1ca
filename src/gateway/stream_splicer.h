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

#include <memory>
#include <string>
#include <string_view>

#include "gateway/prompt_assembler.h"
#include "llm/chat_format.h"

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

}  // namespace cilia::gateway
