// The SSE reader of upstream streams: the same bytes fed whole and in pieces
// (split where the first byte says) give the same events.
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "net/sse.h"

namespace {

std::vector<std::string> Events(std::string_view bytes, size_t piece) {
  cilia::net::SseParser parser;
  std::vector<std::string> out;
  auto keep = [&](const cilia::net::SseEvent& e) { out.push_back(e.event + '\0' + e.data + '\0' + e.id); };
  for (size_t at = 0; at < bytes.size(); at += piece) parser.Feed(bytes.substr(at, piece), keep);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 7;
  const std::string_view stream = cilia::fuzz::Input(data + 1, size - 1);
  cilia::fuzz::Require(Events(stream, stream.size() + 1) == Events(stream, piece), "pieces do not change the events");
  return 0;
}
