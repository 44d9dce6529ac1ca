// Text processing of whatever people say: the word segmenter and the index
// text must take any bytes (invalid UTF-8 included).
#include "fuzz_support.h"
#include "text/normalize.h"
#include "text/segmenter.h"
#include "text/sentences.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  const std::string_view text = fuzz::Input(data, size);
  const auto& segmenter = text::WordSegmenter::Get();
  for (const std::string& word : segmenter.Words(text)) fuzz::Require(!word.empty(), "no empty word");
  (void)text::IndexText(text);
  (void)text::ShortCjkTokens(text);
  return 0;
}
