// A test namespace with one stored conversation to quote from, for the
// excerpt and candidate tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "testing/test_namespace.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"

namespace cilia::testing {

class ExcerptFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    ingest::IngestConversation c;
    c.conversation_id = "chat";
    c.messages = {{"u1", "user", "Lena", "I live in Chengdu, near the university. 我很喜欢这里的火锅 🍲。", 1'779'900'000'000},
                  {"a1", "assistant", "", "Chengdu sounds lovely; the hotpot is famous.", 1'779'900'060'000},
                  {"u2", "user", "Lena", "Big news: I moved to Beijing last week.", 1'779'900'120'000}};
    ASSERT_TRUE(memory::Archive(t_.ns()).StoreAndIndex(c).ok());
  }
  memory::NewExcerpt Item(const std::string& content, const std::string& quote, const std::string& message = "u1") {
    memory::NewExcerpt item;
    item.content = content;
    item.quote = quote;
    item.conversation_id = "chat";
    item.message_id = message;
    item.type = "fact";
    return item;
  }
  store::ExcerptRecord Made(const memory::NewExcerpt& item, memory::Author who = memory::Author::kExtractor) {
    auto e = memory::Excerpts(t_.ns()).Create(item, who);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? *e : store::ExcerptRecord{};
  }

  TestNamespace t_;
};

}  // namespace cilia::testing
