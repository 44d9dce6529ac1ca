// The JSON-RPC reader of /mcp (api/mcp/jsonrpc.h): never crashes on any
// body; a body it reads whole has messages, one it refuses has none; every
// message is classified with an id that is null, a string or an integer;
// and every answer built from what it read serialises.
#include "api/mcp/jsonrpc.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  using namespace cilia::api::mcp;
  const ParseLimits limits{8, 16};
  ParsedBody parsed = ParseBody(fuzz::Input(data, size), limits);
  if (parsed.error) {
    fuzz::Require(parsed.messages.empty(), "a refused body has no messages");
    fuzz::Require(parsed.error->code == kParseError || parsed.error->code == kInvalidRequest,
                  "a refused body is a parse error or an invalid request");
    (void)Dump(ErrorResponse(nullptr, *parsed.error));
    return 0;
  }
  fuzz::Require(!parsed.messages.empty(), "a read body has a message");
  fuzz::Require(parsed.messages.size() <= limits.max_batch, "a batch stays within its limit");
  fuzz::Require(parsed.batch || parsed.messages.size() == 1, "a single body is one message");
  for (const RpcMessage& m : parsed.messages) {
    fuzz::Require(m.id.is_null() || m.id.is_string() || m.id.is_number_integer(), "ids are null, strings or integers");
    if (m.kind == MessageKind::kRequest) fuzz::Require(!m.id.is_null(), "a request has an id");
    if (m.kind == MessageKind::kInvalid) {
      fuzz::Require(m.error.code == kInvalidRequest, "an invalid message is an invalid request");
      (void)Dump(ErrorResponse(m.id, m.error));
    } else {
      (void)Dump(ResultResponse(m.id, m.params));
    }
  }
  return 0;
}
