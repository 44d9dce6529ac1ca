// Normalisation for matching: the form in which two strings that a reader
// would call "the same" compare equal. Used for index terms, query terms,
// quote checks and lookups; stored text is never replaced by it.
#pragma once

#include <string>
#include <string_view>

namespace cilia::text {

// Unicode NFKC with full case folding and removal of default-ignorable code
// points (ICU's "nfkc_cf"): fullwidth Ａ→a, ①→1, ㎞→km, ß→ss, ﬁ→fi, halfwidth
// ｶ→カ, and zero-width joiners, variation selectors and soft hyphens vanish.
// Ill-formed UTF-8 is first replaced by U+FFFD. Thread-safe.
std::string NormalizeForMatch(std::string_view text);

}  // namespace cilia::text
