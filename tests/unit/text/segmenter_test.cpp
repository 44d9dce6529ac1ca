#include "text/segmenter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unicode/uchar.h>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "text/utf8.h"

namespace cilia::text {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Words(std::string_view text) { return WordSegmenter::Get().Words(text); }

// Whether `needle` occurs as consecutive words of `haystack`: how an FTS5
// phrase query for a term finds it in indexed text.
bool ContainsRun(const std::vector<std::string>& haystack, const std::vector<std::string>& needle) {
  return !needle.empty() &&
         std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end()) != haystack.end();
}

const char* const kChat[] = {
    "报上了！！6月14号那个天府锦江半马，名额五分钟就没了，还好我手快😎",
    "第一次正式参赛。平时都是自己瞎跑，最长一次跑过15公里，10k的PB是52分18秒。",
    "10公里52分的底子，半马1:55对应的配速大概是5'27\"每公里，有挑战。",
    "我住金牛区茶店子这边，成都的夏天太热了，配速掉得厉害",
    "新家wifi密码是Hotpot@0601，feature flag叫pay_notify_v2，文件是PayNotifyHandler.java",
    "Caroline: I went to the LGBTQ support group yesterday and it was so powerful!",
    "ＦＵＬＬ　ＷＩＤＴＨ①② 👨‍👩‍👧 🇨🇳 café Straße コーヒー 한국어",
};

TEST(WordSegmenter, UsesTheIcuDictionary) { EXPECT_TRUE(WordSegmenter::Get().status().ok()); }

TEST(WordSegmenter, SplitsChineseIntoDictionaryWords) {
  EXPECT_THAT(Words("我住成都"), ElementsAre("我", "住", "成都"));
  EXPECT_THAT(Words("恭喜抢到名额"), ElementsAre("恭喜", "抢到", "名额"));
}

TEST(WordSegmenter, NamesAndTermsAreRecoverableAsPhrases) {
  // Words the dictionary does not know come out in pieces, but the same pieces
  // in a query as in the message, so a phrase query finds them.
  for (const char* term : {"天府锦江半马", "半马", "配速", "成都", "茶店子", "金牛区"}) {
    const std::vector<std::string> query = Words(term);
    bool found = false;
    for (const char* message : kChat) found |= ContainsRun(Words(message), query);
    EXPECT_TRUE(found) << term;
  }
}

TEST(WordSegmenter, KeepsNumbersAndCutsThemFromHan) {
  EXPECT_THAT(Words("15公里"), ElementsAre("15", "公里"));
  EXPECT_THAT(Words("52分18秒"), ElementsAre("52", "分", "18", "秒"));
  EXPECT_THAT(Words("1:55"), ElementsAre("1", "55"));
}

TEST(WordSegmenter, KeepsMixedLetterDigitTokensAndLowercases) {
  EXPECT_THAT(Words("10k的PB"), ElementsAre("10k", "的", "pb"));
  EXPECT_THAT(Words("B2176号"), ElementsAre("b2176", "号"));
}

TEST(WordSegmenter, SplitsIdentifiersWhereUnicode61Would) {
  EXPECT_THAT(Words("pay_notify_v2"), ElementsAre("pay", "notify", "v2"));
  EXPECT_THAT(Words("PayNotifyHandler.java"), ElementsAre("paynotifyhandler", "java"));
  EXPECT_THAT(Words("Hotpot@0601"), ElementsAre("hotpot", "0601"));
  EXPECT_THAT(Words("3.14"), ElementsAre("3", "14"));
}

TEST(WordSegmenter, DropsPunctuationWhitespaceAndEmoji) {
  EXPECT_THAT(Words("还好我手快😎！！"), ElementsAre("还好", "我", "手", "快"));
  EXPECT_THAT(Words("👨‍👩‍👧 🇨🇳 ❤️ ……！？。、 -- \t\n"), IsEmpty());
  EXPECT_THAT(Words(""), IsEmpty());
  EXPECT_THAT(Words("   \u3000 "), IsEmpty());
}

TEST(WordSegmenter, NormalisesFullwidthAndCompatibilityForms) {
  EXPECT_THAT(Words("ＰＢ"), ElementsAre("pb"));
  EXPECT_THAT(Words("第①名"), Words("第1名"));
  EXPECT_THAT(Words("Straße"), ElementsAre("strasse"));
}

TEST(WordSegmenter, StemsEnglishPluralsAndInflectionsLightly) {
  EXPECT_THAT(Words("runs running stopped liked coding hoped tried"),
              ElementsAre("run", "run", "stop", "like", "code", "hope", "try"));
  EXPECT_THAT(Words("stories classes boxes watches wishes meetings"),
              ElementsAre("story", "class", "box", "watch", "wish", "meet"));
}

TEST(WordSegmenter, LeavesWordsAloneWhereStemmingIsNotSafe) {
  EXPECT_THAT(Words("speed need glass status this bus was going morning added"),
              ElementsAre("speed", "need", "glass", "status", "this", "bus", "was", "going", "morning", "add"));
  EXPECT_THAT(Words("ring string 10ks"), ElementsAre("ring", "string", "10ks"));
}

TEST(WordSegmenter, HandlesOtherScripts) {
  EXPECT_THAT(Words("Привет, МИР"), ElementsAre("привет", "мир"));
  EXPECT_THAT(Words("한국어 텍스트"), ElementsAre("한국어", "텍스트"));
  EXPECT_THAT(Words("コーヒー"), ElementsAre("コーヒー"));
}

