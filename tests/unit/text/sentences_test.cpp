#include "text/sentences.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/utf8.h"

namespace cilia::text {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The text of each span, as UTF-8, for readable expectations.
std::vector<std::string> Texts(const std::u32string& text, const std::vector<Span>& spans) {
  std::vector<std::string> out;
  for (const Span& s : spans) out.push_back(EncodeUtf8(std::u32string_view(text).substr(s.begin, s.size())));
  return out;
}

std::vector<std::string> Sentences(const std::string& utf8) {
  const std::u32string text = DecodeUtf8(utf8);
  return Texts(text, SplitSentences(text));
}

std::vector<std::string> Segments(const std::string& utf8, size_t max_cp) {
  const std::u32string text = DecodeUtf8(utf8);
  return Texts(text, SplitSegments(text, max_cp));
}

// The SplitSegments contract: ordered, disjoint, short enough, trimmed, and
// every non-whitespace code point in exactly one span.
void ExpectSegmentInvariants(const std::u32string& text, size_t max_cp) {
  const std::vector<Span> spans = SplitSegments(text, max_cp);
  std::vector<int> covered(text.size(), 0);
  size_t previous_end = 0;
  for (const Span& s : spans) {
    ASSERT_LT(s.begin, s.end);
    ASSERT_LE(s.end, text.size());
    EXPECT_LE(s.size(), max_cp);
    EXPECT_GE(s.begin, previous_end);
    EXPECT_FALSE(IsWhitespace(text[s.begin]));
    EXPECT_FALSE(IsWhitespace(text[s.end - 1]));
    for (size_t i = s.begin; i < s.end; ++i) ++covered[i];
    previous_end = s.end;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsWhitespace(text[i])) continue;  // between sentences of a segment, or outside all
    ASSERT_EQ(covered[i], 1) << "code point " << i;
  }
}

TEST(SplitSentences, EndsAfterChineseAndLatinTerminators) {
  EXPECT_THAT(Sentences("报上了！名额五分钟就没了。还好我手快？"),
              ElementsAre("报上了！", "名额五分钟就没了。", "还好我手快？"));
  EXPECT_THAT(Sentences("Done! Really? Yes；好"), ElementsAre("Done!", "Really?", "Yes；", "好"));
}

TEST(SplitSentences, KeepsRunsOfTerminatorsTogether) {
  EXPECT_THAT(Sentences("报上了！！6月14号"), ElementsAre("报上了！！", "6月14号"));
  EXPECT_THAT(Sentences("真的吗?!不信"), ElementsAre("真的吗?!", "不信"));
  EXPECT_THAT(Sentences("嗯……好吧"), ElementsAre("嗯……", "好吧"));
  EXPECT_THAT(Sentences("Wait... what?"), ElementsAre("Wait...", "what?"));
}

TEST(SplitSentences, ClosingQuotesBracketsAndEmojiStayWithTheirSentence) {
  EXPECT_THAT(Sentences("他说：“我报上了。”然后走了"), ElementsAre("他说：“我报上了。”", "然后走了"));
  EXPECT_THAT(Sentences("「好的。」『再见！』"), ElementsAre("「好的。」", "『再见！』"));
  EXPECT_THAT(Sentences("He said \"ok.\" Then left."), ElementsAre("He said \"ok.\"", "Then left."));
  EXPECT_THAT(Sentences("恭喜！🎉明天见"), ElementsAre("恭喜！🎉", "明天见"));
}

TEST(SplitSentences, DotEndsOnlyBeforeWhitespaceOrTheEnd) {
  EXPECT_THAT(Sentences("Pi is 3.14 today. Next"), ElementsAre("Pi is 3.14 today.", "Next"));
  EXPECT_THAT(Sentences("see e.g.x and v1.2.3"), ElementsAre("see e.g.x and v1.2.3"));
  EXPECT_THAT(Sentences("PayNotifyHandler.java is old."), ElementsAre("PayNotifyHandler.java is old."));
  EXPECT_THAT(Sentences("End."), ElementsAre("End."));
}

TEST(SplitSentences, EndsAtLineBreaks) {
  EXPECT_THAT(Sentences("第一行\n第二行\r\n\n  第三行  "), ElementsAre("第一行", "第二行", "第三行"));
  EXPECT_THAT(Sentences("a\u2028b"), ElementsAre("a", "b"));
}

TEST(SplitSentences, TrimsAndDropsEmptySentences) {
  EXPECT_THAT(Sentences(""), IsEmpty());
  EXPECT_THAT(Sentences(" \t\n\u3000 "), IsEmpty());
  EXPECT_THAT(Sentences("  好。  。 行 "), ElementsAre("好。", "。", "行"));
}

TEST(SplitSentences, SpansPointAtTheTrimmedText) {
  const std::u32string text = U"  你好。 世界  ";
  EXPECT_THAT(SplitSentences(text), ElementsAre(Span{2, 5}, Span{6, 8}));
}

TEST(SplitSegments, PacksSentencesGreedilyKeepingTheTextBetween) {
  EXPECT_THAT(Segments("一二。三四。五六。", 6), ElementsAre("一二。三四。", "五六。"));
  EXPECT_THAT(Segments("One. Two. Three.", 9), ElementsAre("One. Two.", "Three."));
  EXPECT_THAT(Segments("短。\n\n 也短。", 350), ElementsAre("短。\n\n 也短。"));
}

