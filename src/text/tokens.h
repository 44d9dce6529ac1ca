// A cheap estimate of how many LLM tokens a text costs, for budgets (menu
// lines, recall answers, prompt assembly). It is not any model's tokenizer.
#pragma once

#include <string_view>

namespace cilia::text {

// One token per CJK letter (Han, kana, Hangul: see IsCjk), plus one per four
// UTF-8 bytes of everything else, whitespace included, rounded up.
//
// Why these constants: BPE tokenizers of current models (cl100k, o200k,
// Claude's) spend about 0.7–1.5 tokens on a Han or kana character, so 1 is the
// middle; English runs at about 4 characters a token, which is the usual rule
// of thumb. Counting the rest in bytes rather than characters makes other
// non-ASCII text (Cyrillic ~2 bytes, emoji 4 bytes a character) cost more, as it
// does in real tokenizers. Empty text is 0; the result saturates at INT_MAX.
int EstimateTokens(std::string_view text);

}  // namespace cilia::text
