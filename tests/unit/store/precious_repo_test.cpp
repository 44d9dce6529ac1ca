#include "store/precious_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using PreciousRepoTest = testing::BackendTest;

TEST_P(PreciousRepoTest, AppendsInOrderAndNeverEdits) {
  PreciousRepo repo(db());
  PreciousPassage p{0, "星星会替我们记得", "chat", {"D1:1", "m_2"}, Author::kOwner, 10};
  auto first = repo.Append(p);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  p.content = "second";
  ASSERT_TRUE(repo.Append(p).ok());
  auto list = repo.List();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].content, "星星会替我们记得");
  EXPECT_EQ((*list)[0].message_ids, (std::vector<std::string>{"D1:1", "m_2"}));
  EXPECT_TRUE(*repo.Contains(p));
  EXPECT_FALSE(db().Exec("UPDATE precious SET content = 'rewritten'").ok());
  EXPECT_EQ((*repo.Get(*first))->content, "星星会替我们记得");
  EXPECT_EQ(*repo.Count(), 2);
}

TEST_P(PreciousRepoTest, AForgetTakesThePassagesCitingTheMessageOrTheConversation) {
  PreciousRepo repo(db());
  ASSERT_TRUE(repo.Append({0, "one", "chat", {"D1:1", "m_2"}, Author::kOwner, 1}).ok());
  ASSERT_TRUE(repo.Append({0, "two", "chat", {"m_3"}, Author::kOwner, 2}).ok());
  ASSERT_TRUE(repo.Append({0, "three", "other", {"m_2"}, Author::kAgent, 3}).ok());
  auto deleted = repo.DeleteCiting("chat", "m_2");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 1);
  EXPECT_EQ(*repo.DeleteCiting("chat", "m_9"), 0);
  auto left = repo.List();
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ((*left)[0].content, "two");
  EXPECT_EQ((*left)[1].content, "three") << "the same id in another conversation is another message";
  EXPECT_EQ(*repo.DeleteCiting("chat", std::nullopt), 1);
  EXPECT_EQ(*repo.Count(), 1);
}

TEST_P(PreciousRepoTest, AnImportKeepsItsIdAndAnAuthorMustBeKnown) {
  PreciousRepo repo(db());
  EXPECT_EQ(*repo.Append({42, "x", "c", {"m"}, Author::kAgent, 1}), 42);
  EXPECT_FALSE(repo.Append({42, "y", "c", {"m"}, Author::kAgent, 1}).ok()) << "the id is taken";
  EXPECT_FALSE(repo.Append({0, "y", "c", {"m"}, Author::kExtractor, 1}).ok()) << "owner or agent only";
}

CILIA_ON_EACH_BACKEND(PreciousRepoTest);

}  // namespace
}  // namespace cilia::store
