// UTF-8 decoding and encoding, code-point counting and slicing, and the few
// character classes the text code needs (Han, CJK, whitespace).
//
// Positions that cross module lines are code points (DESIGN §4), while stored
// text is UTF-8; these helpers convert between the two. Ill-formed input never
// crashes or throws: each maximal ill-formed subsequence decodes to one U+FFFD
// (the Unicode "best practice" for replacement), so counting, slicing and
// decoding always agree with each other.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace cilia::text {

inline constexpr char32_t kReplacementChar = U'\uFFFD';
inline constexpr char32_t kMaxCodePoint = 0x10FFFF;

// True when `s` is well-formed UTF-8: no overlong forms, no surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequence. On false,
// *bad_byte_offset (when given) is the offset of the first byte of the first
// ill-formed sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_byte_offset = nullptr);

// Decodes the code point at byte offset *pos and advances *pos past it.
// An ill-formed sequence yields U+FFFD and advances past its maximal ill-formed
// prefix (at least one byte). *pos must be < s.size().
char32_t NextCodePoint(std::string_view s, size_t* pos);

// Decodes all of `s` (ill-formed parts become U+FFFD, see above).
std::u32string DecodeUtf8(std::string_view s);

// Appends `cp` as UTF-8; surrogates and values above U+10FFFF become U+FFFD.
void AppendUtf8(std::string& out, char32_t cp);

std::string EncodeUtf8(std::u32string_view s);

// `s` with every ill-formed sequence replaced by U+FFFD; a copy when valid.
std::string ToValidUtf8(std::string_view s);

// Number of code points DecodeUtf8 would return.
size_t CodePointCount(std::string_view s);

// The UTF-8 bytes of code points [begin, begin + len) of `s`, clamped to its end.
std::string SubstrCodePoints(std::string_view s, size_t begin, size_t len);

// Han ideographs (Script=Han): CJK Unified Ideographs and all extensions
// (A, B…H), compatibility ideographs, and the ideographic iteration and
// number marks 々 〇 〡..〩 〸..〻. Radicals and punctuation are not Han.
bool IsHan(char32_t cp);

// Letters of the CJK scripts: Han, Hiragana, Katakana (including halfwidth and
// the prolonged sound mark ー), Bopomofo and Hangul. Punctuation is not
// included; see IsCjkPunctuation.
bool IsCjk(char32_t cp);

// CJK punctuation and fullwidth ASCII punctuation: 、。「」『』【】〈〉《》〔〕
// ・ ！＂＃…／ ：；＜＝＞？＠ ［＼］＾＿｀ ｛｜｝～ ｟｠｡｢｣､･, the CJK compatibility
// and vertical forms. The ideographic space U+3000 is whitespace, not punctuation.
bool IsCjkPunctuation(char32_t cp);

// Unicode White_Space (ASCII whitespace, NEL, NBSP, U+2000..U+200A, line and
// paragraph separators, U+202F, U+205F, U+3000, U+1680).
bool IsWhitespace(char32_t cp);

}  // namespace cilia::text
