// A Responses API turn (POST /v1/responses, docs/gateway.md "The Responses
// API"). Its body is always read in the Chat Completions shape
// (llm/responses_format.h), for the memory: which conversation, what the user
// said. On an upstream that speaks Responses the client's own body goes up,
// previous_response_id resolved to the items it continues and cilia's memory
// added; on any other it runs the gateway's Chat Completions path, converted
// on the way in and the answer converted back on the way out.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "core/time.h"
#include "gateway/response_store.h"
#include "llm/chat_format.h"
#include "memory/namespace.h"

namespace cilia::gateway {

struct ResponsesTurn {
  nlohmann::json request;     // the client's body: the response repeats its fields
  nlohmann::json chain;       // chat messages continued and added, without the instructions
  std::string continues;      // the conversation previous_response_id names, "" when none
  bool keep = true;           // store != false: kept for GET and chaining
  std::string response_id;    // set once the conversation is known
  UnixMs created_at = 0;
  // The client's body with the items it continues in front of its input and
  // no previous_response_id: what goes to an upstream that speaks Responses.
  nlohmann::json upstream_body;
  // What the Chat Completions shape left out that only an upstream speaking
  // Responses takes (built-in tools, ...): the error for any other upstream.
  Status chat_refusal;
  bool pass_through = false;  // the upstream speaks Responses: upstream_body goes, with the memory
};

struct ResponsesCall {
  nlohmann::json chat_body;  // the request in the Chat Completions shape
  ResponsesTurn turn;
};

// previous_response_id resolves in `store`, else through the archive of `ns`
// (null: no memory) by the conversation its id names; NotFound naming the
// field when neither knows it. InvalidArgument naming the field for a body
// the conversion refuses.
Result<ResponsesCall> ReadResponsesCall(const nlohmann::json& body, ResponseStore& store, const std::string& name_space,
                                        memory::Namespace* ns, UnixMs now);

// The chain a follow-up of this response continues: this turn's messages
// and the response's output as chat messages (and, passed through, as items).
StoredResponse KeptResponse(const ResponsesTurn& turn, const nlohmann::json& response, const std::string& conversation_id);

}  // namespace cilia::gateway
