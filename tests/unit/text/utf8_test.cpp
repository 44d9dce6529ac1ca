#include "text/utf8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace cilia::text {
namespace {

TEST(Utf8Validation, AcceptsAsciiCjkEmojiAndTheExtremes) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii that is longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("报上了！天府锦江半马"));
  EXPECT_TRUE(IsValidUtf8("👨‍👩‍👧 ok 🇨🇳"));
  EXPECT_TRUE(IsValidUtf8("\xC2\x80"));          // U+0080, smallest two-byte
  EXPECT_TRUE(IsValidUtf8("\xED\x9F\xBF"));      // U+D7FF, just below the surrogates
  EXPECT_TRUE(IsValidUtf8("\xEE\x80\x80"));      // U+E000, just above them
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
  EXPECT_TRUE(IsValidUtf8(std::string("a\0b", 3)));
}

TEST(Utf8Validation, RejectsOverlongsSurrogatesAndOutOfRange) {
  const char* bad[] = {
      "\xC0\xAF",          // overlong '/'
      "\xC1\xBF",          // overlong
      "\xE0\x80\xAF",      // overlong three-byte
      "\xE0\x9F\xBF",      // overlong U+07FF
      "\xF0\x8F\xBF\xBF",  // overlong U+FFFF
      "\xED\xA0\x80",      // U+D800 surrogate
      "\xED\xBF\xBF",      // U+DFFF surrogate
      "\xF4\x90\x80\x80",  // U+110000
      "\xF5\x80\x80\x80",  // lead byte past U+10FFFF
      "\xFF",              // never valid
      "\x80",              // lone continuation
      "\xE6\x88",          // truncated 我
  };
  for (const char* s : bad) EXPECT_FALSE(IsValidUtf8(s)) << "input bytes: " << s;
}

TEST(Utf8Validation, ReportsTheOffsetOfTheFirstBadSequence) {
  size_t offset = 999;
  EXPECT_FALSE(IsValidUtf8("0123456789成都\xED\xA0\x80tail", &offset));
  EXPECT_EQ(offset, 16u);  // ten ASCII bytes, then two three-byte characters
  EXPECT_FALSE(IsValidUtf8("\x80", &offset));
  EXPECT_EQ(offset, 0u);
  offset = 7;
  EXPECT_TRUE(IsValidUtf8("fine", &offset));
  EXPECT_EQ(offset, 7u);  // untouched on success
}

TEST(Utf8Decoding, RoundTripsEveryPlane) {
  const std::u32string text = U"a\u00E9\u6210\u90FD\U0001F600\U00020000\U0010FFFF";
  const std::string utf8 = EncodeUtf8(text);
  EXPECT_EQ(utf8, "a\xC3\xA9成都😀\xF0\xA0\x80\x80\xF4\x8F\xBF\xBF");
  EXPECT_EQ(DecodeUtf8(utf8), text);
  EXPECT_EQ(DecodeUtf8(""), U"");
}

TEST(Utf8Decoding, IllFormedSequencesBecomeOneReplacementEach) {
  // A truncated three-byte sequence is one maximal ill-formed prefix: one U+FFFD.
  EXPECT_EQ(DecodeUtf8("a\xE6\x88z"), U"a\uFFFDz");
  // A surrogate's second byte is out of range for ED: ED alone, then two stray bytes.
  EXPECT_EQ(DecodeUtf8("\xED\xA0\x80"), U"\uFFFD\uFFFD\uFFFD");
  EXPECT_EQ(DecodeUtf8("\xFF\xFE"), U"\uFFFD\uFFFD");
  EXPECT_EQ(DecodeUtf8("\xF0\x9F\x98"), U"\uFFFD");  // emoji cut short at the end
}

TEST(Utf8Decoding, NextCodePointAdvancesByTheSequenceLength) {
  const std::string s = "a成😀";
  size_t pos = 0;
  EXPECT_EQ(NextCodePoint(s, &pos), U'a');
  EXPECT_EQ(pos, 1u);
  EXPECT_EQ(NextCodePoint(s, &pos), U'成');
  EXPECT_EQ(pos, 4u);
  EXPECT_EQ(NextCodePoint(s, &pos), U'😀');
  EXPECT_EQ(pos, 8u);
}

TEST(Utf8Encoding, InvalidCodePointsBecomeReplacement) {
  std::string out;
  AppendUtf8(out, 0xD800);
  AppendUtf8(out, 0x110000);
  AppendUtf8(out, U'x');
  EXPECT_EQ(out, "\xEF\xBF\xBD\xEF\xBF\xBDx");
}

