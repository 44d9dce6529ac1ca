// One chat turn through cilia (DESIGN.md §6): read the client's request,
// find its conversation and store the new user message, build the memory
// for the turn, assemble the prompt, call the upstream — running the model's
// `recall` calls in process, for as many rounds as allowed — and store the
// answer, log the usage and, when the history has grown long, summarise it.
//
// The HTTP adapter (api/chat_routes.cpp) only moves bytes: Prepare, then
// Complete or Stream. Nothing here throws.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/config.h"
#include "core/status.h"
#include "gateway/chat_request.h"
#include "llm/chat_format.h"
#include "gateway/prompt_assembler.h"
#include "llm/routing.h"
#include "llm/upstream.h"
#include "ingest/ingest_request.h"
#include "memory/registry.h"
#include "net/http_client.h"
#include "store/turn_repo.h"

namespace cilia::gateway {

enum class ChatEndpoint { kChatCompletions, kMessages, kGuideDog };

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

// What a turn adds to the archive, decided before anything is written.
struct TurnStorage {
  ingest::IngestConversation ingest;  // missing history messages, then the new user message
  std::string current_id;             // the new user message's id, "" when none
  bool created = false;               // the conversation is new: tag it with the client's user
};

struct StoredTurn {
  int64_t conversation_row = 0;
  int64_t reply_anchor = -1;  // seq the answer follows
};

class ChatService {
 public:
  ChatService(const Config& config, memory::Registry& registry);
  // Waits for streams and summaries still running.
  ~ChatService();
  ChatService(const ChatService&) = delete;
  ChatService& operator=(const ChatService&) = delete;

  // Everything before the upstream call. Errors are the client's: a bad body
  // or model (InvalidArgument), an unusable namespace.
  Result<std::shared_ptr<PreparedTurn>> Prepare(ChatCall call);
  static bool WantsStream(const PreparedTurn& turn);
  static Wire ClientWire(const PreparedTurn& turn);

  // The whole answer in the client's format, or the upstream's error shaped
  // for the client, with the upstream's status.
  ChatReply Complete(PreparedTurn& turn);
  // Streams the answer to `sink`. A non-OK result means nothing was written:
  // the upstream refused before the first byte, and the caller answers with
  // UpstreamErrorOf(status) instead. Once bytes went out, failures end the
  // stream with an error event and the result is OK.
  Status Stream(PreparedTurn& turn, ChatSink& sink);

  // Counts a stream run on another thread, so the destructor waits for it.
  class StreamGuard {
   public:
    explicit StreamGuard(ChatService& service);
    ~StreamGuard();
    StreamGuard(const StreamGuard&) = delete;
    StreamGuard& operator=(const StreamGuard&) = delete;

   private:
    ChatService& service_;
  };

 private:
  Status PrepareMemory(PreparedTurn& turn);
  Result<TurnStorage> Identify(PreparedTurn& turn);
  Result<StoredTurn> StoreTurn(memory::Namespace& ns, const TurnStorage& storage, const std::string& client_user,
                               StoredTurn known);
  void BuildTurnMemory(PreparedTurn& turn, MemoryBlocks& blocks);
  Status DescribeImages(PreparedTurn& turn);
  // Appends the recall results of `round` to the upstream body; false when
  // the turn is over (no recall call, a client tool call, the round limit).
  bool ContinueWithRecall(PreparedTurn& turn, const llm::AssistantTurn& answer);
  void Finish(PreparedTurn& turn, const llm::AssistantTurn& answer, int http_status, std::string error);
  void StoreAnswer(PreparedTurn& turn, const std::string& text);
  void MaybeCompress(PreparedTurn& turn, const std::string& answer_text);
  void Summarise(std::shared_ptr<memory::Namespace> ns, int64_t conversation_row, std::string previous,
                 std::vector<ClientMessage> messages, size_t raw_from);

  const Config& config_;
  memory::Registry& registry_;

  std::mutex mu_;
  std::condition_variable idle_cv_;
  int running_ = 0;                         // streams and summaries in flight
  std::set<std::string> summarising_;       // namespace/conversation with a summary being written
};

}  // namespace cilia::gateway
