#include "index/lexical.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "testing/temp_dir.h"
#include "text/segmenter.h"
#include "store/message_repo.h"
#include "store/migrations.h"

namespace cilia::index {
namespace {

class LexicalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::move(*store::Database::Open(dir_.Sub("l.db"), {}));
    ASSERT_TRUE(store::Migrate(*db_).ok());
    conv_ = store::MessageRepo(*db_).CreateConversation("c", "", 0)->id;
  }
  int64_t Add(const std::string& body) {
    store::WindowRecord w;
    w.conversation_row = conv_;
    w.spans = "[]";
    w.body = body;
    w.words = text::IndexText(body);
    EXPECT_TRUE(store::WindowRepo(*db_).Insert(w).ok());
    words_.Add(w.id, w.words);
    return w.id;
  }
  Bm25Index words_;
  testing::TempDir dir_;
  std::unique_ptr<store::Database> db_;
  int64_t conv_ = 0;
};

TEST_F(LexicalTest, StopWordsAndUnknownWordsAreNotQueried) {
  Add("the support group was great");
  LexicalTerms terms = ChooseTerms(words_, "what was the support group like");
  for (const auto& t : terms.terms) {
    EXPECT_FALSE(text::IsStopWord(t)) << t;
    EXPECT_NE(t, "like");  // in no window
  }
  EXPECT_NE(std::find(terms.terms.begin(), terms.terms.end(), "support"), terms.terms.end());
}

TEST_F(LexicalTest, VeryCommonTermsAreDroppedUnlessNothingElseIsLeft) {
  for (int i = 0; i < 120; ++i) Add("running log entry " + std::to_string(i));
  int64_t rare = Add("running with a zebra");
  LexicalTerms terms = ChooseTerms(words_, "running zebra");
  EXPECT_EQ(terms.terms, std::vector<std::string>{"zebra"});
  EXPECT_EQ(terms.dropped.size(), 1u);
  EXPECT_EQ(ChooseTerms(words_, "running").terms.size(), 1u);
  auto hits = SearchLexical(words_, "running zebra", 5);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].first, rare);
}

TEST_F(LexicalTest, ATitleMatchRanksItsConversationsWindows) {
  // Windows 1-2 belong to conversation 10, titled with the query's word; 3-4 to 20.
  Bm25Index titles;
  titles.Add(10, text::IndexText("Kyoto trip planning"));
  titles.Add(20, text::IndexText("Garden notes"));
  const int64_t hotel = Add("booked the hotel near the station");
  const int64_t temples = Add("which temples to see first");
  const int64_t tomatoes = Add("the tomatoes need a bigger pot");
  Add("a hotel for my aunt, not for me");
  const std::map<int64_t, std::vector<int64_t>> windows{{10, {hotel, temples}}, {20, {tomatoes}}};
  TitleField title{&titles, 0.5, [&](int64_t c) { return windows.at(c); }};
  // No window says "kyoto": the title field alone finds the trip's windows.
  auto kyoto = SearchLexical(words_, "kyoto", 5, {}, title);
  ASSERT_EQ(kyoto.size(), 2u);
  EXPECT_EQ(std::set<int64_t>({kyoto[0].first, kyoto[1].first}), std::set<int64_t>({hotel, temples}));
  EXPECT_TRUE(SearchLexical(words_, "kyoto", 5).empty());
  // "hotel" is in two windows: the one in the Kyoto conversation wins with the title.
  auto hotels = SearchLexical(words_, "kyoto hotel", 5, {}, title);
  ASSERT_GE(hotels.size(), 2u);
  EXPECT_EQ(hotels[0].first, hotel);
  // Weight 0: no title field.
  title.weight = 0;
  EXPECT_TRUE(SearchLexical(words_, "kyoto", 5, {}, title).empty());
}

TEST_F(LexicalTest, ExactCandidatesUseTrigramHanNgramsOrWords) {
  int64_t a = Add("wifi密码是 Kiwi-2048");
  Add("another window about kiwis");
  store::WindowRepo repo(*db_);
  auto tri = *SearchExactCandidates(words_, repo, "wi-20", {}, {}, 10);  // cuts through words: trigrams
  ASSERT_EQ(tri.size(), 1u);
  EXPECT_EQ(tri[0], a);
  auto whole = *SearchExactCandidates(words_, repo, "Kiwi-2048", {}, {}, 10);  // whole words: in memory
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(whole[0], a);
  auto han = *SearchExactCandidates(words_, repo, "密码", {}, {}, 10);
  ASSERT_EQ(han.size(), 1u);
  auto one = *SearchExactCandidates(words_, repo, "码", {}, {}, 10);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(SearchExactCandidates(words_, repo, "", {}, {}, 10)->empty());
}

TEST_F(LexicalTest, ShortChineseNamesAreFoundInMixedText) {
  int64_t lin = Add("周末和小林去Chengdu跑了10k，林说很累");
  int64_t wang = Add("王芳: see you at 7pm 好的");
  int64_t apart = Add("小，林 are two words here");
  store::WindowRepo repo(*db_);
  auto found = [&](std::string_view text) {
    std::vector<int64_t> ids = *SearchExactCandidates(words_, repo, text, {}, {}, 10);
    std::sort(ids.begin(), ids.end());
    return ids;
  };
  EXPECT_EQ(found("小林"), std::vector<int64_t>{lin});
  EXPECT_EQ(found("林"), (std::vector<int64_t>{lin, apart}));
  EXPECT_EQ(found("王芳"), std::vector<int64_t>{wang});
  EXPECT_EQ(found("芳"), std::vector<int64_t>{wang});
  EXPECT_EQ(found("好"), std::vector<int64_t>{wang});
  EXPECT_TRUE(found("林王").empty());
  EXPECT_TRUE(found("张").empty());
}

TEST(Expressions, TrigramsAreDistinctAndAnded) {
  EXPECT_EQ(TrigramExpression("abcab"), "\"abc\" AND \"bca\" AND \"cab\"");
  EXPECT_EQ(TrigramExpression("aaaa"), "\"aaa\"");
  EXPECT_EQ(TrigramExpression("密码是"), "\"密码是\"");
  EXPECT_EQ(TrigramExpression("ab"), "");
}

TEST(Expressions, QuotesAreEscaped) {
  EXPECT_EQ(PhraseExpression("say \"hi\""), "\"say \"\"hi\"\"\"");
}

TEST(ContainsForMatch, IgnoresCaseAndWidth) {
  EXPECT_TRUE(ContainsForMatch("My PB is 52:18", "pb is"));
  EXPECT_TRUE(ContainsForMatch("ＡＢＣ全角", "abc"));
  EXPECT_FALSE(ContainsForMatch("abc", ""));
  EXPECT_FALSE(ContainsForMatch("abc", "abd"));
}

}  // namespace
}  // namespace cilia::index
