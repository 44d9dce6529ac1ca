// Text processing of whatever people say: the word segmenter and the index
// text must take any bytes (invalid UTF-8 included).
#include "fuzz_support.h"
#include "text/normalize.h"
#include "text/segmenter.h"
#include "text/sentences.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  const std::string_view text = fuzz::Input(data, size);
  const auto& segmenter = text::WordSegmenter::Get();
  for (const std::string& word : segmenter.Words(text)) fuzz::Require(!word.empty(), "no empty word");
  (void)text::IndexText(text);
  text::ForEachShortCjkToken(text, [](std::string_view token, bool bigram) {
    fuzz::Require(text::CodePointCount(token) == (bigram ? 2u : 1u), "a unigram or a bigram");
  });
  return 0;
}
