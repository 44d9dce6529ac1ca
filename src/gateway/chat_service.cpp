#include "gateway/chat_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "core/log.h"
#include "core/metrics_sink.h"
#include "gateway/memory_blocks.h"
#include "gateway/output_filter.h"
#include "gateway/recall_rounds.h"
#include "gateway/recall_tool.h"
#include "gateway/responses_turn.h"
#include "gateway/stream_splicer.h"
#include "gateway/turn_identity.h"
#include "gateway/turn_state.h"
#include "llm/chat_format.h"
#include "llm/json_access.h"
#include "llm/responses_format.h"
#include "llm/responses_stream.h"
#include "llm/routing.h"
#include "llm/stream.h"
#include "llm/upstream.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_reads.h"

namespace cilia::gateway {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

namespace {

std::string EndpointName(ChatEndpoint endpoint) {
  switch (endpoint) {
    case ChatEndpoint::kChatCompletions:
      return "chat.completions";
    case ChatEndpoint::kMessages:
      return "messages";
    case ChatEndpoint::kGuideDog:
      return "guide-dog";
    case ChatEndpoint::kResponses:
      return "responses";
  }
  return "";
}

Wire WireOf(const ProviderConfig& provider) {
  return provider.kind == ProviderKind::kAnthropic ? Wire::kAnthropic : Wire::kOpenAI;
}

int64_t MsSince(SteadyClock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start).count();
}

// The client's body in the upstream's format.
Result<json> ToUpstreamFormat(const json& body, Wire client, Wire upstream) {
  if (client == upstream) return body;
  if (client == Wire::kOpenAI) return llm::OpenAIRequestToAnthropic(body);
  return llm::AnthropicRequestToOpenAI(body);
}

// The stream reader that turns one round of upstream bytes into client bytes.
std::unique_ptr<llm::StreamReader> MakeReader(Wire upstream, Wire client, const std::string& model, bool include_usage,
                                              UnixMs now) {
  if (upstream == Wire::kResponses) return std::make_unique<llm::ResponsesStreamObserver>();
  if (upstream == Wire::kAnthropic && client == Wire::kOpenAI) {
    return std::make_unique<llm::AnthropicToOpenAIStream>(llm::OpenAIStreamOptions{model, now / 1000, include_usage});
  }
  if (upstream == Wire::kOpenAI && client == Wire::kAnthropic) return std::make_unique<llm::OpenAIToAnthropicStream>(model);
  if (upstream == Wire::kOpenAI) return std::make_unique<llm::OpenAIStreamObserver>(include_usage);
  return std::make_unique<llm::AnthropicStreamObserver>();
}

llm::AssistantTurn AnswerOf(const json& response, Wire upstream) {
  if (upstream == Wire::kResponses) return llm::TurnFromResponsesResponse(response);
  return upstream == Wire::kOpenAI ? llm::TurnFromOpenAIResponse(response) : llm::TurnFromAnthropicResponse(response);
}

json ClientResponse(const json& upstream_response, Wire upstream, Wire client, const std::string& model) {
  if (upstream == client) {
    json out = upstream_response;
    out["model"] = model;
    return out;
  }
  if (upstream == Wire::kAnthropic) return llm::AnthropicResponseToOpenAI(upstream_response, model);
  return llm::OpenAIResponseToAnthropic(upstream_response, model);
}

json ErrorBody(const llm::UpstreamError& error, Wire client) {
  return client == Wire::kAnthropic ? llm::AnthropicErrorBody(error) : llm::OpenAIErrorBody(error);
}

// A store that could not be read or written: down or unreachable
// ("postgresql unreachable"), a lock or the pool timed out, disk trouble or a
// full disk (the codes core/env.h counts as disk faults). What the client
// sent wrong (InvalidArgument, Conflict, TooLarge…) and bugs still fail the turn.
bool StoreFailed(const Status& status) {
  return status.code() == Code::kBusy || status.code() == Code::kIOError || status.code() == Code::kDiskFull;
}

}  // namespace

// ---- ChatService ---------------------------------------------------------------

ChatService::ChatService(const Config& config, memory::Registry& registry, Executor& executor)
    : config_(config), registry_(registry), executor_(executor), compressor_(config, registry.clock(), executor) {}

ChatService::~ChatService() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return streams_ == 0; });
}

