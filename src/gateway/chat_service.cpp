#include "gateway/chat_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <future>

#include "core/codec.h"
#include "core/concurrency.h"
#include "core/log.h"
#include "core/time.h"
#include "text/tokens.h"
#include "text/utf8.h"
#include "gateway/compression.h"
#include "gateway/recall_tool.h"
#include "gateway/stream_splicer.h"
#include "llm/chat_format.h"
#include "llm/json_access.h"
#include "llm/stream.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_match.h"
#include "memory/upkeep/digests.h"
#include "memory/recall/glossary.h"
#include "memory/recall/menu.h"
#include "store/message_repo.h"
#include "store/profile_repo.h"
#include "store/summary_repo.h"

namespace cilia::gateway {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// Everything one turn carries from Prepare to its end.
class PreparedTurn {
 public:
  ChatCall call;
  Wire client = Wire::kOpenAI;
  Wire upstream = Wire::kOpenAI;
  ClientTurn client_turn;
  std::string requested_model;
  llm::Route route;
  json upstream_body;
  bool recall_offered = false;
  int recall_rounds = 0;
  UnixMs now = 0;
  SteadyClock::time_point started;

  std::shared_ptr<memory::Namespace> ns;  // the caller's namespace (usage is logged there)
  bool memory = false;                    // memory read and written this turn
  std::string conversation_id;            // external id; "" without memory
  int64_t conversation_row = 0;
  int64_t reply_anchor = -1;               // seq the stored answer follows
  int64_t visible_from_seq = 0;            // stored messages from here on are in what the client sends
  UnixMs visible_from_ms = 0;              // ... and the time of the first of them
  std::string summary_text;                // the summary sent as BP3, "" when none
  size_t raw_from = 0;                     // index into history+current where the raw part begins
  store::TurnRecord record;
};

namespace {

std::string EndpointName(ChatEndpoint endpoint) {
  switch (endpoint) {
    case ChatEndpoint::kChatCompletions:
      return "chat.completions";
    case ChatEndpoint::kMessages:
      return "messages";
    case ChatEndpoint::kGuideDog:
      return "guide-dog";
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
  if (upstream == Wire::kAnthropic && client == Wire::kOpenAI) {
    return std::make_unique<llm::AnthropicToOpenAIStream>(llm::OpenAIStreamOptions{model, now / 1000, include_usage});
  }
  if (upstream == Wire::kOpenAI && client == Wire::kAnthropic) return std::make_unique<llm::OpenAIToAnthropicStream>(model);
  if (upstream == Wire::kOpenAI) return std::make_unique<llm::OpenAIStreamObserver>(include_usage);
  return std::make_unique<llm::AnthropicStreamObserver>();
}

llm::Usage operator+(const llm::Usage& a, const llm::Usage& b) {
  return {a.input + b.input, a.output + b.output, a.cache_read + b.cache_read, a.cache_write + b.cache_write};
}

// What the client shows as the answer's text: every round's, in order.
void Append(llm::AssistantTurn& all, const llm::AssistantTurn& round, bool first) {
  if (first) {
    all.id = round.id;
    all.model = round.model;
  }
  all.text += round.text;
  all.thinking.insert(all.thinking.end(), round.thinking.begin(), round.thinking.end());
  all.tool_calls = round.tool_calls;
  all.finish = round.finish;
  all.usage = all.usage + round.usage;
}

bool IsRecall(const llm::ToolCall& call) { return call.name == kRecallToolName; }

// Whether a recall result is text the client sends in this very request.
bool ClientSendsIt(const PreparedTurn& turn, const memory::RecallResult& r) {
  return r.conversation_id == turn.conversation_id && r.created_at >= turn.visible_from_ms;
}

// The final upstream response of a multi-round turn, made to read as one
// answer: earlier rounds' text and thinking first, cilia's own tool calls
// gone, usage summed. Stays in the upstream's format.
json MergeRounds(json last, const std::vector<llm::AssistantTurn>& earlier, const llm::Usage& total, Wire upstream,
                 bool hide_recall) {
  if (upstream == Wire::kOpenAI) {
    json& choices = last["choices"];
    if (choices.is_array() && !choices.empty() && choices[0].contains("message")) {
      json& message = choices[0]["message"];
      std::string text, reasoning;
      for (const llm::AssistantTurn& round : earlier) {
        text += round.text;
        reasoning += round.ReasoningText();
      }
      const std::string own = message.contains("content") && message["content"].is_string() ? message["content"].get<std::string>() : "";
      if (!text.empty() || !own.empty()) message["content"] = text + own;
      if (!reasoning.empty()) message["reasoning_content"] = reasoning + llm::StringOr(message, "reasoning_content");
      if (hide_recall && message.contains("tool_calls") && message["tool_calls"].is_array()) {
        json kept = json::array();
        for (const json& call : message["tool_calls"]) {
          if (llm::StringOr(llm::MemberOr(call, "function", json::object()), "name") != kRecallToolName) kept.push_back(call);
        }
        if (kept.empty()) {
          message.erase("tool_calls");
          if (llm::StringOr(choices[0], "finish_reason") == "tool_calls") choices[0]["finish_reason"] = "stop";
        } else {
          message["tool_calls"] = std::move(kept);
        }
      }
    }
    last["usage"] = llm::UsageToOpenAI(total);
    return last;
  }
  json content = json::array();
  for (const llm::AssistantTurn& round : earlier) {
    llm::AssistantTurn visible = round;
    visible.tool_calls.clear();
    for (json& block : llm::AnthropicAssistantContent(visible)) content.push_back(std::move(block));
  }
  bool client_tool = false;
  for (const json& block : llm::ArrayOrEmpty(last, "content")) {
    const bool ours = llm::StringOr(block, "type") == "tool_use" && llm::StringOr(block, "name") == kRecallToolName;
    if (hide_recall && ours) continue;
    client_tool = client_tool || llm::StringOr(block, "type") == "tool_use";
    content.push_back(block);
  }
  last["content"] = std::move(content);
  if (llm::StringOr(last, "stop_reason") == "tool_use" && !client_tool) last["stop_reason"] = "end_turn";
  last["usage"] = llm::UsageToAnthropic(total);
  return last;
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

std::string NewConversationId(UnixMs now, const TimeZone& tz, std::string_view seed) {
  return fmt::format("chat-{}-{}", tz.LocalDate(now).ToString(), Hex64(Fnv1a64(fmt::format("{}:{}", now, seed))).substr(0, 8));
}

std::string Title(const ClientTurn& turn) {
  for (const ClientMessage& m : turn.history) {
    if (m.role == "user" && !m.text.empty()) return text::SubstrCodePoints(m.text, 0, 60);
  }
  return turn.current ? text::SubstrCodePoints(turn.current->text, 0, 60) : "";
}

// A gateway message's id: its kind, the seq it follows and its content, so
// that a client retrying a turn stores nothing twice (DESIGN.md §6 step 2).
std::string GatewayMessageId(char kind, int64_t anchor, const ClientMessage& m) {
  return fmt::format("{}{}-{}", kind, anchor, Hex64(Fnv1a64(m.role + "\n" + m.content.dump())));
}

ingest::IngestMessage ToIngest(const ClientMessage& m, std::string id) {
  ingest::IngestMessage out;
  out.id = std::move(id);
  out.role = m.role;
  out.content = m.content;
  return out;
}

}  // namespace

// ---- ChatService ---------------------------------------------------------------

ChatService::ChatService(const Config& config, memory::Registry& registry) : config_(config), registry_(registry) {}

ChatService::~ChatService() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return running_ == 0; });
}

