// One chat turn through cilia (DESIGN.md §6): read the client's request,
// find its conversation and store the new user message, build the memory
// for the turn, assemble the prompt, call the upstream — running the model's
// `recall` calls in process, for as many rounds as allowed — and store the
// answer, log the usage and, when the history has grown long, summarise it.
//
// The pieces live beside it: turn_identity.h (which conversation),
// memory_blocks.h (what memory goes in), recall_rounds.h (running `recall`),
// compression.h (summaries). The HTTP adapter (api/chat_routes.cpp) only
// moves bytes: Prepare, then Complete or StartStream. Background work runs
// on the executor `serve` owns. POST /v1/responses runs the same path, in
// the Chat Completions shape or, on an upstream that speaks Responses, with
// the client's own body (responses_turn.h). Nothing here throws.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "core/config.h"
#include "core/executor.h"
#include "core/status.h"
#include "core/thread_annotations.h"
#include "gateway/compression.h"
#include "gateway/prompt_assembler.h"
#include "gateway/response_store.h"
#include "llm/chat_format.h"
#include "memory/registry.h"
#include "net/http_client.h"

namespace cilia::gateway {

enum class ChatEndpoint { kChatCompletions, kMessages, kGuideDog, kResponses };

struct ChatCall {
  ChatEndpoint endpoint = ChatEndpoint::kChatCompletions;
  nlohmann::json body;              // the client's request, in the endpoint's format
  std::string conversation_header;  // X-Cilia-Conversation, "" when absent
  net::Headers forward_headers;     // client headers the upstream should see (anthropic-beta)
  std::string name_space;
  FeaturesConfig features;          // config with the key's overrides applied
};

// Where a streamed answer goes. Write returns false when the client is gone.
class ChatSink {
 public:
  virtual ~ChatSink() = default;
  virtual bool Write(std::string_view bytes) = 0;
  virtual bool ClientGone() const = 0;
};

struct ChatReply {
  int http_status = 200;
  nlohmann::json body;
};

class PreparedTurn;
class StreamFilter;
class StreamSplicer;

class ChatService {
 public:
  // `executor` runs streams, summaries and the work beside a turn; it
  // outlives the service.
  ChatService(const Config& config, memory::Registry& registry, Executor& executor);
  // Waits for streams and summaries still running.
  ~ChatService();
  ChatService(const ChatService&) = delete;
  ChatService& operator=(const ChatService&) = delete;

  // Everything before the upstream call. Errors are the client's: a bad body
  // or model (InvalidArgument), an unusable namespace. A store that fails
  // (Busy, IOError or DiskFull: the database down, a lock timed out) while
  // the namespace opens or the turn's memory is read and stored does not
  // fail the turn: it goes on as with memory off, its record saying why
  // (injected.memory_unavailable), and MemoryWasUnavailable says so. A
  // Responses chain only the archive knows still fails with the store's error.
  Result<std::shared_ptr<PreparedTurn>> Prepare(ChatCall call);
  static bool WantsStream(const PreparedTurn& turn);
  static Wire ClientWire(const PreparedTurn& turn);
  // Memory was asked for and the store failed: the turn has none (X-Cilia-Memory: unavailable).
  static bool MemoryWasUnavailable(const PreparedTurn& turn);

  // The whole answer in the client's format, or the upstream's error shaped
  // for the client, with the upstream's status.
  ChatReply Complete(PreparedTurn& turn);
  // Streams the answer to `sink`. A non-OK result means nothing was written:
  // the upstream refused before the first byte, and the caller answers with
  // UpstreamErrorOf(status) instead. Once bytes went out, failures end the
  // stream with an error event and the result is OK.
  Status Stream(PreparedTurn& turn, ChatSink& sink);
  // Runs Stream on the executor and hands its result to `done` there. Busy,
  // and nothing runs, when the executor's queue is full.
  Status StartStream(std::shared_ptr<PreparedTurn> turn, std::shared_ptr<ChatSink> sink,
                     std::function<void(Status)> done);

  // GET and DELETE /v1/responses/{id}: a kept response of the namespace
  // (NotFound otherwise), and {id, object, deleted} once it is gone.
  Result<nlohmann::json> GetResponse(const std::string& name_space, const std::string& id);
  Result<nlohmann::json> DeleteResponse(const std::string& name_space, const std::string& id);

 private:
  Status PrepareMemory(PreparedTurn& turn);
  // Finds and stores the turn's conversation and reads its memory into
  // `blocks` (and the summary's cut into `options`).
  Status ReadMemory(PreparedTurn& turn, MemoryBlocks& blocks, AssembleOptions& options);
  // The turn goes on without memory because of `why`, logged once.
  static void MemoryUnavailable(PreparedTurn& turn, const Status& why);
  // The turn in the Chat Completions shape, for POST /v1/responses.
  Status ReadResponses(PreparedTurn& turn, ChatCall& call);
  ChatReply CompleteRounds(PreparedTurn& turn);
  // The rounds of a streamed turn, their events joined by `splicer` and
  // what goes out filtered by `filter` (output_filter.h).
  Status StreamRounds(PreparedTurn& turn, ChatSink& sink, StreamSplicer& splicer, StreamFilter& filter);
  // Keeps a Responses turn's answer (completed or incomplete) for GET and previous_response_id.
  void KeepResponse(PreparedTurn& turn, const nlohmann::json& response);
  Status DescribeImages(PreparedTurn& turn);
  void Finish(PreparedTurn& turn, const llm::AssistantTurn& answer, int http_status, std::string error);
  void StoreAnswer(PreparedTurn& turn, const llm::AssistantTurn& answer);
  bool ContinueWithRecall(PreparedTurn& turn, const llm::AssistantTurn& answer);
  void StreamDone();

  const Config& config_;
  memory::Registry& registry_;
  Executor& executor_;
  Compressor compressor_;
  ResponseStore responses_;
  std::atomic<uint64_t> response_seq_{0};  // makes response ids of one millisecond differ

  std::mutex mu_;
  std::condition_variable idle_cv_;
  int streams_ CILIA_GUARDED_BY(mu_) = 0;  // streams queued or running
};

}  // namespace cilia::gateway