bool ChatService::WantsStream(const PreparedTurn& turn) { return turn.request.client_turn.stream; }
Wire ChatService::ClientWire(const PreparedTurn& turn) { return turn.request.client; }
bool ChatService::MemoryWasUnavailable(const PreparedTurn& turn) { return !turn.memory_unavailable.empty(); }

Result<std::shared_ptr<PreparedTurn>> ChatService::Prepare(ChatCall call) {
  auto turn = std::make_shared<PreparedTurn>();
  TurnRequest& req = turn->request;
  req.started = SteadyClock::now();
  req.now = registry_.clock().Now();
  req.client = call.endpoint == ChatEndpoint::kMessages ? Wire::kAnthropic : Wire::kOpenAI;
  if (call.endpoint == ChatEndpoint::kResponses) CILIA_RETURN_IF_ERROR(ReadResponses(*turn, call));
  CILIA_ASSIGN_OR_RETURN(req.client_turn, ReadClientTurn(call.body, req.client));
  req.requested_model = llm::StringOr(call.body, "model", config_.models.public_name);
  CILIA_ASSIGN_OR_RETURN(req.route, llm::ResolveModel(config_, req.requested_model));
  // Images go to the vision model when the chat model cannot see them; the
  // guide-dog relay describes them instead, for the model that was asked.
  if (req.client_turn.has_images && call.endpoint != ChatEndpoint::kGuideDog &&
      !config_.gateway.chat_model_sees_images && !config_.models.vision.empty() &&
      req.requested_model == config_.models.public_name) {
    CILIA_ASSIGN_OR_RETURN(req.route, llm::VisionRoute(config_));
  }
  req.call = std::move(call);
  // A Responses client on an upstream that speaks Responses: its own body goes up.
  const bool pass_through = turn->responses && llm::SpeaksResponses(*req.route.provider);
  if (turn->responses) {
    if (!pass_through) CILIA_RETURN_IF_ERROR(turn->responses->chat_refusal);
    turn->responses->pass_through = pass_through;
  }
  if (pass_through) req.client = Wire::kResponses;
  UpstreamRounds& up = turn->upstream;
  up.wire = pass_through ? Wire::kResponses : WireOf(*req.route.provider);
  up.max_rounds = config_.gateway.recall_rounds;
  store::TurnRecord& record = turn->record;
  record.started_at = req.now;
  record.local_day = registry_.tz().LocalDate(req.now).ToString();
  record.endpoint = EndpointName(req.call.endpoint);
  record.requested_model = req.requested_model;
  record.upstream_model = req.route.provider->name + "/" + req.route.model;
  record.streamed = req.client_turn.stream;

  if (req.call.endpoint == ChatEndpoint::kGuideDog) {
    CILIA_RETURN_IF_ERROR(DescribeImages(*turn));
    CILIA_ASSIGN_OR_RETURN(up.body, ToUpstreamFormat(req.call.body, req.client, up.wire));
    up.body["model"] = req.route.model;
    return turn;
  }
  if (auto ns = registry_.Get(req.call.name_space); ns.ok()) {
    turn->ns = std::move(*ns);
  } else if (!StoreFailed(ns.status())) {
    return ns.status();
  } else if (req.call.features.memory) {
    MemoryUnavailable(*turn, ns.status());
  } else {
    LogWarn("turn of namespace {} answered without its record: {}", req.call.name_space, ns.status().ToString());
  }
  if (pass_through) {
    up.body = turn->responses->upstream_body;
  } else {
    CILIA_ASSIGN_OR_RETURN(up.body, ToUpstreamFormat(req.call.body, req.client, up.wire));
  }
  up.body["model"] = req.route.model;
  CILIA_RETURN_IF_ERROR(PrepareMemory(*turn));
  if (turn->responses) {
    turn->responses->response_id =
        NewResponseId(turn->identity.conversation_id, req.now, std::to_string(response_seq_.fetch_add(1)));
  }
  return turn;
}

Status ChatService::ReadResponses(PreparedTurn& turn, ChatCall& call) {
  // The archive answers previous_response_id when the response is no longer kept.
  std::shared_ptr<memory::Namespace> ns;
  Status opened;
  if (call.features.memory) {
    auto got = registry_.Get(call.name_space);
    if (got.ok()) ns = std::move(*got);
    else if (StoreFailed(got.status())) opened = got.status();  // Prepare answers without memory
    else return got.status();
  }
  auto read = ReadResponsesCall(call.body, responses_, call.name_space, ns.get(), turn.request.now);
  // A chain only the archive knows is the conversation itself, not memory:
  // without it the model would answer another one, so the client retries.
  if (!read.ok() && read.status().code() == Code::kNotFound && !opened.ok()) return opened;
  CILIA_RETURN_IF_ERROR(read.status());
  call.body = std::move(read->chat_body);
  if (call.conversation_header.empty()) call.conversation_header = read->turn.continues;
  turn.responses = std::move(read->turn);
  return Status::Ok();
}