TEST(WordSegmenter, EveryWordIsOneUnicode61Token) {
  // unicode61 keeps letters, numbers and private-use characters together and
  // splits at everything else; a word must not contain anything else.
  constexpr uint32_t kTokenCategories = U_GC_L_MASK | U_GC_N_MASK | U_GC_CO_MASK;
  for (const char* message : kChat) {
    for (const std::string& word : Words(message)) {
      ASSERT_FALSE(word.empty()) << message;
      for (char32_t c : DecodeUtf8(word)) {
        EXPECT_NE(U_GET_GC_MASK(static_cast<UChar32>(c)) & kTokenCategories, 0u)
            << "U+" << std::hex << static_cast<uint32_t>(c) << " in " << word;
      }
    }
  }
}

TEST(WordSegmenter, ChineseWordsPartitionTheHanText) {
  // Segmentation only cuts: the words of Han text, joined, give the text back.
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "我住金牛区茶店子这边出门五分钟就到绿道";
  std::string joined;
  for (const std::string& w : Words(text)) joined += w;
  EXPECT_EQ(joined, text);
}

TEST(WordSegmenter, SurvivesIllFormedUtf8) {
  const std::vector<std::string> words = Words("成都\xFF\xC0\xAF跑步\xED\xA0\x80ok");
  EXPECT_THAT(words, ElementsAre("成都", "跑步", "ok"));
}

TEST(WordSegmenter, RandomBytesGiveValidNonEmptyWords) {
  std::mt19937 random(7);  // fixed seed: the same cases every run
  const std::string pieces[] = {"成", "都", "a", "Z", "1", " ", "，", "😎", "\xFF", "\xE6\x88", "\xC0", "_"};
  for (int round = 0; round < 300; ++round) {
    std::string text;
    for (int i = 0; i < 60; ++i) text += pieces[random() % std::size(pieces)];
    for (const std::string& w : Words(text)) {
      EXPECT_FALSE(w.empty());
      EXPECT_TRUE(IsValidUtf8(w)) << w;
    }
  }
}

TEST(WordSegmenter, GivesTheSameWordsFromManyThreadsAtOnce) {
  std::vector<std::string> expected;
  for (const char* message : kChat) expected.push_back(IndexText(message));
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (size_t i = 0; i < std::size(kChat); ++i) mismatches[t] += IndexText(kChat[i]) != expected[i];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(mismatches, ::testing::Each(0));
}

TEST(IndexText, JoinsWordsWithSingleSpaces) {
  EXPECT_EQ(IndexText("10k的PB是52分18秒！"), "10k 的 pb 是 52 分 18 秒");
  EXPECT_EQ(IndexText("  Hello,   WORLD!! "), "hello world");
  EXPECT_EQ(IndexText(""), "");
  EXPECT_EQ(IndexText("😎！"), "");
}

// The tokens space-separated, bigrams marked with a trailing "+".
std::string ShortCjkTokens(std::string_view text) {
  std::string out;
  ForEachShortCjkToken(text, [&out](std::string_view token, bool bigram) {
    if (!out.empty()) out.push_back(' ');
    out.append(token);
    if (bigram) out.push_back('+');
  });
  return out;
}

TEST(ForEachShortCjkToken, EmitsHanUnigramsAndAdjacentBigrams) {
  EXPECT_EQ(ShortCjkTokens("去成都"), "去 去成+ 成 成都+ 都");
  EXPECT_EQ(ShortCjkTokens("胖"), "胖");
}

TEST(ForEachShortCjkToken, IgnoresEverythingButHan) {
  EXPECT_EQ(ShortCjkTokens("成都ABC跑步"), "成 成都+ 都 跑 跑步+ 步");
  EXPECT_EQ(ShortCjkTokens("成，都"), "成 都");  // punctuation breaks adjacency
  EXPECT_EQ(ShortCjkTokens("コーヒー hello 😎"), "");
  EXPECT_EQ(ShortCjkTokens(""), "");
}

TEST(ForEachShortCjkToken, NormalisesCompatibilityIdeographs) {
  EXPECT_EQ(ShortCjkTokens("\uF900"), ShortCjkTokens("\u8C48"));  // 豈 compatibility → unified
  EXPECT_EQ(ShortCjkTokens("\u8C48"), "\u8C48");
}

TEST(ForEachShortCjkToken, IllFormedUtf8BreaksAdjacencyLikeAnyOtherCharacter) {
  EXPECT_EQ(ShortCjkTokens("成\xff都\xe6\x88"), "成 都");
}

TEST(IsStopWord, KnowsChineseFunctionWords) {
  for (const char* w :
       {"我", "你", "他", "她", "的", "了", "是", "在", "和", "也", "就", "都", "吗", "呢", "吧", "啊", "什么"}) {
    EXPECT_TRUE(IsStopWord(w)) << w;
  }
  for (const char* w : {"成都", "配速", "半", "马", "公里"}) EXPECT_FALSE(IsStopWord(w)) << w;
}

TEST(IsStopWord, MatchesEnglishInTheFormWordsGives) {
  for (const std::string& w :
       Words("The a an and or of to in is are WAS were be I you it we they that this what when does")) {
    EXPECT_TRUE(IsStopWord(w)) << w;
  }
  for (const char* w : {"run", "pb", "10k", "support", ""}) EXPECT_FALSE(IsStopWord(w)) << w;
}

}  // namespace
}  // namespace cilia::text
