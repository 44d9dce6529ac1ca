#include "text/utf8.h"

#include <cstdint>
#include <cstring>

namespace cilia::text {
namespace {

bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// Decodes one sequence starting at s[pos]. Returns the number of bytes of the
// sequence when it is well-formed (and sets *cp), or the negated length of its
// maximal ill-formed prefix. The second byte's allowed range depends on the
// lead byte (Unicode Table 3-7): this is what rules out overlongs, surrogates
// and values above U+10FFFF.
int DecodeSequence(std::string_view s, size_t pos, char32_t* cp) {
  const auto lead = static_cast<unsigned char>(s[pos]);
  if (lead < 0x80) {
    *cp = lead;
    return 1;
  }
  int length;
  char32_t value;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    value = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    value = lead & 0x0F;
    if (lead == 0xE0) second_min = 0xA0;  // overlong
    if (lead == 0xED) second_max = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    value = lead & 0x07;
    if (lead == 0xF0) second_min = 0x90;  // overlong
    if (lead == 0xF4) second_max = 0x8F;  // above U+10FFFF
  } else {
    return -1;  // a continuation byte, C0/C1 (always overlong) or F5..FF
  }
  for (int i = 1; i < length; ++i) {
    if (pos + i >= s.size()) return -i;
    const auto b = static_cast<unsigned char>(s[pos + i]);
    const bool in_range = i == 1 ? (b >= second_min && b <= second_max) : IsContinuation(b);
    if (!in_range) return -i;
    value = (value << 6) | (b & 0x3F);
  }
  *cp = value;
  return length;
}

}  // namespace

bool IsValidUtf8(std::string_view s, size_t* bad_byte_offset) {
  size_t pos = 0;
  while (pos < s.size()) {
    // ASCII dominates chat text; skip it eight bytes at a time.
    while (pos + 8 <= s.size()) {
      uint64_t chunk;
      std::memcpy(&chunk, s.data() + pos, sizeof chunk);
      if (chunk & 0x8080808080808080ULL) break;
      pos += 8;
    }
    if (pos >= s.size()) break;
    char32_t cp;
    const int n = DecodeSequence(s, pos, &cp);
    if (n < 0) {
      if (bad_byte_offset != nullptr) *bad_byte_offset = pos;
      return false;
    }
    pos += n;
  }
  return true;
}

char32_t NextCodePoint(std::string_view s, size_t* pos) {
  char32_t cp;
  const int n = DecodeSequence(s, *pos, &cp);
  if (n < 0) {
    *pos += -n;
    return kReplacementChar;
  }
  *pos += n;
  return cp;
}

std::u32string DecodeUtf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t pos = 0; pos < s.size();) out.push_back(NextCodePoint(s, &pos));
  return out;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacementChar;
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string EncodeUtf8(std::u32string_view s) {
  std::string out;
  out.reserve(s.size() * 3);
  for (char32_t cp : s) AppendUtf8(out, cp);
  return out;
}

std::string ToValidUtf8(std::string_view s) {
  size_t bad = 0;
  if (IsValidUtf8(s, &bad)) return std::string(s);
  std::string out(s.substr(0, bad));
  out.reserve(s.size() + 8);
  for (size_t pos = bad; pos < s.size();) AppendUtf8(out, NextCodePoint(s, &pos));
  return out;
}

size_t CodePointCount(std::string_view s) {
  size_t count = 0;
  for (size_t pos = 0; pos < s.size(); ++count) NextCodePoint(s, &pos);
  return count;
}

std::string SubstrCodePoints(std::string_view s, size_t begin, size_t len) {
  size_t pos = 0;
  for (size_t i = 0; i < begin && pos < s.size(); ++i) NextCodePoint(s, &pos);
  const size_t start = pos;
  for (size_t i = 0; i < len && pos < s.size(); ++i) NextCodePoint(s, &pos);
  return std::string(s.substr(start, pos - start));
}

bool IsHan(char32_t cp) {
  if (cp < 0x3005) return false;
  if (cp <= 0x303B) {
    return cp == 0x3005 || cp == 0x3007 || (cp >= 0x3021 && cp <= 0x3029) || (cp >= 0x3038 && cp <= 0x303B);
  }
  return (cp >= 0x3400 && cp <= 0x4DBF) ||    // Extension A
         (cp >= 0x4E00 && cp <= 0x9FFF) ||    // CJK Unified Ideographs
         (cp >= 0xF900 && cp <= 0xFAFF) ||    // Compatibility Ideographs
         (cp >= 0x20000 && cp <= 0x2FA1F) ||  // Extensions B..F, I, Compatibility Supplement
         (cp >= 0x30000 && cp <= 0x323AF);    // Extensions G, H
}

bool IsCjk(char32_t cp) {
  if (IsHan(cp)) return true;
  return (cp >= 0x3040 && cp <= 0x309F) ||                  // Hiragana
         (cp >= 0x30A0 && cp <= 0x30FF && cp != 0x30FB) ||  // Katakana, less the middle dot
         (cp >= 0x31F0 && cp <= 0x31FF) ||                  // Katakana Phonetic Extensions
         (cp >= 0xFF66 && cp <= 0xFF9F) ||                  // halfwidth Katakana
         (cp >= 0x1B000 && cp <= 0x1B16F) ||                // Kana Supplement, Extended, Small Kana
         (cp >= 0x3100 && cp <= 0x312F) ||                  // Bopomofo
         (cp >= 0x31A0 && cp <= 0x31BF) ||                  // Bopomofo Extended
         (cp >= 0x1100 && cp <= 0x11FF) ||                  // Hangul Jamo
         (cp >= 0x3130 && cp <= 0x318F) ||                  // Hangul Compatibility Jamo
         (cp >= 0xA960 && cp <= 0xA97F) ||                  // Hangul Jamo Extended-A
         (cp >= 0xAC00 && cp <= 0xD7A3) ||                  // Hangul Syllables
         (cp >= 0xD7B0 && cp <= 0xD7FF) ||                  // Hangul Jamo Extended-B
         (cp >= 0xFFA0 && cp <= 0xFFDC);                    // halfwidth Hangul
}

bool IsCjkPunctuation(char32_t cp) {
  if (cp >= 0x3001 && cp <= 0x303F) return !IsHan(cp);  // CJK Symbols and Punctuation
  return cp == 0x30FB ||                                // katakana middle dot
         (cp >= 0xFE10 && cp <= 0xFE1F) ||              // vertical forms
         (cp >= 0xFE30 && cp <= 0xFE4F) ||              // CJK compatibility forms
         (cp >= 0xFF01 && cp <= 0xFF0F) ||              // fullwidth ！..／
         (cp >= 0xFF1A && cp <= 0xFF20) ||              // fullwidth ：..＠
         (cp >= 0xFF3B && cp <= 0xFF40) ||              // fullwidth ［..｀
         (cp >= 0xFF5B && cp <= 0xFF65);                // fullwidth ｛..～, ｟｠, halfwidth ｡｢｣､･
}

bool IsWhitespace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

}  // namespace cilia::text
