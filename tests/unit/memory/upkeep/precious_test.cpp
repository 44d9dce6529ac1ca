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

// Passages pinned at 10, 20, 30… from messages said at 1, 2, 3…; each text
// costs what EstimateTokens says (one token per Han character).
class PreciousForPromptTest : public ::testing::Test {
 protected:
  void Said(const std::string& id, const std::string& text, UnixMs at) {
    testing::Store(t_.ns(), "c_" + id, {{id, "user", text, at}});
  }
  void PinAt(const std::string& id, UnixMs at) {
    auto p = memory::Pin(t_.ns(), {"c_" + id, {id}, "", store::Author::kOwner}, at);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
  }
  std::vector<std::string> Contents(int budget) {
    auto passages = PreciousForPrompt(t_.ns(), budget);
    EXPECT_TRUE(passages.ok()) << passages.status().ToString();
    std::vector<std::string> out;
    for (const PassageInPrompt& p : *passages) out.push_back(p.passage.content);
    return out;
  }
  testing::TestNamespace t_;
};

TEST_F(PreciousForPromptTest, TheNewestPinnedFitFirstAndAreListedInTheOrderTheyWereSaid) {
  Said("a", "一二三", 3000);
  Said("b", "四五六", 1000);
  Said("c", "七八九", 2000);
  PinAt("a", 10);
  PinAt("b", 20);
  PinAt("c", 30);
  EXPECT_THAT(Contents(100), ElementsAre("四五六", "七八九", "一二三")) << "by the date the words were said";
  EXPECT_THAT(Contents(6), ElementsAre("四五六", "七八九")) << "the oldest pin is the one left out";
  EXPECT_THAT(Contents(5), ElementsAre("七八九"));
  EXPECT_THAT(Contents(0), ElementsAre());
  auto dated = PreciousForPrompt(t_.ns(), 100);
  ASSERT_TRUE(dated.ok());
  EXPECT_EQ(dated->front().said_at, 1000) << "dated by the cited message, not the pin";
}

TEST_F(PreciousForPromptTest, APassageTooLongForWhatIsLeftIsLeftOutWholeAndOlderOnesStillFit) {
  Said("short", "短句。", 1000);
  Said("long", "这是一段很长的话，长到放不进预算。", 2000);
  PinAt("short", 10);
  PinAt("long", 20);
  EXPECT_THAT(Contents(5), ElementsAre("短句。")) << "never cut mid-sentence: whole or not at all";
}

}  // namespace
}  // namespace cilia::memory