ChatService::StreamGuard::StreamGuard(ChatService& service) : service_(service) {
  std::lock_guard<std::mutex> lock(service_.mu_);
  ++service_.running_;
}

ChatService::StreamGuard::~StreamGuard() {
  std::lock_guard<std::mutex> lock(service_.mu_);
  if (--service_.running_ == 0) service_.idle_cv_.notify_all();
}

bool ChatService::WantsStream(const PreparedTurn& turn) { return turn.client_turn.stream; }
Wire ChatService::ClientWire(const PreparedTurn& turn) { return turn.client; }

Result<std::shared_ptr<PreparedTurn>> ChatService::Prepare(ChatCall call) {
  auto turn = std::make_shared<PreparedTurn>();
  turn->started = SteadyClock::now();
  turn->now = registry_.clock().Now();
  turn->client = call.endpoint == ChatEndpoint::kMessages ? Wire::kAnthropic : Wire::kOpenAI;
  CILIA_ASSIGN_OR_RETURN(turn->client_turn, ReadClientTurn(call.body, turn->client));
  turn->requested_model = llm::StringOr(call.body, "model", config_.models.public_name);
  CILIA_ASSIGN_OR_RETURN(turn->route, llm::ResolveModel(config_, turn->requested_model));
  // Images go to the vision model when the chat model cannot see them; the
  // guide-dog relay describes them instead, for the model that was asked.
  if (turn->client_turn.has_images && call.endpoint != ChatEndpoint::kGuideDog &&
      !config_.gateway.chat_model_sees_images && !config_.models.vision.empty() &&
      turn->requested_model == config_.models.public_name) {
    CILIA_ASSIGN_OR_RETURN(turn->route, llm::VisionRoute(config_));
  }
  turn->upstream = WireOf(*turn->route.provider);
  turn->call = std::move(call);
  turn->record.started_at = turn->now;
  turn->record.local_day = registry_.tz().LocalDate(turn->now).ToString();
  turn->record.endpoint = EndpointName(turn->call.endpoint);
  turn->record.requested_model = turn->requested_model;
  turn->record.upstream_model = turn->route.provider->name + "/" + turn->route.model;
  turn->record.streamed = turn->client_turn.stream;

  if (turn->call.endpoint == ChatEndpoint::kGuideDog) {
    CILIA_RETURN_IF_ERROR(DescribeImages(*turn));
    CILIA_ASSIGN_OR_RETURN(turn->upstream_body, ToUpstreamFormat(turn->call.body, turn->client, turn->upstream));
    turn->upstream_body["model"] = turn->route.model;
    return turn;
  }
  CILIA_ASSIGN_OR_RETURN(turn->ns, registry_.Get(turn->call.name_space));
  CILIA_ASSIGN_OR_RETURN(json body, ToUpstreamFormat(turn->call.body, turn->client, turn->upstream));
  body["model"] = turn->route.model;
  turn->upstream_body = std::move(body);
  CILIA_RETURN_IF_ERROR(PrepareMemory(*turn));
  return turn;
}

