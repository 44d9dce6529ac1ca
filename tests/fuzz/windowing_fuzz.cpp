// Windowing of stored messages: messages whose texts are cut from the input
// become segments and windows; every window covers segments in order and its
// body is valid to store.
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "memory/archive/windowing.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  const std::string_view input = fuzz::Input(data, size);
  std::vector<store::MessageRecord> messages;
  size_t start = 0;
  for (size_t i = 0; i <= input.size(); ++i) {
    if (i < input.size() && input[i] != '\x1e') continue;  // record separator: next message
    store::MessageRecord m;
    m.id = m.seq = static_cast<int64_t>(messages.size());
    m.role = messages.size() % 2 ? "assistant" : "user";
    m.text = std::string(input.substr(start, i - start));
    m.created_at = 1'780'000'000'000 + m.seq;
    messages.push_back(std::move(m));
    start = i + 1;
  }
  const std::vector<memory::Segment> segments = memory::SegmentMessages(messages);
  const auto ranges = memory::PackWindows(segments);
  size_t next_first = 0;
  for (const auto& r : ranges) {
    fuzz::Require(r.first <= r.last && r.last < segments.size(), "a window's range is inside the segments");
    fuzz::Require(r.first <= next_first, "windows leave no segment out");
    next_first = r.last + 1;
    const store::WindowRecord w = memory::MakeWindow(1, segments, r);
    (void)memory::ParseSpans(w.spans);
  }
  fuzz::Require(segments.empty() || next_first == segments.size(), "the last window reaches the last segment");
  (void)memory::ParseSpans(std::string(input));
  return 0;
}
