// The recall rounds of one turn (docs/gateway.md, "The recall tool"): when
// the model calls cilia's own `recall`, cilia runs it, appends the call and
// its results to the upstream body and calls the upstream again, up to
// gateway.recall_rounds times; the client sees one answer.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "gateway/prompt_assembler.h"
#include "gateway/recall_tool.h"
#include "gateway/turn_identity.h"
#include "llm/chat_format.h"
#include "memory/namespace.h"
#include "store/turn_repo.h"

namespace cilia::gateway {

// The upstream side of a turn: the body sent, and how many rounds ran.
struct UpstreamRounds {
  nlohmann::json body;  // in the upstream's format; grows by a round's call and results
  Wire wire = Wire::kOpenAI;
  bool recall_offered = false;  // the recall tool is in the body, and its calls are cilia's
  int recall_rounds = 0;        // rounds cilia ran
  int max_rounds = 3;           // gateway.recall_rounds
};

struct RecallRun {
  memory::Namespace& ns;
  const TurnIdentity& identity;  // what the client sends is left out of results
  RecallToolOptions options;     // already_seen is set from identity
};

// Runs the recall calls of `answer` and appends them and their results to
// `rounds.body` (for Responses, the round's output items as the upstream
// sent them, then the function_call_output items); false when the turn is over (no recall call, a client tool
// call beside it, the round limit). The last round allowed sets tool_choice
// to none, so that the model answers. Notes queries and sources in `record`.
bool ContinueWithRecall(UpstreamRounds& rounds, RecallRun run, const llm::AssistantTurn& answer,
                        store::TurnRecord& record);

llm::Usage operator+(const llm::Usage& a, const llm::Usage& b);

// What the client shows as the answer: every round's text and thinking in
// order, the last round's tool calls and finish, usage summed.
llm::AssistantTurn JoinRounds(const std::vector<llm::AssistantTurn>& rounds);

// The final upstream response of a multi-round turn, made to read as one
// answer: earlier rounds' text and thinking first (for Responses, their
// output items), cilia's own tool calls gone (hide_recall), usage `total`.
// Stays in the upstream's format.
nlohmann::json MergeRounds(nlohmann::json last, const std::vector<llm::AssistantTurn>& earlier, const llm::Usage& total,
                           Wire upstream, bool hide_recall);

}  // namespace cilia::gateway
