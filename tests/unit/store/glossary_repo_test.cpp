#include "store/glossary_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using ::testing::HasSubstr;
using GlossaryRepoTest = testing::BackendTest;

TEST_P(GlossaryRepoTest, PutListGetAndDelete) {
  GlossaryRepo repo(db());
  ASSERT_TRUE(repo.Put({"小满", {"Xiaoman", "🐱"}, "她的猫", 0, 0}, 100).ok());
  ASSERT_TRUE(repo.Put({"Beijing", {}, "the city", 0, 0}, 200).ok());
  auto list = repo.List();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].term, "Beijing");
  EXPECT_EQ((*list)[1].aliases, (std::vector<std::string>{"Xiaoman", "🐱"}));
  EXPECT_EQ(*repo.Count(), 2);
  EXPECT_TRUE(*repo.Delete("小满"));
  EXPECT_FALSE(*repo.Delete("小满"));
  EXPECT_FALSE(repo.Get("小满")->has_value());
}

TEST_P(GlossaryRepoTest, ATermInAnotherCaseReplacesItAndKeepsItsCreationTime) {
  GlossaryRepo repo(db());
  ASSERT_TRUE(repo.Put({"mochi", {}, "old", 0, 0}, 100).ok());
  auto stored = repo.Put({"Mochi", {}, "new", 0, 0}, 200);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->created_at, 100);
  EXPECT_EQ(stored->updated_at, 200);
  auto got = repo.Get("MOCHI");
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->term, "Mochi");
  EXPECT_EQ((*got)->definition, "new");
  EXPECT_EQ(*repo.Count(), 1);
}

TEST_P(GlossaryRepoTest, BadEntriesNameTheirField) {
  EXPECT_THAT(CheckGlossaryEntry({"", {}, "d", 0, 0}).message(), HasSubstr("term"));
  EXPECT_THAT(CheckGlossaryEntry({"a\nb", {}, "d", 0, 0}).message(), HasSubstr("one line"));
  EXPECT_THAT(CheckGlossaryEntry({"a", {"ok", ""}, "d", 0, 0}).message(), HasSubstr("aliases[1]"));
  EXPECT_THAT(CheckGlossaryEntry({"a", {}, "", 0, 0}).message(), HasSubstr("definition"));
  EXPECT_THAT(CheckGlossaryEntry({std::string(101, 'x'), {}, "d", 0, 0}).message(), HasSubstr("at most 100"));
  EXPECT_THAT(CheckGlossaryEntry({"a", {}, std::string(2001, 'x'), 0, 0}).message(), HasSubstr("at most 2000"));
  EXPECT_THAT(CheckGlossaryEntry({"\xff", {}, "d", 0, 0}).message(), HasSubstr("UTF-8"));
  EXPECT_TRUE(CheckGlossaryEntry({std::string(100, 'x'), std::vector<std::string>(20, "y"), "d", 0, 0}).ok());
}

CILIA_ON_EACH_BACKEND(GlossaryRepoTest);

}  // namespace
}  // namespace cilia::store
