#include "text/normalize.h"

#include <gtest/gtest.h>

#include <string>

#include "text/utf8.h"

namespace cilia::text {
namespace {

TEST(NormalizeForMatch, LowercasesAscii) {
  EXPECT_EQ(NormalizeForMatch("PayNotifyHandler.JAVA"), "paynotifyhandler.java");
  EXPECT_EQ(NormalizeForMatch(""), "");
  EXPECT_EQ(NormalizeForMatch("already lower 123"), "already lower 123");
}

TEST(NormalizeForMatch, FoldsFullwidthAndCompatibilityForms) {
  EXPECT_EQ(NormalizeForMatch("ＡＢＣ１２３"), "abc123");
  EXPECT_EQ(NormalizeForMatch("①②"), "12");
  EXPECT_EQ(NormalizeForMatch("１０ｋ的ＰＢ"), "10k的pb");
  EXPECT_EQ(NormalizeForMatch("㎞"), "km");
  EXPECT_EQ(NormalizeForMatch("ﬁle"), "file");
  EXPECT_EQ(NormalizeForMatch("ｶﾀｶﾅ"), "カタカナ");
  EXPECT_EQ(NormalizeForMatch("！？"), "!?");
}

TEST(NormalizeForMatch, FoldsCaseBeyondAscii) {
  EXPECT_EQ(NormalizeForMatch("Straße"), "strasse");
  EXPECT_EQ(NormalizeForMatch("ÉCOLE"), "école");
  EXPECT_EQ(NormalizeForMatch("ΣΊΣΥΦΟΣ"), "σίσυφοσ");
}

TEST(NormalizeForMatch, ComposesSoDecomposedAndPrecomposedMatch) {
  EXPECT_EQ(NormalizeForMatch("cafe\u0301"), NormalizeForMatch("caf\u00E9"));
  EXPECT_EQ(NormalizeForMatch("cafe\u0301"), "caf\u00E9");
}

TEST(NormalizeForMatch, DropsDefaultIgnorables) {
  EXPECT_EQ(NormalizeForMatch("soft\u00ADhyphen"), "softhyphen");
  EXPECT_EQ(NormalizeForMatch("❤\uFE0F"), "❤");
  EXPECT_EQ(NormalizeForMatch("👨\u200D👩"), "👨👩");
}

TEST(NormalizeForMatch, LeavesChineseAndEmojiAlone) {
  EXPECT_EQ(NormalizeForMatch("报上了！！6月14号那个天府锦江半马😎"), "报上了!!6月14号那个天府锦江半马😎");
  EXPECT_EQ(NormalizeForMatch("成都"), "成都");
}

TEST(NormalizeForMatch, ReplacesIllFormedUtf8) {
  const std::string out = NormalizeForMatch("A\xFF成\xED\xA0\x80");
  EXPECT_TRUE(IsValidUtf8(out));
  EXPECT_EQ(out, "a\uFFFD成\uFFFD\uFFFD\uFFFD");
}

TEST(NormalizeForMatch, HandlesLargeInput) {
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "Ａ成";
  const std::string out = NormalizeForMatch(big);
  EXPECT_EQ(out.size(), 100000u * 4);
  EXPECT_EQ(out.substr(0, 8), "a成a成");
}

}  // namespace
}  // namespace cilia::text
