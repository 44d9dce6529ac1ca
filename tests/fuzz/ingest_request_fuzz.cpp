// An ingest request body as POST /v1/ingest reads it: parse, then validate.
// Anything accepted must validate again and have text or an image per message.
#include "core/json_read.h"
#include "fuzz_support.h"
#include "ingest/ingest_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  auto body = json::ParseJsonText(fuzz::Input(data, size));
  if (!body.ok()) return 0;
  auto conversation = ingest::ParseIngestRequest(*body);
  if (!conversation.ok()) {
    fuzz::Require(conversation.status().code() == Code::kInvalidArgument, "bad input is InvalidArgument");
    return 0;
  }
  fuzz::Require(ingest::ValidateIngestConversation(*conversation).ok(), "what was parsed validates");
  for (const auto& m : conversation->messages) (void)ingest::ContentText(m.content);
  return 0;
}
