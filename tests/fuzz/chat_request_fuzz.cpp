// A client's chat request as /v1/chat/completions and /v1/messages read it,
// before anything else: any body is a turn or an InvalidArgument.
#include "core/json_read.h"
#include "fuzz_support.h"
#include "gateway/chat_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  auto body = json::ParseJsonText(fuzz::Input(data, size));
  if (!body.ok()) return 0;
  for (gateway::Wire wire : {gateway::Wire::kOpenAI, gateway::Wire::kAnthropic}) {
    auto turn = gateway::ReadClientTurn(*body, wire);
    if (!turn.ok()) {
      fuzz::Require(turn.status().code() == Code::kInvalidArgument, "a bad request is InvalidArgument");
      continue;
    }
    (void)gateway::MenuQueryOf(*turn);
  }
  return 0;
}
