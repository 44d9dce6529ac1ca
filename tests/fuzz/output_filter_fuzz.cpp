// The output filter over an upstream's stream as the client would get it:
// the same bytes fed whole and in pieces (split where the first byte says)
// give the same output, on every wire, and a text cut anywhere gives the
// text filtered whole. The first byte also picks the wire and the switches.
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "gateway/output_filter.h"

namespace {

using cilia::gateway::OutputFilterOptions;
using cilia::gateway::StreamFilter;
using cilia::gateway::Wire;

std::string Filtered(Wire wire, const OutputFilterOptions& options, std::string_view bytes, size_t piece) {
  auto filter = StreamFilter::Create(wire, options);
  std::string out;
  for (size_t at = 0; at < bytes.size(); at += piece) out += filter->Feed(bytes.substr(at, piece));
  return out + filter->Finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t control = data[0];
  const size_t piece = 1 + control % 7;
  const Wire wire = control / 7 % 3 == 0 ? Wire::kOpenAI : control / 7 % 3 == 1 ? Wire::kAnthropic : Wire::kResponses;
  OutputFilterOptions options;
  options.strip_reasoning = (control & 0x80) == 0;
  if ((control & 0x40) == 0) options.rewrite = {{"ab", "b"}, {"b", "a"}, {"<th", "T"}, {"\xe6\x80\x9d", ""}};
  const std::string_view input = cilia::fuzz::Input(data + 1, size - 1);
  cilia::fuzz::Require(Filtered(wire, options, input, input.size() + 1) == Filtered(wire, options, input, piece),
                       "pieces do not change what the client gets");
  const auto shared = std::make_shared<const OutputFilterOptions>(options);
  cilia::gateway::TextFilter text(shared);
  std::string out;
  for (size_t at = 0; at < input.size(); at += piece) out += text.Feed(input.substr(at, piece));
  out += text.Finish();
  cilia::fuzz::Require(out == cilia::gateway::FilterText(shared, input), "cuts do not change the filtered text");
  return 0;
}
