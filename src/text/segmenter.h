// Word segmentation for the full-text index (DESIGN §4): turns any chat text
// into the space-separated words that go into the FTS5 unicode61 table, and
// the query side's words, the same way. See docs/segmentation.md for why ICU's
// dictionary word breaker segments Chinese here, and what the words look like.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::text {

// Thread-safe: one instance, built on first use; each thread that segments
// gets its own clone of the ICU break iterator.
class WordSegmenter {
 public:
  static const WordSegmenter& Get();

  WordSegmenter(const WordSegmenter&) = delete;
  WordSegmenter& operator=(const WordSegmenter&) = delete;
  ~WordSegmenter();

  // The words of `text` after NormalizeForMatch (so lowercase, fullwidth folded):
  //  - runs of Han and kana (and Thai, Lao, Khmer, Myanmar) are split into
  //    dictionary words: "天府锦江半马" → 天府 锦 江 半 马, "成都" → 成都;
  //  - other runs of letters and digits are one word each: "10k", "pb", "v2",
  //    "52"; a letter run next to Han is cut there: "15公里" → 15 公里;
  //  - ASCII letter words get light stemming: plural -s/-es/-ies, and -ing/-ed
  //    where the stem is clear (running→run, liked→like, stories→story);
  //  - punctuation, symbols, emoji and whitespace separate words and are dropped.
  // Every word consists only of characters that SQLite's unicode61 tokenizer
  // keeps together (letters, digits, private use), so FTS5 splits IndexText()
  // exactly at its spaces. Stop words are kept (see IsStopWord).
  std::vector<std::string> Words(std::string_view text) const;

  // Words(text) one by one, without collecting them.
  void ForEachWord(std::string_view text, const std::function<void(std::string_view)>& on_word) const;

  // Ok when Chinese is segmented with ICU's dictionary. Otherwise the reason,
  // and Words() then makes every Han or kana character a word of its own:
  // search still works, with poorer ranking.
  const Status& status() const;

 private:
  WordSegmenter();
  struct State;
  std::unique_ptr<State> state_;
};

// Words(text) joined by single spaces: the text to put into the FTS5 table.
std::string IndexText(std::string_view text);

// For exact lookups of 1–2 character CJK terms, which the trigram index cannot
// find: every Han character of the normalised text as a unigram and every two
// adjacent Han characters as a bigram, in text order; all else is ignored.
// "去成都" → 去 去成 成 成都 都 (`bigram` true for 去成 and 成都). The views point
// into a normalised copy that lives for the call. store/cjk_tokenizer.h feeds
// them to the FTS5 table.
void ForEachShortCjkToken(std::string_view text,
                          const std::function<void(std::string_view token, bool bigram)>& on_token);

// Whether a word from Words() is a function word to leave out of queries: a
// compact built-in list of Chinese (我 你 的 了 是 在 吗 呢 什么 …) and
// English (the a and of is was i you it that what …) words, compared in the
// form Words() gives them (so "The" and "was" match).
bool IsStopWord(std::string_view word);

}  // namespace cilia::text