Status ChatService::PrepareMemory(PreparedTurn& turn) {
  const FeaturesConfig& features = turn.call.features;
  turn.memory = features.memory;
  MemoryBlocks blocks;
  AssembleOptions options;
  options.wire = turn.upstream;
  options.add_markers = turn.upstream == Wire::kAnthropic;
  options.ttl = config_.gateway.cache_ttl;
  if (turn.memory) {
    CILIA_ASSIGN_OR_RETURN(TurnStorage storage, Identify(turn));
    // The store commits while the memory for the turn is read (DESIGN.md §8):
    // neither needs the other, the menu never shows the new message anyway.
    auto stored = RunBeside([this, &turn, &storage] {
      return StoreTurn(*turn.ns, storage, turn.client_turn.client_user, {turn.conversation_row, turn.reply_anchor});
    });
    BuildTurnMemory(turn, blocks);
    CILIA_ASSIGN_OR_RETURN(StoredTurn done, stored.get());
    turn.conversation_row = done.conversation_row;
    turn.reply_anchor = done.reply_anchor;
    if (!blocks.summary.empty()) {
      // BuildTurnMemory found where the raw part begins in the upstream body.
      options.history_keep_from = turn.record.injected.value("summary_keep_from", size_t{0});
    }
  }
  json recall_tool = nullptr;
  if (turn.memory && features.recall_tool) recall_tool = RecallToolDefinition(turn.upstream);
  CILIA_ASSIGN_OR_RETURN(Assembled assembled, Assemble(turn.upstream_body, blocks, recall_tool, options));
  turn.upstream_body = std::move(assembled.body);
  turn.recall_offered = assembled.recall_offered;
  if (!assembled.moved_lines.empty()) turn.record.injected["moved_lines"] = assembled.moved_lines;
  turn.record.injected["markers_added"] = assembled.markers_added;
  return Status::Ok();
}