void ChatService::KeepResponse(PreparedTurn& turn, const json& response) {
  const std::string status = llm::StringOr(response, "status");
  if (!turn.responses->keep || (status != "completed" && status != "incomplete")) return;
  responses_.Put(turn.request.call.name_space, turn.responses->response_id,
                 KeptResponse(*turn.responses, response, turn.identity.conversation_id));
}

Result<json> ChatService::GetResponse(const std::string& name_space, const std::string& id) {
  auto kept = responses_.Get(name_space, id);
  if (!kept) return Status::NotFound("no response '" + id + "' (not stored, or deleted)");
  return kept->response;
}

Result<json> ChatService::DeleteResponse(const std::string& name_space, const std::string& id) {
  if (!responses_.Erase(name_space, id)) return Status::NotFound("no response '" + id + "' (not stored, or deleted)");
  return json{{"id", id}, {"object", "response"}, {"deleted", true}};
}

Status ChatService::PrepareMemory(PreparedTurn& turn) {
  const FeaturesConfig& features = turn.request.call.features;
  UpstreamRounds& up = turn.upstream;
  turn.memory = features.memory && turn.ns != nullptr;
  MemoryBlocks blocks;
  AssembleOptions options;
  options.wire = up.wire;
  options.add_markers = up.wire == Wire::kAnthropic;
  options.ttl = config_.gateway.cache_ttl;
  if (turn.memory) {
    if (Status read = ReadMemory(turn, blocks, options); !read.ok()) {
      if (!StoreFailed(read)) return read;
      // The blocks go too, even those read fine beside a failed store: the
      // turn's question is not in the archive, so its answer is not stored
      // either, and the client is told of one thing, a turn without memory.
      blocks = MemoryBlocks();
      MemoryUnavailable(turn, read);
    }
  }
  json recall_tool = nullptr;
  if (turn.memory && features.recall_tool) recall_tool = RecallToolDefinition(up.wire);
  CILIA_ASSIGN_OR_RETURN(Assembled assembled, Assemble(up.body, blocks, recall_tool, options));
  up.body = std::move(assembled.body);
  up.recall_offered = assembled.recall_offered;
  if (!assembled.moved_lines.empty()) turn.record.injected["moved_lines"] = assembled.moved_lines;
  turn.record.injected["markers_added"] = assembled.markers_added;
  return Status::Ok();
}

Status ChatService::ReadMemory(PreparedTurn& turn, MemoryBlocks& blocks, AssembleOptions& options) {
  const TurnRequest& req = turn.request;
  const FeaturesConfig& features = req.call.features;
  const UpstreamRounds& up = turn.upstream;
  memory::Namespace& ns = *turn.ns;
  CILIA_ASSIGN_OR_RETURN(FoundConversation found,
                         FindTurnConversation(ns, req.client_turn, req.call.conversation_header, req.now));
  turn.identity = found.identity;
  turn.record.conversation_id = turn.identity.conversation_id;
  // The store commits while the memory for the turn is read (DESIGN.md §8):
  // neither needs the other, the menu never shows the new message anyway.
  auto stored = executor_.Beside([&ns, &found, &req] {
    return StoreTurn(ns, found.storage, req.client_turn.client_user, found.identity);
  });
  blocks.guide = MemoryGuide(features.recall_tool);
  blocks.profile = ProfileBlock(ns, turn.record);
  blocks.precious = PreciousBlock(ns, config_.gateway.precious_tokens, turn.record);
  if (features.compression && up.wire != Wire::kResponses) {
    turn.summary = SummaryBlock(ns, turn.identity.conversation_row, up.body, up.wire, req.client_turn);
  }
  blocks.daily_pack = DailyPackBlock(ns, req.now, turn.record);
  blocks.clock_line = ClockLine(ns.tz(), req.now);
  blocks.volatile_text = VolatileBlock(
      ns, VolatileInputs{req.client_turn, turn.identity, req.now, features.recall_tool, config_.gateway}, turn.record);
  CILIA_ASSIGN_OR_RETURN(turn.identity, stored.get());
  if (!found.storage.ingest.messages.empty()) registry_.ScheduleIndexing(ns.name(), turn.identity.conversation_row);
  if (turn.summary) {
    blocks.summary = turn.summary->text;
    options.history_keep_from = turn.summary->upstream_keep_from;
  }
  return Status::Ok();
}