TEST(Utf8Encoding, ToValidUtf8RepairsOnlyTheBadParts) {
  EXPECT_EQ(ToValidUtf8("成都"), "成都");
  EXPECT_EQ(ToValidUtf8("成\xFF都"), "成\xEF\xBF\xBD都");
  EXPECT_TRUE(IsValidUtf8(ToValidUtf8("\xC0\xAF\xED\xA0\x80\xF4\x90")));
}

TEST(Utf8Counting, CountsCodePointsNotBytes) {
  EXPECT_EQ(CodePointCount(""), 0u);
  EXPECT_EQ(CodePointCount("abc"), 3u);
  EXPECT_EQ(CodePointCount("成都跑步"), 4u);
  EXPECT_EQ(CodePointCount("👨‍👩‍👧"), 5u);  // three people joined by two ZWJs
  EXPECT_EQ(CodePointCount("a\xFF"
                           "b"),
            3u);  // agrees with DecodeUtf8
}

TEST(Utf8Slicing, SubstrCodePointsCutsOnCharacterBoundaries) {
  const std::string s = "10k的PB是52分😎";
  EXPECT_EQ(SubstrCodePoints(s, 0, 3), "10k");
  EXPECT_EQ(SubstrCodePoints(s, 3, 1), "的");
  EXPECT_EQ(SubstrCodePoints(s, 10, 1), "😎");
  EXPECT_EQ(SubstrCodePoints(s, 9, 100), "分😎");  // clamped to the end
  EXPECT_EQ(SubstrCodePoints(s, 50, 2), "");
  EXPECT_EQ(SubstrCodePoints(s, 2, 0), "");
}

TEST(CharacterClasses, HanCoversExtensionsButNotPunctuationOrKana) {
  EXPECT_TRUE(IsHan(U'成'));
  EXPECT_TRUE(IsHan(U'\u3400'));      // Extension A
  EXPECT_TRUE(IsHan(U'\U00020000'));  // Extension B
  EXPECT_TRUE(IsHan(U'\U00030000'));  // Extension G
  EXPECT_TRUE(IsHan(U'\uF900'));      // compatibility ideograph
  EXPECT_TRUE(IsHan(U'〇'));
  EXPECT_TRUE(IsHan(U'々'));
  EXPECT_FALSE(IsHan(U'。'));
  EXPECT_FALSE(IsHan(U'，'));
  EXPECT_FALSE(IsHan(U'か'));
  EXPECT_FALSE(IsHan(U'한'));
  EXPECT_FALSE(IsHan(U'a'));
  EXPECT_FALSE(IsHan(U'\u2E80'));  // a radical is not an ideograph
}

TEST(CharacterClasses, CjkIsLettersOfChineseJapaneseKorean) {
  for (char32_t c : {U'成', U'か', U'カ', U'ー', U'ｶ', U'한', U'ㄅ'}) {
    EXPECT_TRUE(IsCjk(c)) << static_cast<uint32_t>(c);
  }
  for (char32_t c : {U'。', U'「', U'・', U'！', U'a', U'😀', U'\u3000'}) {
    EXPECT_FALSE(IsCjk(c)) << static_cast<uint32_t>(c);
  }
}

TEST(CharacterClasses, CjkPunctuationIsSeparateFromHan) {
  for (char32_t c : {U'。', U'、', U'「', U'」', U'【', U'《', U'・', U'！', U'？', U'，', U'：', U'～', U'｡', U'﹁'}) {
    EXPECT_TRUE(IsCjkPunctuation(c)) << static_cast<uint32_t>(c);
  }
  for (char32_t c : {U'成', U'〇', U'々', U'\u3000', U'!', U'a', U'Ａ'}) {
    EXPECT_FALSE(IsCjkPunctuation(c)) << static_cast<uint32_t>(c);
  }
}

TEST(CharacterClasses, WhitespaceIsUnicodeWhiteSpace) {
  for (char32_t c : {U' ', U'\t', U'\n', U'\r', U'\u00A0', U'\u2003', U'\u3000', U'\u2028'}) {
    EXPECT_TRUE(IsWhitespace(c)) << static_cast<uint32_t>(c);
  }
  for (char32_t c : {U'a', U'\u200B', U'。', U'_'}) {
    EXPECT_FALSE(IsWhitespace(c)) << static_cast<uint32_t>(c);
  }
}

}  // namespace
}  // namespace cilia::text
