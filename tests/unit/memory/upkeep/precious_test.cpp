#include "memory/upkeep/precious.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/test_namespace.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PinTest : public ::testing::Test {
 protected:
  PinTest() {
    testing::Store(t_.ns(), "chat", {{"D1:1", "user", "你说过，\n星星会替我们记得。", 1000},
                                     {"", "assistant", "I will remember 🌙", 2000}});
  }
  Result<store::PreciousPassage> Pin(PinRequest r) { return memory::Pin(t_.ns(), r, 5000); }
  testing::TestNamespace t_;
};

TEST_F(PinTest, AVerbatimPassageIsStoredWithItsCitations) {
  auto p = Pin({"chat", {"D1:1"}, "星星会替我们记得", store::Author::kOwner});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->content, "星星会替我们记得");
  EXPECT_THAT(p->message_ids, ElementsAre("D1:1"));
  EXPECT_EQ(p->created_at, 5000);
}

TEST_F(PinTest, WithoutContentTheCitedMessagesAreThePassageInOrder) {
  auto p = Pin({"chat", {"m_2", "D1:1"}, "", store::Author::kAgent});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->content, "你说过，\n星星会替我们记得。\n\nI will remember 🌙");
  EXPECT_THAT(p->message_ids, ElementsAre("D1:1", "m_2"));
}

TEST_F(PinTest, WhitespaceMayDifferButWordsMayNot) {
  EXPECT_TRUE(Pin({"chat", {"D1:1"}, "你说过， 星星会替我们记得。", store::Author::kOwner}).ok());
  auto paraphrase = Pin({"chat", {"D1:1"}, "星星会记得我们", store::Author::kOwner});
  EXPECT_EQ(paraphrase.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(paraphrase.status().message(), HasSubstr("not found verbatim"));
}

TEST_F(PinTest, UnknownMessagesConversationsAndAuthorsAreRefused) {
  EXPECT_EQ(Pin({"chat", {"D9:9"}, "", store::Author::kOwner}).status().code(), Code::kNotFound);
  EXPECT_EQ(Pin({"nope", {"D1:1"}, "", store::Author::kOwner}).status().code(), Code::kNotFound);
  EXPECT_EQ(Pin({"chat", {}, "x", store::Author::kOwner}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Pin({"chat", {"D1:1"}, "", store::Author::kExtractor}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Pin({"chat", {"D1:1"}, " \n", store::Author::kOwner}).status().code(), Code::kInvalidArgument);
}

TEST_F(PinTest, PassagesAreAppendOnly) {
  auto p = Pin({"chat", {"D1:1"}, "", store::Author::kOwner});
  ASSERT_TRUE(p.ok());
  Status edit = t_.ns().store().Write([](store::Database& db) { return db.Exec("UPDATE precious SET content = 'x'"); });
  EXPECT_FALSE(edit.ok());
  EXPECT_THAT(edit.message(), HasSubstr("append-only"));
}

}  // namespace
}  // namespace cilia::memory
