// The strict JSON reader of outside bytes (core/json_read.h): never crashes,
// and what it accepts serialises and parses back to the same document.
#include "core/json_read.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  auto parsed = json::ParseJsonText(fuzz::Input(data, size));
  if (!parsed.ok()) {
    fuzz::Require(parsed.status().code() == Code::kInvalidArgument, "a bad document is InvalidArgument");
    return 0;
  }
  const std::string again = parsed->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  auto reparsed = json::ParseJsonText(again);
  fuzz::Require(reparsed.ok(), "what was accepted reads back");
  if (parsed->is_object()) {
    (void)json::OptionalString(*parsed, "a", "");
    (void)json::OptionalNumber(*parsed, "n", "");
    (void)json::OptionalArray(*parsed, "messages", "");
    (void)json::OptionalBool(*parsed, "stream", "", false);
  }
  return 0;
}
