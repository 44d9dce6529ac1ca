#include "memory/recall/glossary.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

store::GlossaryEntry Term(std::string term, std::string definition, std::vector<std::string> aliases = {}) {
  return {std::move(term), std::move(aliases), std::move(definition), 0, 0};
}

TEST(MatchGlossaryTest, FindsCjkTermsAnywhereInTheText) {
  const std::vector<store::GlossaryEntry> glossary = {Term("小满", "她的猫，三岁"), Term("老地方", "学校后门的面馆")};
  EXPECT_THAT(MatchGlossary(glossary, "今晚去老地方吗？小满也想去"),
              ElementsAre("老地方: 学校后门的面馆", "小满: 她的猫，三岁"));
}

TEST(MatchGlossaryTest, AnAliasBringsItsTermsLine) {
  const std::vector<store::GlossaryEntry> glossary = {Term("Mochi", "the cat", {"毛球", "the furball"})};
  EXPECT_THAT(MatchGlossary(glossary, "is 毛球 asleep?"), ElementsAre("Mochi: the cat"));
  EXPECT_THAT(MatchGlossary(glossary, "feed The Furball"), ElementsAre("Mochi: the cat"));
}

TEST(MatchGlossaryTest, LatinIgnoresCaseAndWidthButNeedsWholeWords) {
  const std::vector<store::GlossaryEntry> glossary = {Term("cat", "Mochi"), Term("API", "the REST interface")};
  EXPECT_THAT(MatchGlossary(glossary, "My CAT and the ａｐｉ"), ElementsAre("cat: Mochi", "API: the REST interface"));
  EXPECT_THAT(MatchGlossary(glossary, "a category of rapids"), IsEmpty());
  EXPECT_THAT(MatchGlossary(glossary, "猫cat猫"), ElementsAre("cat: Mochi")) << "CJK next to Latin is a boundary";
}

TEST(MatchGlossaryTest, EachTermOnceWithItsDefinitionOnOneLine) {
  const std::vector<store::GlossaryEntry> glossary = {Term("🌸 club", "two lines\nof definition", {"花社"})};
  EXPECT_THAT(MatchGlossary(glossary, "🌸 club, 花社, 🌸 club"), ElementsAre("🌸 club: two lines of definition"));
}

TEST(MatchGlossaryTest, EmptyTextOrGlossaryGivesNothingAndHugeGlossariesAreCapped) {
  EXPECT_THAT(MatchGlossary({Term("a", "b")}, ""), IsEmpty());
  EXPECT_THAT(MatchGlossary({}, "anything"), IsEmpty());
  std::vector<store::GlossaryEntry> many;
  std::string text;
  for (int i = 0; i < 50; ++i) {
    many.push_back(Term("term" + std::to_string(i), "d"));
    text += "term" + std::to_string(i) + " ";
  }
  EXPECT_EQ(MatchGlossary(many, text).size(), kMaxGlossaryHits);
}

TEST(GlossaryHitsTest, ReadsTheNamespacesGlossary) {
  testing::TestNamespace t;
  ASSERT_TRUE(t.ns().store().Write([](store::Database& db) {
    return store::GlossaryRepo(db).Put(Term("北京", "她要搬去的城市", {"Beijing"}), 1).status();
  }).ok());
  EXPECT_THAT(GlossaryHits(t.ns(), "moving to beijing soon"), ElementsAre("北京: 她要搬去的城市"));
  EXPECT_THAT(GlossaryHits(t.ns(), "nothing here"), IsEmpty());
}

}  // namespace
}  // namespace cilia::memory
