#include "gateway/responses_turn.h"

#include "llm/json_access.h"
#include "llm/responses_format.h"
#include "memory/archive/conversation_reads.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

// A conversation's stored messages as the chat messages a chain continues.
Result<json> ArchivedChain(memory::Namespace& ns, const std::string& conversation_id) {
  CILIA_ASSIGN_OR_RETURN(auto messages, memory::ConversationMessages(ns, conversation_id));
  json chain = json::array();
  for (const store::MessageRecord& m : messages) {
    // Words only: tool calls, results and system prompts have no text to send.
    if ((m.role != "user" && m.role != "assistant") || m.text.empty()) continue;
    chain.push_back({{"role", m.role}, {"content", m.text}});
  }
  return chain;
}

}  // namespace

Result<ResponsesCall> ReadResponsesCall(const json& body, ResponseStore& store, const std::string& name_space,
                                        memory::Namespace* ns, UnixMs now) {
  ResponsesCall call;
  ResponsesTurn& turn = call.turn;
  turn.request = body;
  turn.created_at = now;
  turn.keep = llm::MemberOr(body, "store", true) != false;
  json history = json::array();
  json history_items = nullptr;  // when kept as items; else converted from `history`
  if (const json* previous = llm::Member(body, "previous_response_id")) {
    if (!previous->is_string()) return Status::InvalidArgument("previous_response_id: must be a string");
    const std::string id = previous->get<std::string>();
    if (auto kept = store.Get(name_space, id)) {
      history = kept->messages;
      history_items = kept->items;
      turn.continues = kept->conversation_id;
    } else {
      turn.continues = ConversationOfResponseId(id);
      if (turn.continues.empty() || ns == nullptr) {
        return Status::NotFound("previous_response_id: no response '" + id + "' (not stored, or deleted)");
      }
      CILIA_ASSIGN_OR_RETURN(history, ArchivedChain(*ns, turn.continues));
      if (history.empty()) return Status::NotFound("previous_response_id: conversation of '" + id + "' is gone");
    }
  }
  CILIA_ASSIGN_OR_RETURN(call.chat_body, llm::ResponsesRequestToChat(body, history, &turn.chat_refusal));
  turn.upstream_body = body;
  if (llm::Member(body, "previous_response_id") != nullptr) {
    // The upstream never saw cilia's ids: the chain goes as items.
    if (!history_items.is_array()) history_items = llm::ChatRequestToResponses({{"messages", history}})["input"];
    for (const json& item : llm::InputItems(llm::MemberOr(body, "input", ""))) history_items.push_back(item);
    turn.upstream_body["input"] = std::move(history_items);
    turn.upstream_body.erase("previous_response_id");
  }
  turn.chain = json::array();
  const json& messages = call.chat_body["messages"];
  const bool instructions = llm::StringOr(body, "instructions") != "";
  for (size_t i = instructions ? 1 : 0; i < messages.size(); ++i) turn.chain.push_back(messages[i]);
  return call;
}

StoredResponse KeptResponse(const ResponsesTurn& turn, const json& response, const std::string& conversation_id) {
  StoredResponse kept{response, turn.chain, conversation_id, nullptr};
  const json& output = llm::ArrayOrEmpty(response, "output");
  for (json& m : llm::ResponseOutputToChatMessages(output)) kept.messages.push_back(std::move(m));
  if (turn.pass_through) {
    kept.items = llm::InputItems(llm::MemberOr(turn.upstream_body, "input", ""));
    for (const json& item : output) kept.items.push_back(item);
  }
  return kept;
}

}  // namespace cilia::gateway
