// Sentence splitting and segment packing (DESIGN §2, §4): the first step of
// windowing the archive. All positions are code points, spans are [begin, end).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace cilia::text {

struct Span {
  size_t begin = 0;
  size_t end = 0;

  size_t size() const { return end - begin; }
  bool operator==(const Span&) const = default;
};

inline constexpr size_t kMaxSegmentCodePoints = 350;

// Sentences of `text`, in order, each trimmed of surrounding whitespace; empty
// ones are dropped. A sentence ends
//  - after a run of 。｡！？!?；…⋯‼⁇⁈⁉ (so "……", "?!" and "！！" stay whole),
//  - after a run of "." that is followed by whitespace or the end of the text
//    (so "3.14", "e.g.x" and "v1.2" do not end one),
//  - at a line break (\n, \r, \v, \f, NEL, U+2028, U+2029).
// Closing quotes and brackets (”’"'」』）)】》〉］]｝}»›…) and emoji that
// directly follow the end stay with the sentence they close: "。」", "!😂".
std::vector<Span> SplitSentences(std::u32string_view text);

// Sentences packed greedily into segments of at most max_cp code points (a
// max_cp of 0 is taken as 1). A segment runs from its first sentence's begin
// to its last sentence's end, so the text between its sentences is kept. A
// sentence longer than max_cp is cut into pieces of at most max_cp: at the last
// whitespace in the second half of the limit, else after the last clause mark
// (，、,：:;—) there, else at the limit, moved back (best effort) so that no
// combining mark, variation selector, skin-tone modifier, emoji ZWJ sequence or
// flag pair is split.
// Invariant: spans are ordered, do not overlap, are each at most max_cp long,
// and cover every non-whitespace code point of `text` exactly once.
std::vector<Span> SplitSegments(std::u32string_view text, size_t max_cp = kMaxSegmentCodePoints);

// Whether `sentence` asks, by its end mark (?, ？) or its Chinese particle
// (吗, 呢, before an optional 。.！!), trailing whitespace ignored. Recall and
// the menu put what is stated before what is asked: "我家猫叫什么？" asks
// what "叫糯米" says.
bool IsQuestion(std::u32string_view sentence);

}  // namespace cilia::text
