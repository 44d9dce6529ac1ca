#include "text/tokens.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>

namespace cilia::text {
namespace {

TEST(EstimateTokens, EmptyTextIsFree) { EXPECT_EQ(EstimateTokens(""), 0); }

TEST(EstimateTokens, EnglishIsAboutFourCharactersAToken) {
  EXPECT_EQ(EstimateTokens("abcd"), 1);
  EXPECT_EQ(EstimateTokens("abcde"), 2);                                          // rounded up
  EXPECT_EQ(EstimateTokens("Hey Mel! Good to see you! How have you been?"), 11);  // 44 bytes
}

TEST(EstimateTokens, EachCjkLetterIsOneToken) {
  EXPECT_EQ(EstimateTokens("天府锦江半马"), 6);
  EXPECT_EQ(EstimateTokens("コーヒー"), 4);
  EXPECT_EQ(EstimateTokens("한국어"), 3);
}

TEST(EstimateTokens, CjkPunctuationAndEmojiCountAsOtherBytes) {
  EXPECT_EQ(EstimateTokens("。"), 1);    // 3 bytes → 1
  EXPECT_EQ(EstimateTokens("😎😎"), 2);    // 8 bytes → 2
  EXPECT_EQ(EstimateTokens("好！"), 2);  // 1 + ⌈3/4⌉
}

TEST(EstimateTokens, MixedTextAddsBothParts) {
  // 12 Han letters; "15" "，" "10k" "PB" "52" "18" "。" are 17 other bytes, 5 tokens.
  EXPECT_EQ(EstimateTokens("最长一次跑过15公里，10k的PB是52分18秒。"), 12 + 5);
}

TEST(EstimateTokens, GrowsLinearlyOnHugeText) {
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "成都 ";
  EXPECT_EQ(EstimateTokens(big), 200000 + 25000);
}

TEST(EstimateTokens, IllFormedBytesCountAsOtherText) { EXPECT_EQ(EstimateTokens("\xFF\xFE\xFD\xFC"), 1); }

}  // namespace
}  // namespace cilia::text
