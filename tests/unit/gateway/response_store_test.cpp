#include "gateway/response_store.h"

#include <gtest/gtest.h>

namespace cilia::gateway {
namespace {

using nlohmann::json;

StoredResponse Response(const std::string& text) { return {{{"text", text}}, json::array(), "c"}; }

TEST(ResponseStoreTest, KeepsResponsesPerNamespaceAndForgetsTheOldestPastItsCapacity) {
  ResponseStore store(2);
  store.Put("a", "resp_1", Response("one"));
  store.Put("a", "resp_2", Response("two"));
  EXPECT_FALSE(store.Get("b", "resp_1").has_value()) << "another namespace sees nothing";
  ASSERT_TRUE(store.Get("a", "resp_1").has_value());  // now the most recently used
  store.Put("a", "resp_3", Response("three"));
  EXPECT_TRUE(store.Get("a", "resp_1").has_value());
  EXPECT_FALSE(store.Get("a", "resp_2").has_value()) << "the least recently used went";
  EXPECT_EQ(store.Get("a", "resp_3")->response["text"], "three");
  store.Put("a", "resp_3", Response("again"));
  EXPECT_EQ(store.Get("a", "resp_3")->response["text"], "again");
  EXPECT_TRUE(store.Erase("a", "resp_3"));
  EXPECT_FALSE(store.Erase("a", "resp_3"));
  EXPECT_FALSE(store.Get("a", "resp_3").has_value());
}

TEST(ResponseStoreTest, AResponseIdNamesItsConversation) {
  const std::string id = NewResponseId("chat-2026-05-28-ab12_x", 1000, "0");
  EXPECT_EQ(id.rfind("resp_", 0), 0u);
  EXPECT_EQ(ConversationOfResponseId(id), "chat-2026-05-28-ab12_x");
  EXPECT_NE(NewResponseId("c", 1000, "0"), NewResponseId("c", 1000, "1"));
  EXPECT_EQ(ConversationOfResponseId(NewResponseId("", 5, "0")), "");
  EXPECT_EQ(ConversationOfResponseId("resp_zz_00"), "");
  EXPECT_EQ(ConversationOfResponseId("resp_6"), "");
  EXPECT_EQ(ConversationOfResponseId("msg_6162_00"), "");
  EXPECT_EQ(ConversationOfResponseId("resp_6162_00"), "ab");
}

}  // namespace
}  // namespace cilia::gateway