Result<TurnStorage> ChatService::Identify(PreparedTurn& turn) {
  memory::Namespace& ns = *turn.ns;
  const ClientTurn& client = turn.client_turn;
  std::vector<memory::ChatHistoryMessage> history;
  history.reserve(client.history.size());
  for (const ClientMessage& m : client.history) history.push_back({m.role, m.text});

  std::optional<memory::ConversationMatch> match;
  if (!client.history.empty()) {
    CILIA_ASSIGN_OR_RETURN(match, memory::FindContinuedConversation(ns, client.client_user, history));
  }
  const std::string& header = turn.call.conversation_header;
  if (!header.empty() && match && match->conversation_id != header) match.reset();
  // One message in common ("hi") is no evidence of the same conversation,
  // unless it is that conversation's newest message (a client retrying).
  if (match && match->matched < 2) {
    auto conversation = ns.store().Read(
        [&](store::Database& db) { return store::MessageRepo(db).GetConversation(match->conversation_row); });
    if (!conversation.ok() || !conversation->has_value() || (*conversation)->next_seq - 1 != match->last_matched_seq) {
      match.reset();
    }
  }
  turn.conversation_id = !header.empty() ? header
                         : match         ? match->conversation_id
                                         : NewConversationId(turn.now, ns.tz(), client.client_user + Title(client));

  // What the archive has not seen: history messages missing from it (all of
  // them for a new conversation), then the new user message.
  ingest::IngestConversation ingest;
  ingest.conversation_id = turn.conversation_id;
  ingest.title = Title(client);
  ingest.source = "gateway";
  int64_t anchor = match ? match->last_matched_seq : -1;
  std::vector<size_t> missing;
  bool created = false;
  if (match) {
    // Unmatched messages before the last matched one were edited by the
    // client, or forgotten here: storing them would bring forgotten words back.
    for (size_t i : match->unmatched) {
      if (static_cast<int>(i) > match->last_matched_index) missing.push_back(i);
    }
  } else {
    bool exists = false;
    if (!header.empty()) {
      auto found = ns.store().Read([&](store::Database& db) { return store::MessageRepo(db).FindConversation(header); });
      exists = found.ok() && found->has_value();
      if (exists) turn.conversation_row = (*found)->id;
      // Anchored at its newest message: a retry may then be stored twice,
      // but a repeated "ok" is never taken for a retry and lost.
      // (With no history at all the message opens the conversation: -1.)
      if (exists && !client.history.empty()) anchor = (*found)->next_seq - 1;
    }
    // A conversation named by the header that the history does not match
    // keeps what it has: only the new message is added.
    if (!exists) {
      for (size_t i = 0; i < client.history.size(); ++i) missing.push_back(i);
    }
    created = !exists;
  }
  for (size_t i : missing) ingest.messages.push_back(ToIngest(client.history[i], GatewayMessageId('h', static_cast<int64_t>(i), client.history[i])));
  std::string current_id;
  if (client.current) {
    current_id = GatewayMessageId('u', anchor, *client.current);
    ingest.messages.push_back(ToIngest(*client.current, current_id));
  }
  turn.reply_anchor = anchor;
  turn.visible_from_seq = match ? match->first_matched_seq : 0;
  turn.visible_from_ms = turn.now;  // what this turn stores, at least
  if (match) {
    auto first = ns.store().Read([&](store::Database& db) {
      return store::MessageRepo(db).MessagesFrom(match->conversation_row, match->first_matched_seq, 1);
    });
    if (first.ok() && !first->empty()) turn.visible_from_ms = first->front().created_at;
  }
  if (match) turn.conversation_row = match->conversation_row;
  turn.record.conversation_id = turn.conversation_id;
  return TurnStorage{std::move(ingest), std::move(current_id), created};
}

