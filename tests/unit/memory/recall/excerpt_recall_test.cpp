#include "memory/recall/excerpt_recall.h"

#include <gtest/gtest.h>

#include "testing/excerpt_fixture.h"

namespace cilia::memory {
namespace {

class ExcerptRecallTest : public testing::ExcerptFixture {
 protected:
  std::vector<RecallResult> Ask(const std::string& query, bool count = false) {
    ExcerptQuery q;
    q.query = q.lexical_text = query;
    q.now = t_.clock().Now();
    auto out = RecallExcerpts(t_.ns(), q);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (out.ok() && count) {
      EXPECT_TRUE(RecordExcerptRecalls(t_.ns(), *out, query).ok());
    }
    return out.ok() ? *out : std::vector<RecallResult>{};
  }
};

TEST_F(ExcerptRecallTest, ActiveExcerptsAreFoundWithTheirQuoteAndSource) {
  const auto e = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  auto results = Ask("where does Lena live, Chengdu?", true);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].layer, "excerpt");
  EXPECT_EQ(results[0].id, ExcerptPublicId(e.id));
  EXPECT_EQ(results[0].message_ids, std::vector<std::string>{"u1"});
  EXPECT_EQ(results[0].text, "[2026-05-28 · chat]\nLena lives in Chengdu.\nLena: I live in Chengdu");
  EXPECT_EQ((*Excerpts(t_.ns()).Get(e.id))->access_count, 1);
  Ask("Chengdu");
  EXPECT_EQ((*Excerpts(t_.ns()).Get(e.id))->access_count, 1) << "a look counts nothing";
}

TEST_F(ExcerptRecallTest, SupersededArchivedAndForgottenExcerptsStayOut) {
  const auto old = Made(Item("Lena lives in Chengdu.", "I live in Chengdu"));
  const auto now = Made(Item("Lena moved to Beijing.", "I moved to Beijing", "u2"));
  ASSERT_TRUE(Excerpts(t_.ns()).Supersede(old.id, now.id, Author::kOwner).ok());
  EXPECT_TRUE(Ask("Chengdu").empty());
  ASSERT_TRUE(Excerpts(t_.ns()).Archive(now.id, Author::kOwner).ok());
  EXPECT_TRUE(Ask("Beijing").empty());
  ASSERT_TRUE(Excerpts(t_.ns()).Revive(now.id, Author::kOwner).ok());
  ASSERT_EQ(Ask("Beijing").size(), 1u);
  ASSERT_TRUE(t_.ns().store().Write([&](store::Database& db) {
    return store::ExcerptRepo(db).DeleteQuoting(now.source.conversation_row, now.source.message_id).status();
  }).ok());
  EXPECT_TRUE(Ask("Beijing").empty());
  EXPECT_FALSE(t_.ns().excerpts().Meta(now.id)) << "the index drops what is gone";
}

TEST_F(ExcerptRecallTest, ChineseQueriesFindChineseExcerpts) {
  Made(Item("她喜欢成都的火锅。", "我很喜欢这里的火锅"));
  auto results = Ask("火锅");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].text.find("Lena: 我很喜欢这里的火锅"), std::string::npos);
}

}  // namespace
}  // namespace cilia::memory