void ChatService::MemoryUnavailable(PreparedTurn& turn, const Status& why) {
  LogWarn("turn of namespace {} answered without memory: {}", turn.request.call.name_space, why.ToString());
  turn.memory = false;
  turn.identity = TurnIdentity();
  turn.summary.reset();
  turn.record.sources.clear();
  turn.record.injected = {{"memory_unavailable", why.ToString()}};
  turn.memory_unavailable = why.ToString();
}

Status ChatService::DescribeImages(PreparedTurn& turn) {
  if (!turn.request.client_turn.has_images) return Status::Ok();
  CILIA_ASSIGN_OR_RETURN(llm::Route vision, llm::VisionRoute(config_));
  json& messages = turn.request.call.body["messages"];
  for (json& message : messages) {
    if (!message.is_object() || !message.contains("content") || !message["content"].is_array()) continue;
    bool has_image = false;
    for (const json& part : message["content"]) has_image = has_image || llm::StringOr(part, "type") == "image_url";
    if (!has_image) continue;
    json question = {
        {"model", vision.model},
        {"max_tokens", 1000},
        {"messages", json::array({{{"role", "system"},
                                   {"content", "Describe the images in this message for someone who cannot see them: "
                                               "what is shown, any text in them verbatim, and what matters for "
                                               "the message's question. Answer with the description only."}},
                                  {{"role", "user"}, {"content", message["content"]}}})}};
    CILIA_ASSIGN_OR_RETURN(const llm::AssistantTurn described, llm::CompleteOpenAIShaped(vision, std::move(question)));
    json parts = json::array();
    int image = 0;
    for (json& part : message["content"]) {
      if (llm::StringOr(part, "type") != "image_url") {
        parts.push_back(std::move(part));
      } else if (image++ == 0) {
        parts.push_back({{"type", "text"}, {"text", "[Image description: " + described.text + "]"}});
      }
    }
    message["content"] = std::move(parts);
  }
  return Status::Ok();
}

bool ChatService::ContinueWithRecall(PreparedTurn& turn, const llm::AssistantTurn& answer) {
  if (turn.ns == nullptr) return false;
  RecallToolOptions options{config_.gateway.recall_results, static_cast<size_t>(config_.gateway.recall_result_chars),
                            turn.request.now, nullptr};
  return gateway::ContinueWithRecall(turn.upstream, RecallRun{*turn.ns, turn.identity, std::move(options)}, answer,
                                     turn.record);
}

ChatReply ChatService::Complete(PreparedTurn& turn) {
  ChatReply reply = CompleteRounds(turn);
  if (!turn.responses || reply.http_status != 200) return reply;  // errors have the same shape on both
  const ResponsesTurn& responses = *turn.responses;
  const llm::ResponseHeader header{responses.response_id, responses.created_at / 1000, turn.request.requested_model};
  json response = responses.pass_through ? llm::AsClientResponse(std::move(reply.body), responses.request, header)
                                         : llm::ChatResponseToResponses(reply.body, responses.request, header);
  KeepResponse(turn, response);
  return {200, std::move(response)};
}

ChatReply ChatService::CompleteRounds(PreparedTurn& turn) {
  const TurnRequest& req = turn.request;
  UpstreamRounds& up = turn.upstream;
  llm::UpstreamClient client(*req.route.provider, up.wire == Wire::kResponses);
  std::vector<llm::AssistantTurn> rounds;
  llm::Usage total;
  while (true) {
    auto response = client.Complete(up.body, req.call.forward_headers);
    if (!response.ok()) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(response.status());
      Finish(turn, JoinRounds(rounds), error.http_status, error.message);
      return {error.http_status, ErrorBody(error, req.client)};
    }
    llm::AssistantTurn answer = AnswerOf(*response, up.wire);
    total = total + answer.usage;
    rounds.push_back(answer);
    if (ContinueWithRecall(turn, answer)) continue;
    json merged = rounds.size() == 1 && !answer.CalledTool(kRecallToolName)
                      ? *response
                      : MergeRounds(*response, std::vector<llm::AssistantTurn>(rounds.begin(), rounds.end() - 1), total,
                                    up.wire, up.recall_offered);
    turn.record.first_byte_ms = MsSince(req.started);
    const OutputFilterOptions filter = OutputFilterOptions::For(req.call.features, config_.gateway);
    json reply = FilterReply(ClientResponse(merged, up.wire, req.client, req.requested_model), req.client, filter);
    llm::AssistantTurn shown = JoinRounds(rounds);
    if (filter.active()) shown.text = AnswerOf(reply, req.client).text;  // the archive keeps what the client saw
    Finish(turn, shown, 200, "");
    return {200, std::move(reply)};
  }
}