Result<StoredTurn> ChatService::StoreTurn(memory::Namespace& ns, const TurnStorage& storage, const std::string& client_user,
                                          StoredTurn known) {
  if (storage.ingest.messages.empty()) return known;
  memory::Archive archive(ns);
  auto stored = archive.Store(storage.ingest);
  if (!stored.ok()) return stored.status().With("storing the turn's messages");
  known.conversation_row = stored->conversation_id;
  if (storage.created) CILIA_RETURN_IF_ERROR(memory::TagConversationUser(ns, known.conversation_row, client_user));
  if (!storage.current_id.empty()) {
    auto record = ns.store().Read([&](store::Database& db) {
      return store::MessageRepo(db).FindByCallerId(known.conversation_row, storage.current_id);
    });
    if (record.ok() && record->has_value()) known.reply_anchor = (*record)->seq;
  }
  registry_.ScheduleIndexing(ns.name(), known.conversation_row);
  return known;
}

void ChatService::BuildTurnMemory(PreparedTurn& turn, MemoryBlocks& blocks) {
  memory::Namespace& ns = *turn.ns;
  json& injected = turn.record.injected;
  const GatewayConfig& gw = config_.gateway;

  // L2: read failures leave the block empty and are logged; a turn still goes out.
  auto profile = ns.store().Read([](store::Database& db) { return store::ProfileRepo(db).List(); });
  if (profile.ok()) {
    json names = json::array();
    for (const store::ProfileDocument& doc : *profile) {
      blocks.profile.emplace_back(doc.name, doc.content);
      names.push_back(doc.name);
    }
    if (!names.empty()) injected["profile"] = std::move(names);
  } else {
    LogWarn("profile of namespace {}: {}", ns.name(), profile.status().ToString());
  }

  if (turn.call.features.compression && turn.conversation_row != 0) {
    auto summary = ns.store().Read([&](store::Database& db) { return store::SummaryRepo(db).Latest(turn.conversation_row); });
    if (summary.ok() && summary->has_value()) {
      if (auto keep_from = FindKeptFrom(turn.upstream_body, turn.upstream, (*summary)->kept_from_key)) {
        blocks.summary = (*summary)->text;
        turn.summary_text = (*summary)->text;
        injected["summary_keep_from"] = *keep_from;
        // The same message in the client's own list: where the raw part begins.
        for (size_t i = turn.client_turn.history.size(); i-- > 0;) {
          const ClientMessage& m = turn.client_turn.history[i];
          if (MessageKey(m.role, m.text) == (*summary)->kept_from_key) {
            turn.raw_from = i;
            break;
          }
        }
      }
    }
  }

  // BP2: the same text all local day, refreshed by the nightly job.
  blocks.daily_pack = memory::DailyPack(ns, turn.now);
  if (!blocks.daily_pack.empty()) injected["daily_pack"] = true;

  std::string volatile_text = fmt::format("Current time: {} ({})", ns.tz().FormatLocal(turn.now, true), ns.tz().name());
  const MenuQuery query = MenuQueryOf(turn.client_turn);
  if (turn.client_turn.current) {
    const std::vector<std::string> terms = memory::GlossaryHits(ns, turn.client_turn.current->text);
    if (!terms.empty()) {
      volatile_text += "\n\nTerms in this message:";
      for (const std::string& line : terms) volatile_text += "\n- " + line;
      injected["glossary"] = terms;
    }
  }
  auto add_sources = [&turn](const std::string& conversation, const std::vector<std::string>& ids) {
    for (const std::string& id : ids) turn.record.sources.emplace_back(conversation, id);
  };
  if (turn.call.features.recall_tool) {
    memory::MenuRequest request;
    request.user_texts = query.user_texts;
    request.previous_assistant = query.previous_assistant;
    request.now = turn.now;
    if (turn.conversation_row != 0) {
      request.conversation_row = turn.conversation_row;
      request.visible_from_seq = turn.visible_from_seq;
    }
    request.max_lines = gw.menu_lines;
    request.token_budget = gw.menu_tokens;
    auto menu = memory::BuildMenu(ns, request);
    if (menu.ok() && !menu->lines.empty()) {
      volatile_text += "\n\n" + memory::RenderMenu(*menu);
      json lines = json::array();
      for (const memory::MenuLine& line : menu->lines) {
        lines.push_back(line.text);
        add_sources(line.conversation_id, line.message_ids);
      }
      injected["menu"] = std::move(lines);
    } else if (!menu.ok()) {
      LogWarn("menu of namespace {}: {}", ns.name(), menu.status().ToString());
    }
  } else if (gw.snippets > 0 && !query.user_texts.empty()) {
    // Models without tools: the best passages themselves, a few and short.
    memory::RecallRequest request;
    request.query = query.user_texts.back();
    request.limit = gw.snippets + 3;  // room for what the client sends anyway
    request.now = turn.now;
    auto reply = memory::Recall(ns, request, /*count_access=*/false);
    if (reply.ok() && !reply->results.empty()) {
      std::vector<memory::RecallResult> kept;
      for (memory::RecallResult r : reply->results) {
        if (ClientSendsIt(turn, r) || kept.size() >= static_cast<size_t>(gw.snippets)) continue;
        if (text::CodePointCount(r.text) > static_cast<size_t>(gw.snippet_chars)) r.text = text::SubstrCodePoints(r.text, 0, gw.snippet_chars) + "…";
        add_sources(r.conversation_id, r.message_ids);
        kept.push_back(std::move(r));
      }
      if (!kept.empty()) {
        volatile_text += "\n\nPassages from earlier conversations that may be relevant:\n" +
                         RenderRecallResults(kept, static_cast<size_t>(gw.snippets * (gw.snippet_chars + 200)));
        injected["snippets"] = kept.size();
      }
    }
  }
  blocks.volatile_text = std::move(volatile_text);
}

