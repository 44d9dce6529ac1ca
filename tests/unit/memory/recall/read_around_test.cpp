#include "memory/recall/read_around.h"

#include <gtest/gtest.h>

#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "store/window_repo.h"
#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

UnixMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

class ReadAroundTest : public ::testing::Test {
 protected:
  // Five ~300-character messages: windows that overlap, in order.
  void SetUp() override {
    ingest::IngestConversation c;
    c.conversation_id = "long";
    c.title = "长谈";
    for (int i = 0; i < 5; ++i) {
      ingest::IngestMessage m;
      m.id = "m" + std::to_string(i);
      m.role = i % 2 ? "assistant" : "user";
      m.content = "part " + std::to_string(i) + " " + std::string(280, static_cast<char>('a' + i)) + ".";
      m.created_at_ms = At("2026-06-19T10:00:00+08:00") + i * 60'000;
      c.messages.push_back(std::move(m));
    }
    Archive archive(t_.ns());
    auto out = archive.Store(c);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
    row_ = out->conversation_row;
    auto windows = t_.ns().store().Read([&](store::Database& db) { return store::WindowRepo(db).ForConversation(row_); });
    ASSERT_TRUE(windows.ok());
    windows_ = *windows;
    ASSERT_GE(windows_.size(), 3u);
  }

  testing::TestNamespace t_;
  int64_t row_ = 0;
  std::vector<store::WindowRecord> windows_;
};

TEST_F(ReadAroundTest, AWindowWithItsNeighboursIsOnePassageInOrder) {
  auto around = ReadAround(t_.ns(), WindowPublicId(windows_[1].id));
  ASSERT_TRUE(around.ok()) << around.status().ToString();
  ASSERT_EQ(around->size(), 1u);
  const RecallResult& r = (*around)[0];
  EXPECT_EQ(r.id, WindowPublicId(windows_[0].id));
  EXPECT_EQ(r.text.rfind("[2026-06-19 · 长谈]\n", 0), 0u);
  // Each message once, in order.
  size_t last = 0;
  for (const std::string& m : r.message_ids) {
    const size_t at = r.text.find("part " + m.substr(1) + " ");
    ASSERT_NE(at, std::string::npos) << m;
    EXPECT_GT(at, last);
    EXPECT_EQ(at, r.text.rfind("part " + m.substr(1) + " "));
    last = at;
  }
  EXPECT_EQ(r.message_ids.front(), "m0");
}

TEST_F(ReadAroundTest, TheFirstWindowHasNothingBeforeIt) {
  auto around = ReadAround(t_.ns(), WindowPublicId(windows_[0].id), 1, 0);
  ASSERT_TRUE(around.ok());
  ASSERT_EQ(around->size(), 1u);
  EXPECT_EQ((*around)[0].id, WindowPublicId(windows_[0].id));
  EXPECT_EQ((*around)[0].message_ids, ReadAround(t_.ns(), WindowPublicId(windows_[0].id), 0, 0)->at(0).message_ids);
}

TEST_F(ReadAroundTest, AnExcerptReadsOnFromTheWindowOfItsMessage) {
  NewExcerpt item;
  item.content = "第四段";
  item.quote = "part 4 eeeeeeee";
  item.conversation_id = "long";
  item.message_id = "m4";
  item.type = "fact";
  auto created = Excerpts(t_.ns()).Create(item, Author::kOwner);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto around = ReadAround(t_.ns(), ExcerptPublicId(created->id), 1, 1);
  ASSERT_TRUE(around.ok()) << around.status().ToString();
  ASSERT_EQ(around->size(), 1u);
  const auto& ids = (*around)[0].message_ids;
  EXPECT_NE(std::find(ids.begin(), ids.end(), "m4"), ids.end());
}

TEST_F(ReadAroundTest, UnknownAndMalformedIds) {
  EXPECT_EQ(ReadAround(t_.ns(), "w_999999").status().code(), Code::kNotFound);
  EXPECT_EQ(ReadAround(t_.ns(), "x_999999").status().code(), Code::kNotFound);
  auto bad = ReadAround(t_.ns(), "m_3");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(bad.status().message().rfind("id:", 0), 0u);
  EXPECT_FALSE(ParseWindowId("w_").has_value());
  EXPECT_FALSE(ParseWindowId("w_0").has_value());
  EXPECT_FALSE(ParseWindowId("w_12x").has_value());
  EXPECT_EQ(ParseWindowId("w_12"), 12);
}

}  // namespace
}  // namespace cilia::memory
