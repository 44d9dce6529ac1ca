#include "gateway/compression.h"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "core/executor.h"
#include "ingest/context_parts.h"
#include "testing/test_namespace.h"

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

TEST(SummaryRequest, TheClientsHarnessTextIsNotSummarised) {
  std::vector<ClientMessage> messages = {
      {"user", "<environment_context><cwd>/tmp/x</cwd></environment_context>", ""},
      {"user", "<system-reminder>Attribution for git commits.</system-reminder>\nMy cat is called Miso.", ""},
      {"assistant", "Noted.", ""},
      {"user", "kept", ""}};
  const std::string transcript = SummaryRequest("", messages, {0, 3, ""}, "mini")["messages"][1]["content"];
  EXPECT_EQ(transcript, "<messages>\n[user]\nMy cat is called Miso.\n\n[assistant]\nNoted.\n\n</messages>");
}

TEST(SummaryRequest, ToolCallsAndResultsWithoutWordsAreNotSummarised) {
  const json call = json::array({ingest::ToolCallPart("c1", "get_weather", "{}")});
  const json result = json::array({ingest::ToolResultPart("c1", "sunny", false)});
  std::vector<ClientMessage> messages = {
      {"user", "Weather?", "Weather?"}, {"assistant", "", call}, {"tool", "", result},
      {"assistant", "Sunny.", "Sunny."}, {"user", "kept", "kept"}};
  const std::string transcript = SummaryRequest("", messages, {0, 4, ""}, "mini")["messages"][1]["content"];
  EXPECT_EQ(transcript, "<messages>\n[user]\nWeather?\n\n[assistant]\nSunny.\n\n</messages>");
}

}  // namespace
}  // namespace cilia::gateway

namespace cilia::gateway {
namespace {

// A small threshold, and a gate that holds the executor's workers, so the
// queue can be counted.
class CompressorTest : public ::testing::Test {
 protected:
  CompressorTest() : ns_(std::shared_ptr<void>(), &space_.ns()) {
    config_.gateway.compression_threshold_tokens = 1000;
    config_.gateway.compression_keep_tokens = 300;
  }
  std::function<void()> Blocker() {
    return [opened = opened_] { opened.wait(); };
  }
  void Open() { gate_.set_value(); }

  testing::TestNamespace space_;
  std::shared_ptr<memory::Namespace> ns_;
  Config config_;
  const std::vector<ClientMessage> long_chat_ = Conversation(10, 400);  // ~2000 tokens
  std::promise<void> gate_;
  std::shared_future<void> opened_ = gate_.get_future().share();
};

TEST_F(CompressorTest, QueuesOneSummaryAConversationAndOnlyPastTheThreshold) {
  Executor executor(1, 8);
  ASSERT_TRUE(executor.Post(Blocker()));
  while (executor.queued() != 0) std::this_thread::yield();  // the worker holds the gate
  {
    Compressor compressor(config_, space_.clock(), executor);
    compressor.MaybeCompress(ns_, 7, "", {{"user", "hi", "hi"}, {"assistant", "hello", "hello"}}, 0);
    EXPECT_EQ(executor.queued(), 0u);
    compressor.MaybeCompress(ns_, 7, "", long_chat_, 0);
    EXPECT_EQ(executor.queued(), 1u);
    compressor.MaybeCompress(ns_, 7, "", long_chat_, 0);
    EXPECT_EQ(executor.queued(), 1u) << "one summary at a time per conversation";
    compressor.MaybeCompress(ns_, 8, "", long_chat_, 0);
    EXPECT_EQ(executor.queued(), 2u);
    compressor.MaybeCompress(ns_, 0, "", long_chat_, 0);
    EXPECT_EQ(executor.queued(), 2u) << "a conversation not stored has nothing to summarise";
    Open();
  }  // the destructor waits for both (they find no model and log it)
  EXPECT_EQ(executor.queued(), 0u);
}

TEST_F(CompressorTest, ASummaryThatFindsTheExecutorFullIsSkippedNotWaitedFor) {
  Executor executor(1, 1);
  ASSERT_TRUE(executor.Post(Blocker()));
  while (executor.queued() != 0) std::this_thread::yield();  // the worker holds the gate: none is free
  while (executor.Post(Blocker())) {
  }
  const size_t full = executor.queued();
  {
    Compressor compressor(config_, space_.clock(), executor);
    compressor.MaybeCompress(ns_, 7, "", long_chat_, 0);
    EXPECT_EQ(executor.queued(), full) << "nothing was queued";
  }  // nothing in flight: returns at once although the worker is held
  Open();
}

}  // namespace
}  // namespace cilia::gateway
