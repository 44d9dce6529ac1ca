// What one chat turn carries from Prepare to its end, in parts that say who
// fills them: the request as read (fixed after Prepare), where the turn
// lives in the archive, the summary in use, the upstream rounds, what a
// Responses turn converts back, and the record written to the turn log.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "core/time.h"
#include "gateway/chat_request.h"
#include "gateway/chat_service.h"
#include "gateway/memory_blocks.h"
#include "gateway/recall_rounds.h"
#include "gateway/responses_turn.h"
#include "gateway/turn_identity.h"
#include "llm/routing.h"
#include "memory/namespace.h"
#include "store/turn_repo.h"

namespace cilia::gateway {

// The client's request as read, and where it goes.
struct TurnRequest {
  ChatCall call;
  Wire client = Wire::kOpenAI;
  ClientTurn client_turn;
  std::string requested_model;  // the name the client asked for, shown back to it
  llm::Route route;
  UnixMs now = 0;  // the turn's present (the namespace clock)
  std::chrono::steady_clock::time_point started;
};

class PreparedTurn {
 public:
  TurnRequest request;
  std::shared_ptr<memory::Namespace> ns;  // the caller's namespace; null for guide-dog (no records)
  bool memory = false;                    // memory read and written this turn
  std::string memory_unavailable;         // why not, though asked for: the store failed ("" otherwise)
  TurnIdentity identity;                  // set when `memory`
  std::optional<SummaryInUse> summary;    // the summary sent as BP3
  UpstreamRounds upstream;
  std::optional<ResponsesTurn> responses;  // POST /v1/responses: converted at both ends
  store::TurnRecord record;
};

}  // namespace cilia::gateway