Status ChatService::DescribeImages(PreparedTurn& turn) {
  if (!turn.client_turn.has_images) return Status::Ok();
  CILIA_ASSIGN_OR_RETURN(llm::Route vision, llm::VisionRoute(config_));
  json& messages = turn.call.body["messages"];
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
  if (!turn.recall_offered || turn.recall_rounds >= config_.gateway.recall_rounds) return false;
  bool any_recall = false, any_client = false;
  for (const llm::ToolCall& call : answer.tool_calls) (IsRecall(call) ? any_recall : any_client) = true;
  // A client tool beside it: the client must answer that one, and it never
  // saw ours, so ours is dropped; the model may ask again next turn.
  if (!any_recall || any_client) return false;
  ++turn.recall_rounds;
  json& messages = turn.upstream_body["messages"];
  RecallToolOptions options{config_.gateway.recall_results, static_cast<size_t>(config_.gateway.recall_result_chars), turn.now,
                            [&turn](const memory::RecallResult& r) { return ClientSendsIt(turn, r); }};
  json results = json::array();
  json tool_results = json::array();
  for (const llm::ToolCall& call : answer.tool_calls) {
    RecallToolOutcome outcome = RunRecallTool(*turn.ns, call.arguments, options);
    results.push_back({{"query", outcome.query}, {"results", outcome.results}, {"ok", outcome.ok}});
    turn.record.sources.insert(turn.record.sources.end(), outcome.sources.begin(), outcome.sources.end());
    if (turn.upstream == Wire::kOpenAI) {
      tool_results.push_back({{"role", "tool"}, {"tool_call_id", call.id}, {"content", outcome.text}});
    } else {
      tool_results.push_back({{"type", "tool_result"}, {"tool_use_id", call.id}, {"content", outcome.text}});
    }
  }
  turn.record.injected["recall"].push_back(std::move(results));
  if (turn.upstream == Wire::kOpenAI) {
    messages.push_back(llm::OpenAIAssistantMessage(answer));
    for (json& m : tool_results) messages.push_back(std::move(m));
  } else {
    messages.push_back({{"role", "assistant"}, {"content", llm::AnthropicAssistantContent(answer)}});
    messages.push_back({{"role", "user"}, {"content", std::move(tool_results)}});
  }
  // The last round allowed: the model must answer now.
  if (turn.recall_rounds >= config_.gateway.recall_rounds) {
    turn.upstream_body["tool_choice"] = turn.upstream == Wire::kOpenAI ? json("none") : json{{"type", "none"}};
  }
  return true;
}