TEST(SplitSegments, EmptyAndWhitespaceOnlyGiveNoSegments) {
  EXPECT_THAT(SplitSegments(U""), IsEmpty());
  EXPECT_THAT(SplitSegments(U"   \n\t \u3000"), IsEmpty());
}

TEST(SplitSegments, CutsALongSentenceAtTheLastWhitespaceInside) {
  EXPECT_THAT(Segments("aaaa bbbb cccc dddd", 10), ElementsAre("aaaa bbbb", "cccc dddd"));
}

TEST(SplitSegments, CutsChineseWithoutSpacesAfterAClauseMark) {
  EXPECT_THAT(Segments("一二三四五六，七八九十一二三四", 10), ElementsAre("一二三四五六，", "七八九十一二三四"));
}

TEST(SplitSegments, CutsExactlyAtTheLimitWhenNothingElseFits) {
  const std::string run(25, 'x');
  EXPECT_THAT(Segments(run, 10), ElementsAre(std::string(10, 'x'), std::string(10, 'x'), std::string(5, 'x')));
}

TEST(SplitSegments, DoesNotSplitAnEmojiZwjSequence) {
  // "abcdefg" then a family emoji (man ZWJ woman ZWJ girl); a cut at 9 would split it.
  const std::u32string text = U"abcdefg\U0001F468\u200D\U0001F469\u200D\U0001F467xyz";
  const std::vector<Span> spans = SplitSegments(text, 9);
  ASSERT_FALSE(spans.empty());
  EXPECT_EQ(spans[0], (Span{0, 7}));
  ExpectSegmentInvariants(text, 9);
}

TEST(SplitSegments, DoesNotSplitAFlagOrASkinTone) {
  const std::u32string flags = U"ab\U0001F1E8\U0001F1F3\U0001F1EF\U0001F1F5";  // ab🇨🇳🇯🇵
  EXPECT_THAT(SplitSegments(flags, 5), ElementsAre(Span{0, 4}, Span{4, 6}));
  const std::u32string thumbs = U"abc\U0001F44D\U0001F3FDd";  // abc👍🏽d
  EXPECT_THAT(SplitSegments(thumbs, 4), ElementsAre(Span{0, 3}, Span{3, 6}));
}

TEST(SplitSegments, TenThousandCharacterSentenceBecomesFullPieces) {
  std::u32string text;
  for (int i = 0; i < 10000; ++i) text.push_back(U'跑');
  const std::vector<Span> spans = SplitSegments(text);
  ASSERT_EQ(spans.size(), 29u);  // 28 × 350 + 200
  EXPECT_EQ(spans.front(), (Span{0, 350}));
  EXPECT_EQ(spans.back(), (Span{9800, 10000}));
  ExpectSegmentInvariants(text, kMaxSegmentCodePoints);
}

TEST(SplitSegments, InvariantsHoldOnMixedText) {
  const std::u32string mixed = DecodeUtf8(
      "报上了！！6月14号那个天府锦江半马，名额五分钟就没了，还好我手快😎\n"
      "10公里52分的底子，半马1:55对应的配速大概是5'27\"每公里。 OK... so e.g. 3.14 is pi! "
      "👨‍👩‍👧 family 🇨🇳 flag 👍🏽 \u3000 全角空格。「引号。」最后");
  for (size_t max_cp : {1u, 2u, 3u, 5u, 8u, 13u, 40u, 350u}) {
    SCOPED_TRACE(max_cp);
    ExpectSegmentInvariants(mixed, max_cp);
  }
}

TEST(SplitSegments, InvariantsHoldOnLongSpacedAndUnspacedText) {
  std::u32string text;
  for (int i = 0; i < 3000; ++i) text += (i % 7 == 0) ? U"word " : U"字";
  text += U"。";
  for (int i = 0; i < 2000; ++i) text += U"😂";
  ExpectSegmentInvariants(text, 350);
  ExpectSegmentInvariants(text, 17);
}

TEST(SplitSegments, InvariantsHoldOnRandomTextOfTrickyCharacters) {
  const std::u32string alphabet = U"a .。！?…」\"\n\t\u3000，字😀\u200D\U0001F3FD\U0001F1E8\u0301\uFE0F";
  std::mt19937 random(20260601);  // fixed seed: the same cases every run
  for (int round = 0; round < 300; ++round) {
    std::u32string text;
    const size_t length = random() % 400;
    for (size_t i = 0; i < length; ++i) text.push_back(alphabet[random() % alphabet.size()]);
    const size_t max_cp = 1 + random() % 60;
    SCOPED_TRACE(EncodeUtf8(text) + " / " + std::to_string(max_cp));
    ExpectSegmentInvariants(text, max_cp);
  }
}

TEST(SplitSegments, ZeroLimitIsTakenAsOne) { EXPECT_THAT(Segments("ab c", 0), ElementsAre("a", "b", "c")); }

TEST(IsQuestion, ByEndMarkOrChineseParticle) {
  EXPECT_TRUE(IsQuestion(U"我家猫叫什么？"));
  EXPECT_TRUE(IsQuestion(U"What is my cat called?  \n"));
  EXPECT_TRUE(IsQuestion(U"你还记得吗"));
  EXPECT_TRUE(IsQuestion(U"她叫什么呢。"));
  EXPECT_FALSE(IsQuestion(U"我家猫叫糯米。"));
  EXPECT_FALSE(IsQuestion(U"吗啡是一种药"));
  EXPECT_FALSE(IsQuestion(U""));
  EXPECT_FALSE(IsQuestion(U"  "));
}

}  // namespace
}  // namespace cilia::text
