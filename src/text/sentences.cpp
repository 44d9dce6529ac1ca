#include "text/sentences.h"

#include <algorithm>

#include "text/utf8.h"

namespace cilia::text {
namespace {

constexpr std::u32string_view kTerminators = U"。｡！？!?；…⋯‼⁇⁈⁉";
constexpr std::u32string_view kClosers = U"\"')]}”’»›」』）】〕》〉〗〙〛］｝｣＂＇";
constexpr std::u32string_view kClauseMarks = U"，、,：:;—";

bool IsIn(std::u32string_view set, char32_t c) { return set.find(c) != std::u32string_view::npos; }

bool IsTerminator(char32_t c) { return IsIn(kTerminators, c); }

bool IsLineBreak(char32_t c) { return (c >= 0x0A && c <= 0x0D) || c == 0x85 || c == 0x2028 || c == 0x2029; }

// Pictographs, dingbats, ⭐-style symbols, flags and skin tones, and what joins
// or modifies them: ZWJ, variation selectors, the keycap mark, tag characters.
bool IsEmojiPart(char32_t c) {
  return (c >= 0x1F000 && c <= 0x1FAFF) || (c >= 0x2600 && c <= 0x27BF) || (c >= 0x2B00 && c <= 0x2BFF) ||
         c == 0x200D || (c >= 0xFE00 && c <= 0xFE0F) || c == 0x20E3 || (c >= 0xE0020 && c <= 0xE007F);
}

bool IsRegionalIndicator(char32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }

// Whether a cut between text[pos - 1] and text[pos] would split what a reader
// sees as one character. Best effort, without the full grapheme rules.
bool SplitsCluster(std::u32string_view text, size_t pos) {
  const char32_t after = text[pos];
  const char32_t before = text[pos - 1];
  if (before == 0x200D || after == 0x200D) return true;
  if ((after >= 0x0300 && after <= 0x036F) || (after >= 0x1AB0 && after <= 0x1AFF) ||
      (after >= 0x1DC0 && after <= 0x1DFF) || (after >= 0x20D0 && after <= 0x20FF) ||
      (after >= 0xFE20 && after <= 0xFE2F) || after == 0x3099 || after == 0x309A) {
    return true;  // combining marks
  }
  if ((after >= 0xFE00 && after <= 0xFE0F) || (after >= 0xE0100 && after <= 0xE01EF)) return true;
  if (after >= 0x1F3FB && after <= 0x1F3FF) return true;  // skin-tone modifiers
  if (after >= 0xE0020 && after <= 0xE007F) return true;  // tag sequences (subdivision flags)
  if (IsRegionalIndicator(before) && IsRegionalIndicator(after)) {
    size_t run = 0;  // flags are pairs: split only after an even number of indicators
    for (size_t i = pos; i > 0 && IsRegionalIndicator(text[i - 1]); --i) ++run;
    return run % 2 == 1;
  }
  return false;
}

// Appends [begin, end) trimmed of whitespace, unless nothing is left.
void AddTrimmed(std::u32string_view text, size_t begin, size_t end, std::vector<Span>& out) {
  while (begin < end && IsWhitespace(text[begin])) ++begin;
  while (end > begin && IsWhitespace(text[end - 1])) --end;
  if (begin < end) out.push_back({begin, end});
}

// Where to cut a piece that starts at `begin` and must end by `limit`; text[limit] exists.
// Breaks in the first half of the limit are not taken, so pieces are not tiny.
size_t ChooseCut(std::u32string_view text, size_t begin, size_t limit) {
  const size_t floor = begin + (limit - begin) / 2;
  for (size_t c = limit; c > floor; --c) {
    if (IsWhitespace(text[c])) return c;
  }
  for (size_t c = limit; c > floor; --c) {
    if (IsIn(kClauseMarks, text[c - 1]) && !SplitsCluster(text, c)) return c;
  }
  for (size_t c = limit; c > floor; --c) {
    if (!SplitsCluster(text, c)) return c;
  }
  return limit;
}

// Appends the pieces of a sentence longer than max_cp.
void CutLongSentence(std::u32string_view text, Span sentence, size_t max_cp, std::vector<Span>& out) {
  size_t begin = sentence.begin;
  while (sentence.end - begin > max_cp) {
    const size_t cut = ChooseCut(text, begin, begin + max_cp);
    AddTrimmed(text, begin, cut, out);
    begin = cut;
    while (IsWhitespace(text[begin])) ++begin;  // the sentence ends in non-whitespace
  }
  out.push_back({begin, sentence.end});
}

}  // namespace

std::vector<Span> SplitSentences(std::u32string_view text) {
  std::vector<Span> sentences;
  const size_t n = text.size();
  size_t start = 0;
  size_t i = 0;
  while (i < n) {
    const char32_t c = text[i];
    if (IsLineBreak(c)) {
      AddTrimmed(text, start, i, sentences);
      start = ++i;
      continue;
    }
    if (!IsTerminator(c) && c != U'.') {
      ++i;
      continue;
    }
    bool hard_end = false;  // a run with a real terminator ends whatever follows
    size_t j = i;
    for (; j < n && (IsTerminator(text[j]) || text[j] == U'.'); ++j) hard_end |= text[j] != U'.';
    size_t k = j;
    while (k < n && (IsIn(kClosers, text[k]) || IsEmojiPart(text[k]))) ++k;
    if (hard_end || k == n || IsWhitespace(text[k])) {
      AddTrimmed(text, start, k, sentences);
      start = k;
      i = k;
    } else {
      i = j;
    }
  }
  AddTrimmed(text, start, n, sentences);
  return sentences;
}

std::vector<Span> SplitSegments(std::u32string_view text, size_t max_cp) {
  max_cp = std::max<size_t>(max_cp, 1);
  std::vector<Span> pieces;
  for (const Span& sentence : SplitSentences(text)) {
    if (sentence.size() <= max_cp) {
      pieces.push_back(sentence);
    } else {
      CutLongSentence(text, sentence, max_cp, pieces);
    }
  }
  std::vector<Span> segments;
  for (const Span& piece : pieces) {
    if (!segments.empty() && piece.end - segments.back().begin <= max_cp) {
      segments.back().end = piece.end;
    } else {
      segments.push_back(piece);
    }
  }
  return segments;
}

bool IsQuestion(std::u32string_view sentence) {
  while (!sentence.empty() && IsWhitespace(sentence.back())) sentence.remove_suffix(1);
  if (sentence.empty()) return false;
  const char32_t last = sentence.back();
  if (last == U'?' || last == U'？') return true;
  if (last == U'。' || last == U'.' || last == U'！' || last == U'!') sentence.remove_suffix(1);
  return !sentence.empty() && (sentence.back() == U'吗' || sentence.back() == U'呢');
}

}  // namespace cilia::text