ChatReply ChatService::Complete(PreparedTurn& turn) {
  llm::UpstreamClient client(*turn.route.provider);
  std::vector<llm::AssistantTurn> rounds;
  llm::Usage total;
  while (true) {
    auto response = client.Complete(turn.upstream_body, turn.call.forward_headers);
    if (!response.ok()) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(response.status());
      llm::AssistantTurn so_far;
      for (size_t i = 0; i < rounds.size(); ++i) Append(so_far, rounds[i], i == 0);
      Finish(turn, so_far, error.http_status, error.message);
      return {error.http_status, ErrorBody(error, turn.client)};
    }
    llm::AssistantTurn answer = turn.upstream == Wire::kOpenAI ? llm::TurnFromOpenAIResponse(*response)
                                                               : llm::TurnFromAnthropicResponse(*response);
    total = total + answer.usage;
    rounds.push_back(answer);
    if (turn.ns != nullptr && ContinueWithRecall(turn, answer)) continue;
    json merged = rounds.size() == 1 && !answer.CalledTool(kRecallToolName)
                      ? *response
                      : MergeRounds(*response, std::vector<llm::AssistantTurn>(rounds.begin(), rounds.end() - 1), total,
                                    turn.upstream, turn.recall_offered);
    llm::AssistantTurn all;
    for (size_t i = 0; i < rounds.size(); ++i) Append(all, rounds[i], i == 0);
    turn.record.first_byte_ms = MsSince(turn.started);
    Finish(turn, all, 200, "");
    return {200, ClientResponse(merged, turn.upstream, turn.client, turn.requested_model)};
  }
}

Status ChatService::Stream(PreparedTurn& turn, ChatSink& sink) {
  llm::UpstreamClient client(*turn.route.provider);
  auto splicer = StreamSplicer::Create(turn.client, turn.recall_offered ? std::string(kRecallToolName) : std::string(),
                                       turn.requested_model);
  llm::AssistantTurn all;
  bool wrote = false;
  auto write = [&](const std::string& bytes) {
    if (bytes.empty()) return true;
    if (!wrote) turn.record.first_byte_ms = MsSince(turn.started);
    wrote = true;
    return sink.Write(bytes);
  };
  for (int round = 0;; ++round) {
    auto reader = MakeReader(turn.upstream, turn.client, turn.requested_model, turn.client_turn.include_usage, turn.now);
    bool client_gone = false;
    net::DataCallback on_data = [&](std::string_view bytes) {
      if (!write(splicer->Feed(reader->Feed(bytes))) || sink.ClientGone()) {
        client_gone = true;
        return false;
      }
      return true;
    };
    // Upstream silence with a client gone is noticed about once a second.
    auto result = client.Stream(turn.upstream_body, on_data, turn.call.forward_headers);
    if (!result.ok() && !wrote) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(result.status());
      Finish(turn, all, error.http_status, error.message);
      return result.status();
    }
    if (client_gone || (result.ok() && result->cancelled)) {
      Finish(turn, all, 499, "the client went away");
      return Status::Ok();
    }
    if (!result.ok()) {
      const llm::UpstreamError error = llm::UpstreamErrorOf(result.status());
      write(splicer->Feed(reader->Finish(error.message)));
      Finish(turn, all, error.http_status, error.message);
      return Status::Ok();
    }
    write(splicer->Feed(reader->Finish()));
    Append(all, reader->turn(), round == 0);
    if (splicer->failed() || !reader->upstream_error().empty()) {
      Finish(turn, all, 502, reader->upstream_error().empty() ? "the upstream stream failed" : reader->upstream_error());
      return Status::Ok();
    }
    if (turn.ns != nullptr && ContinueWithRecall(turn, reader->turn())) {
      write(splicer->EndRound(/*more=*/true, all.usage));
      continue;
    }
    // Stored before the client sees the end, so that its next turn finds it.
    Finish(turn, all, 200, "");
    write(splicer->EndRound(/*more=*/false, all.usage));
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
  r.recall_rounds = turn.recall_rounds;
  if (http_status == 200 && turn.memory) {
    StoreAnswer(turn, answer.text);
    if (turn.call.features.compression) MaybeCompress(turn, answer.text);
  }
  r.injected.erase("summary_keep_from");
  // The menu and a recall often quote the same messages: each once.
  std::sort(r.sources.begin(), r.sources.end());
  r.sources.erase(std::unique(r.sources.begin(), r.sources.end()), r.sources.end());
  r.total_ms = MsSince(turn.started);
  if (turn.ns == nullptr) return;  // guide-dog keeps no records
  auto appended = turn.ns->store().Write([&r](store::Database& db) { return store::TurnRepo(db).Append(r); });
  if (!appended.ok()) LogWarn("turn record of namespace {}: {}", turn.ns->name(), appended.status().ToString());
}

