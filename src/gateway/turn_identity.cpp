#include "gateway/turn_identity.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "core/codec.h"
#include "gateway/prompt_assembler.h"
#include "ingest/context_parts.h"
#include "memory/archive/archive.h"
#include "memory/archive/conversation_match.h"
#include "memory/archive/conversation_reads.h"
#include "text/harness.h"
#include "text/utf8.h"

namespace cilia::gateway {
namespace {

std::string NewConversationId(UnixMs now, const TimeZone& tz, std::string_view seed) {
  return fmt::format("chat-{}-{}", tz.LocalDate(now).ToString(), Hex64(Fnv1a64(fmt::format("{}:{}", now, seed))).substr(0, 8));
}

// The first user words of the conversation, harness text left out (a Codex
// session opens with a user message that is only its <environment_context>).
std::string Title(const ClientTurn& turn) {
  for (const ClientMessage& m : turn.history) {
    if (m.role != "user") continue;
    const std::string own = text::OwnWords(m.text);
    if (!own.empty()) return text::SubstrCodePoints(own, 0, 60);
  }
  return turn.current ? text::SubstrCodePoints(text::OwnWords(turn.current->text), 0, 60) : "";
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

// The stored conversation the history continues, if the evidence holds.
Result<std::optional<memory::ConversationMatch>> MatchHistory(memory::Namespace& ns, const ClientTurn& client,
                                                              std::string_view header) {
  if (client.history.empty()) return std::optional<memory::ConversationMatch>();
  std::vector<memory::ChatHistoryMessage> history;
  history.reserve(client.history.size());
  for (const ClientMessage& m : client.history) history.push_back({m.role, m.text, ingest::ContextKey(m.content)});
  CILIA_ASSIGN_OR_RETURN(std::optional<memory::ConversationMatch> match,
                         memory::FindContinuedConversation(ns, client.client_user, history));
  if (!header.empty() && match && match->conversation_id != header) match.reset();
  // One message in common ("hi") is no evidence of the same conversation,
  // unless it is that conversation's newest message (a client retrying).
  if (match && match->matched < 2) {
    CILIA_ASSIGN_OR_RETURN(auto conversation, memory::ConversationByRow(ns, match->conversation_row));
    if (!conversation || conversation->next_seq - 1 != match->last_matched_seq) match.reset();
  }
  return match;
}

// Whether `stored` (a system message's content JSON) holds the same system
// prompt as `parts`, per-turn clock lines aside: clients rewrite those every
// turn, and a prompt stored per turn would be noise.
bool SameSystemPrompt(const std::string& stored, const nlohmann::json& parts) {
  const nlohmann::json kept = nlohmann::json::parse(stored, nullptr, false);
  if (!kept.is_array() || kept.size() != parts.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (kept[i].value("type", "") != ingest::kSystemPromptPart) return false;
    if (WithoutPerTurnLines(kept[i].value("text", "")) != WithoutPerTurnLines(parts[i].value("text", ""))) return false;
  }
  return true;
}

// The id to store the client's system prompt under when it is new to the
// conversation (row 0: a new one) or differs from the one stored last;
// nullopt otherwise. The id names the seq of the prompt it follows, so that
// a prompt changed back to an earlier one is stored again.
Result<std::optional<std::string>> ChangedSystemPromptId(memory::Namespace& ns, int64_t conversation_row,
                                                         const ClientMessage& prompt) {
  if (prompt.content.is_null()) return std::optional<std::string>();
  int64_t follows = -1;
  if (conversation_row != 0) {
    CILIA_ASSIGN_OR_RETURN(auto last, memory::LastSystemMessage(ns, conversation_row));
    if (last && SameSystemPrompt(last->content, prompt.content)) return std::optional<std::string>();
    if (last) follows = last->seq;
  }
  return std::optional<std::string>(GatewayMessageId('s', follows, prompt));
}

Result<FoundConversation> FindIn(memory::Namespace& ns, const ClientTurn& client, std::string_view header, UnixMs now) {
  CILIA_ASSIGN_OR_RETURN(std::optional<memory::ConversationMatch> match, MatchHistory(ns, client, header));
  FoundConversation found;
  TurnIdentity& id = found.identity;
  id.conversation_id = !header.empty() ? std::string(header)
                       : match         ? match->conversation_id
                                       : NewConversationId(now, ns.tz(), client.client_user + Title(client));

  // What the archive has not seen: history messages missing from it (all of
  // them for a new conversation), then the new user message.
  ingest::IngestConversation& ingest = found.storage.ingest;
  ingest.conversation_id = id.conversation_id;
  ingest.title = Title(client);
  ingest.source = "gateway";
  int64_t anchor = match ? match->last_matched_seq : -1;
  std::vector<size_t> missing;
  if (match) {
    // Unmatched messages before the last matched one were edited by the
    // client, or forgotten here: storing them would bring forgotten words back.
    for (size_t i : match->unmatched) {
      if (static_cast<int>(i) > match->last_matched_index) missing.push_back(i);
    }
  } else {
    std::optional<store::ConversationRecord> named;
    if (!header.empty()) {
      CILIA_ASSIGN_OR_RETURN(named, memory::FindConversation(ns, header));
    }
    if (named) {
      id.conversation_row = named->id;
      // Anchored at its newest message: a retry may then be stored twice,
      // but a repeated "ok" is never taken for a retry and lost.
      // (With no history at all the message opens the conversation: -1.)
      if (!client.history.empty()) anchor = named->next_seq - 1;
    } else {
      // A conversation named by the header that the history does not match
      // keeps what it has: only the new message is added.
      for (size_t i = 0; i < client.history.size(); ++i) missing.push_back(i);
    }
    found.storage.created = !named;
  }
  const ClientMessage prompt{"system", "", client.system_prompt};
  CILIA_ASSIGN_OR_RETURN(const std::optional<std::string> prompt_id,
                         ChangedSystemPromptId(ns, match ? match->conversation_row : id.conversation_row, prompt));
  if (prompt_id) ingest.messages.push_back(ToIngest(prompt, *prompt_id));
  for (size_t i : missing) {
    found.storage.anchor_id = GatewayMessageId('h', static_cast<int64_t>(i), client.history[i]);
    ingest.messages.push_back(ToIngest(client.history[i], found.storage.anchor_id));
  }
  if (client.current) {
    found.storage.anchor_id = GatewayMessageId('u', anchor, *client.current);
    ingest.messages.push_back(ToIngest(*client.current, found.storage.anchor_id));
  }
  id.reply_anchor = anchor;
  id.visible_from_seq = match ? match->first_matched_seq : 0;
  id.visible_from_ms = now;  // what this turn stores, at least
  if (match) {
    id.conversation_row = match->conversation_row;
    CILIA_ASSIGN_OR_RETURN(auto first, memory::FirstMessageFrom(ns, match->conversation_row, match->first_matched_seq));
    if (first) id.visible_from_ms = first->created_at;
  }
  return found;
}

}  // namespace

Result<FoundConversation> FindTurnConversation(memory::Namespace& ns, const ClientTurn& client, std::string_view header,
                                               UnixMs now) {
  auto found = FindIn(ns, client, header, now);
  if (found.ok()) return found;
  // Whatever the database said, the turn cannot know its conversation, and
  // guessing "new" would start a second copy of it: the client retries.
  return Status::Busy("finding the conversation: " + found.status().message());
}

Result<TurnIdentity> StoreTurn(memory::Namespace& ns, const TurnStorage& storage, std::string_view client_user,
                               TurnIdentity known) {
  if (storage.ingest.messages.empty()) return known;
  memory::Archive archive(ns);
  auto stored = archive.Store(storage.ingest);
  if (!stored.ok()) return stored.status().With("storing the turn's messages");
  known.conversation_row = stored->conversation_row;
  if (storage.created) CILIA_RETURN_IF_ERROR(memory::TagConversationUser(ns, known.conversation_row, client_user));
  if (!storage.anchor_id.empty()) {
    CILIA_ASSIGN_OR_RETURN(auto last, memory::MessageByCallerId(ns, known.conversation_row, storage.anchor_id));
    if (last) known.reply_anchor = last->seq;
  }
  return known;
}

ingest::IngestConversation AnswerStorage(const TurnIdentity& identity, const llm::AssistantTurn& answer,
                                         std::string_view own_tool) {
  std::vector<nlohmann::json> parts;
  for (const llm::ToolCall& call : answer.tool_calls) {
    if (call.name != own_tool) parts.push_back(ingest::ToolCallPart(call.id, call.name, call.arguments));
  }
  ingest::IngestConversation ingest;
  ingest.conversation_id = identity.conversation_id;
  ingest.source = "gateway";
  if (answer.text.empty() && parts.empty()) return ingest;
  // A plain answer stays a string, as it was stored before tool calls were kept.
  if (!parts.empty() && !answer.text.empty()) parts.insert(parts.begin(), ingest::TextPart(answer.text));
  const ClientMessage reply{"assistant", answer.text,
                            parts.empty() ? nlohmann::json(answer.text) : nlohmann::json(parts)};
  ingest.messages.push_back(ToIngest(reply, GatewayMessageId('a', identity.reply_anchor, reply)));
  return ingest;
}

}  // namespace cilia::gateway
