#include "memory/excerpts/excerpt_index.h"

#include <gtest/gtest.h>

#include "testing/excerpt_fixture.h"

namespace cilia::memory {
namespace {

TEST(ExcerptIndex, PutReplacesAndRemoveForgets) {
  ExcerptIndex index;
  const std::vector<float> vec = {1.0f};
  index.Put({7, 1, 1000, ExcerptStatus::kActive, 0, std::nullopt, 2000, ExcerptWords("住在成都", "I live in Chengdu")}, &vec);
  ASSERT_TRUE(index.Meta(7));
  EXPECT_TRUE(index.Meta(7)->active);
  EXPECT_EQ(index.Meta(7)->valid_to, 2000);
  EXPECT_EQ(index.vectors().size(), 1u);
  index.Put({7, 1, 1000, ExcerptStatus::kSuperseded, 3, std::nullopt, std::nullopt, ExcerptWords("x", "y")}, nullptr);
  EXPECT_FALSE(index.Meta(7)->active);
  EXPECT_EQ(index.Meta(7)->access_count, 3);
  index.AddAccess(7);
  EXPECT_EQ(index.Meta(7)->access_count, 4);
  index.Remove(7);
  EXPECT_FALSE(index.Meta(7));
  EXPECT_EQ(index.size(), 0u);
  EXPECT_EQ(index.vectors().size(), 0u);
  index.Remove(7);  // unknown ids are ignored
}

TEST(ExcerptIndex, WordsCoverContentAndQuote) {
  const std::string words = ExcerptWords("She loves hotpot", "我很喜欢这里的火锅");
  EXPECT_NE(words.find("hotpot"), std::string::npos);
  EXPECT_NE(words.find("火锅"), std::string::npos);
}

using ExcerptIndexStoreTest = testing::ExcerptFixture;

TEST_F(ExcerptIndexStoreTest, RebuildEmbedsExcerptsThatLackAVectorAndDropsRowsThatWentAway) {
  const auto e = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  ASSERT_TRUE(t_.ns().store().Write([](store::Database& db) { return db.Exec("DELETE FROM excerpt_vectors"); }).ok());
  ExcerptIndex& index = t_.ns().excerpts();
  index.Put({99, 1, 0, ExcerptStatus::kActive, 0, std::nullopt, std::nullopt, "ghost"}, nullptr);
  ASSERT_TRUE(index.Rebuild(t_.ns().store(), t_.ns().embedder(), 50000).ok());
  EXPECT_EQ(index.vectors().size(), 1u);
  EXPECT_TRUE(index.Meta(e.id));
  EXPECT_FALSE(index.Meta(99));
}

}  // namespace
}  // namespace cilia::memory