void ChatService::StoreAnswer(PreparedTurn& turn, const std::string& text) {
  if (text.empty() || turn.conversation_id.empty()) return;
  const ClientMessage reply{"assistant", text, text};
  ingest::IngestConversation ingest;
  ingest.conversation_id = turn.conversation_id;
  ingest.source = "gateway";
  ingest.messages.push_back(ToIngest(reply, GatewayMessageId('a', turn.reply_anchor, reply)));
  memory::Archive archive(*turn.ns);
  auto stored = archive.Store(ingest);
  if (!stored.ok()) {
    LogWarn("storing the answer in {}/{}: {}", turn.ns->name(), turn.conversation_id, stored.status().ToString());
    return;
  }
  registry_.ScheduleIndexing(turn.ns->name(), stored->conversation_id);
}

void ChatService::MaybeCompress(PreparedTurn& turn, const std::string& answer_text) {
  if (turn.conversation_row == 0) return;
  std::vector<ClientMessage> messages = turn.client_turn.history;
  if (turn.client_turn.current) messages.push_back(*turn.client_turn.current);
  if (!answer_text.empty()) messages.push_back({"assistant", answer_text, answer_text});
  const auto plan = PlanCompression(messages, turn.raw_from, config_.gateway.compression_threshold_tokens,
                                    config_.gateway.compression_keep_tokens);
  if (!plan) return;
  const std::string key = turn.ns->name() + "/" + std::to_string(turn.conversation_row);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!summarising_.insert(key).second) return;  // one summary at a time per conversation
    ++running_;
  }
  std::thread([this, ns = turn.ns, row = turn.conversation_row, previous = turn.summary_text,
               messages = std::move(messages), raw_from = turn.raw_from, key]() mutable {
    Summarise(ns, row, std::move(previous), std::move(messages), raw_from);
    std::lock_guard<std::mutex> lock(mu_);
    summarising_.erase(key);
    if (--running_ == 0) idle_cv_.notify_all();
  }).detach();
}

void ChatService::Summarise(std::shared_ptr<memory::Namespace> ns, int64_t conversation_row, std::string previous,
                            std::vector<ClientMessage> messages, size_t raw_from) {
  const auto plan = PlanCompression(messages, raw_from, config_.gateway.compression_threshold_tokens,
                                    config_.gateway.compression_keep_tokens);
  if (!plan) return;
  const std::string& target = config_.models.extract.empty() ? config_.models.chat : config_.models.extract;
  auto route = llm::ResolveModel(config_, target);
  if (!route.ok()) {
    LogWarn("compression: no model for summaries: {}", route.status().ToString());
    return;
  }
  auto answer = llm::CompleteOpenAIShaped(*route, SummaryRequest(previous, messages, *plan, route->model));
  if (!answer.ok()) {
    LogWarn("compression of conversation {} in {}: {}", conversation_row, ns->name(), answer.status().ToString());
    return;
  }
  const llm::AssistantTurn& summary = *answer;
  if (summary.text.empty()) return;
  store::ConversationSummary record;
  record.conversation_id = conversation_row;
  record.text = summary.text;
  record.model = route->provider->name + "/" + route->model;
  record.kept_from_key = plan->kept_from_key;
  record.created_at = registry_.clock().Now();
  auto added = ns->store().Write([&](store::Database& db) -> Result<int64_t> {
    // through_seq: the stored conversation up to now, so that forgetting any
    // message it covered drops the summary too.
    CILIA_ASSIGN_OR_RETURN(auto conversation, store::MessageRepo(db).GetConversation(conversation_row));
    record.through_seq = conversation ? conversation->next_seq : 0;
    return store::SummaryRepo(db).Add(record);
  });
  if (!added.ok()) LogWarn("storing the summary of conversation {}: {}", conversation_row, added.status().ToString());
}

}  // namespace cilia::gateway