Status ChatService::StartStream(std::shared_ptr<PreparedTurn> turn, std::shared_ptr<ChatSink> sink,
                                std::function<void(Status)> done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++streams_;
  }
  const bool queued = executor_.Post([this, turn, sink, done] {
    done(Stream(*turn, *sink));
    StreamDone();
  });
  if (queued) return Status::Ok();
  StreamDone();
  return Status::Busy("cilia's background workers are all busy ([server] threads); try again shortly");
}

void ChatService::StreamDone() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--streams_ == 0) idle_cv_.notify_all();
}

namespace {

// A Responses client's sink: the Chat Completions stream, as Responses events.
class ResponsesSink : public ChatSink {
 public:
  ResponsesSink(ChatSink& client, llm::ChatToResponsesStream& converter) : client_(client), converter_(converter) {}
  bool Write(std::string_view bytes) override {
    const std::string events = converter_.Feed(bytes);
    return events.empty() || client_.Write(events);
  }
  bool ClientGone() const override { return client_.ClientGone(); }

 private:
  ChatSink& client_;
  llm::ChatToResponsesStream& converter_;
};

}  // namespace

Status ChatService::Stream(PreparedTurn& turn, ChatSink& sink) {
  const std::string hidden = turn.upstream.recall_offered ? std::string(kRecallToolName) : std::string();
  const std::string& model = turn.request.requested_model;
  const OutputFilterOptions filter = OutputFilterOptions::For(turn.request.call.features, config_.gateway);
  if (!turn.responses) {
    return StreamRounds(turn, sink, *StreamSplicer::Create(turn.request.client, hidden, model),
                        *StreamFilter::Create(turn.request.client, filter));
  }
  const ResponsesTurn& responses = *turn.responses;
  const llm::ResponseHeader header{responses.response_id, responses.created_at / 1000, model};
  if (responses.pass_through) {
    ResponsesSplicer relay(hidden, responses.request, header);
    CILIA_RETURN_IF_ERROR(StreamRounds(turn, sink, relay, *StreamFilter::Create(Wire::kResponses, filter)));
    // The kept response is the one the client saw the end of.
    KeepResponse(turn, FilterReply(relay.response(), Wire::kResponses, filter));
    return Status::Ok();
  }
  // Filtered in the Chat Completions shape, before it becomes Responses events.
  llm::ChatToResponsesStream converter(responses.request, header);
  ResponsesSink events(sink, converter);
  CILIA_RETURN_IF_ERROR(StreamRounds(turn, events, *StreamSplicer::Create(Wire::kOpenAI, hidden, model),
                                     *StreamFilter::Create(Wire::kOpenAI, filter)));
  // A stream that stopped short ends with response.failed.
  if (const std::string rest = converter.Finish(); !rest.empty()) sink.Write(rest);
  KeepResponse(turn, converter.response());
  return Status::Ok();
}

