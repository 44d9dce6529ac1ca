#include "gateway/compression.h"

#include <gtest/gtest.h>

#include <string>

namespace cilia::gateway {
namespace {

using nlohmann::json;

std::vector<ClientMessage> Conversation(int turns, size_t chars_each) {
  std::vector<ClientMessage> messages;
  for (int i = 0; i < turns; ++i) {
    const std::string user = "u" + std::to_string(i) + " " + std::string(chars_each, 'x');
    const std::string assistant = "a" + std::to_string(i) + " " + std::string(chars_each, 'y');
    messages.push_back({"user", user, user});
    messages.push_back({"assistant", assistant, assistant});
  }
  return messages;
}

TEST(PlanCompression, NothingBelowTheThreshold) {
  EXPECT_FALSE(PlanCompression(Conversation(10, 100), 0, 60000, 20000).has_value());
  EXPECT_FALSE(PlanCompression({}, 0, 1000, 100).has_value());
}

TEST(PlanCompression, KeepsAboutTheBudgetAndCutsAtAUserMessage) {
  const auto messages = Conversation(100, 400);  // ~100 tokens a message, ~20k in all
  const auto plan = PlanCompression(messages, 0, 10000, 3000);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->summarize_from, 0u);
  EXPECT_EQ(messages[plan->summarize_to].role, "user");
  const size_t kept = messages.size() - plan->summarize_to;
  EXPECT_GE(kept, 20u);
  EXPECT_LE(kept, 32u);
  EXPECT_EQ(plan->kept_from_key, MessageKey("user", messages[plan->summarize_to].text));
}

TEST(PlanCompression, OnlyTheRawPartCounts) {
  const auto messages = Conversation(100, 400);
  EXPECT_FALSE(PlanCompression(messages, 150, 10000, 3000).has_value()) << "50 raw messages are under the threshold";
  const auto plan = PlanCompression(messages, 20, 10000, 3000);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->summarize_from, 20u);
}

TEST(MessageKey, IgnoresOuterWhitespaceButNotRoleOrWords) {
  EXPECT_EQ(MessageKey("user", "  你好 \n"), MessageKey("user", "你好"));
  EXPECT_NE(MessageKey("user", "你好"), MessageKey("assistant", "你好"));
  EXPECT_NE(MessageKey("user", "你好"), MessageKey("user", "你 好"));
}

TEST(FindKeptFrom, CountsFromTheFirstNonSystemMessage) {
  const json body = json::parse(R"({"messages":[
    {"role":"system","content":"s"},
    {"role":"user","content":"old"},
    {"role":"assistant","content":"old reply"},
    {"role":"user","content":[{"type":"text","text":"kept"}]},
    {"role":"assistant","content":"r"},
    {"role":"user","content":"now"}]})");
  EXPECT_EQ(FindKeptFrom(body, Wire::kOpenAI, MessageKey("user", "kept")), std::optional<size_t>(2));
  EXPECT_EQ(FindKeptFrom(body, Wire::kAnthropic, MessageKey("user", "kept")), std::optional<size_t>(3));
  EXPECT_FALSE(FindKeptFrom(body, Wire::kOpenAI, MessageKey("user", "gone")).has_value());
}

TEST(SummaryRequest, InstructionsFirstThenPreviousSummaryThenTheMessagesVerbatim) {
  const auto messages = Conversation(3, 5);
  const json request = SummaryRequest("earlier: she likes tea", messages, {0, 4, ""}, "mini");
  EXPECT_EQ(request["model"], "mini");
  ASSERT_EQ(request["messages"].size(), 2u);
  EXPECT_EQ(request["messages"][0]["role"], "system");
  const std::string transcript = request["messages"][1]["content"];
  EXPECT_LT(transcript.find("earlier: she likes tea"), transcript.find(messages[0].text));
  EXPECT_NE(transcript.find(messages[3].text), std::string::npos);
  EXPECT_EQ(transcript.find(messages[4].text), std::string::npos) << "the kept part is not summarised";
}

}  // namespace
}  // namespace cilia::gateway