Status ChatService::StreamRounds(PreparedTurn& turn, ChatSink& sink, StreamSplicer& splicer, StreamFilter& filter) {
  const TurnRequest& req = turn.request;
  UpstreamRounds& up = turn.upstream;
  llm::UpstreamClient client(*req.route.provider, up.wire == Wire::kResponses);
  std::vector<llm::AssistantTurn> rounds;
  bool wrote = false;
  auto write = [&](const std::string& bytes) {
    if (bytes.empty()) return true;
    if (!wrote) turn.record.first_byte_ms = MsSince(req.started);
    wrote = true;
    return sink.Write(bytes);
  };
  while (true) {
    auto reader = MakeReader(up.wire, req.client, req.requested_model, req.client_turn.include_usage, req.now);
    bool client_gone = false;
    net::DataCallback on_data = [&](std::string_view bytes) {
      if (!write(filter.Feed(splicer.Feed(reader->Feed(bytes)))) || sink.ClientGone()) {
        client_gone = true;
        return false;
      }
      return true;
    };
    // Upstream silence with a client gone is noticed about once a second.
    auto result = client.Stream(up.body, on_data, req.call.forward_headers);
    if (!result.ok() && !wrote) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(result.status());
      Finish(turn, JoinRounds(rounds), error.http_status, error.message);
      return result.status();
    }
    if (client_gone || (result.ok() && result->cancelled)) {
      Finish(turn, JoinRounds(rounds), 499, "the client went away");
      return Status::Ok();
    }
    if (!result.ok()) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(result.status());
      write(filter.Feed(splicer.Feed(reader->Finish(error.message))));
      Finish(turn, JoinRounds(rounds), error.http_status, error.message);
      return Status::Ok();
    }
    write(filter.Feed(splicer.Feed(reader->Finish())));
    rounds.push_back(reader->turn());
    const llm::AssistantTurn all = JoinRounds(rounds);
    if (splicer.failed() || !reader->upstream_error().empty()) {
      Finish(turn, all, 502, reader->upstream_error().empty() ? "the upstream stream failed" : reader->upstream_error());
      return Status::Ok();
    }
    if (ContinueWithRecall(turn, reader->turn())) {
      write(filter.Feed(splicer.EndRound(/*more=*/true, all.usage)));
      continue;
    }
    // Stored before the client sees the end, so that its next turn finds it;
    // the ending lets out the text the filter held, which belongs to the answer.
    std::string ending = filter.Feed(splicer.EndRound(/*more=*/false, all.usage));
    ending += filter.Finish();
    llm::AssistantTurn shown = all;
    if (filter.active()) shown.text = filter.visible_text();
    Finish(turn, shown, 200, "");
    write(ending);
    return Status::Ok();
  }
}

void ChatService::Finish(PreparedTurn& turn, const llm::AssistantTurn& answer, int http_status, std::string error) {
  store::TurnRecord& r = turn.record;
  r.http_status = http_status;
  r.error = std::move(error);
  r.input_tokens = answer.usage.input;
  r.output_tokens = answer.usage.output;
  r.cache_read_tokens = answer.usage.cache_read;
  r.cache_write_tokens = answer.usage.cache_write;
  r.reasoning_tokens = answer.usage.reasoning;
  r.recall_rounds = turn.upstream.recall_rounds;
  if (http_status == 200 && turn.memory) {
    StoreAnswer(turn, answer);
    if (turn.request.call.features.compression) {
      const ClientTurn& client = turn.request.client_turn;
      std::vector<ClientMessage> messages = client.history;
      if (client.current) messages.push_back(*client.current);
      if (!answer.text.empty()) messages.push_back({"assistant", answer.text, answer.text});
      compressor_.MaybeCompress(turn.ns, turn.identity.conversation_row, turn.summary ? turn.summary->text : "",
                                std::move(messages), turn.summary ? turn.summary->raw_from : 0);
    }
  }
  // The menu and a recall often quote the same messages: each once.
  std::sort(r.sources.begin(), r.sources.end());
  r.sources.erase(std::unique(r.sources.begin(), r.sources.end()), r.sources.end());
  r.total_ms = MsSince(turn.request.started);
  ReportTurn({r.upstream_model, r.http_status, r.input_tokens, r.output_tokens, r.cache_read_tokens,
              r.cache_write_tokens, r.reasoning_tokens, r.first_byte_ms, r.total_ms, r.recall_rounds});
  if (turn.ns == nullptr) return;  // guide-dog keeps no records, nor a namespace that could not be opened
  if (Status logged = memory::RecordTurn(*turn.ns, r); !logged.ok()) {
    LogWarn("turn record of namespace {}: {}", turn.ns->name(), logged.ToString());
  }
}

void ChatService::StoreAnswer(PreparedTurn& turn, const llm::AssistantTurn& answer) {
  if (turn.identity.conversation_id.empty()) return;
  const ingest::IngestConversation storage =
      AnswerStorage(turn.identity, answer, turn.upstream.recall_offered ? kRecallToolName : std::string_view());
  if (storage.messages.empty()) return;
  memory::Archive archive(*turn.ns);
  auto stored = archive.Store(storage);
  if (!stored.ok()) {
    LogWarn("storing the answer in {}/{}: {}", turn.ns->name(), turn.identity.conversation_id, stored.status().ToString());
    return;
  }
  registry_.ScheduleIndexing(turn.ns->name(), stored->conversation_row);
}

}  // namespace cilia::gateway
