#include "gateway/recall_tool.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"
#include "text/utf8.h"
#include "memory/archive/archive.h"
#include "store/db.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

UnixMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

class RecallToolTest : public ::testing::Test {
 protected:
  RecallToolTest() : t_(At("2026-06-20T12:00:00+08:00")) {}

  void Ingest(const std::string& conversation, const std::string& id, const std::string& text, const char* at) {
    ingest::IngestConversation c;
    c.conversation_id = conversation;
    ingest::IngestMessage m;
    m.id = id;
    m.role = "user";
    m.content = text;
    m.created_at_ms = At(at);
    c.messages.push_back(m);
    memory::Archive archive(t_.ns());
    auto out = archive.Store(c);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
  }

  void SetUp() override {
    Ingest("pets", "p1", "我家的猫叫年糕，三岁了，特别怕吸尘器。", "2026-06-01T20:00:00+08:00");
    Ingest("wifi", "w1", "The wifi password at home is Kiwi-2048.", "2026-06-18T09:00:00+08:00");
  }

  RecallToolOptions Options() { return {5, 6000, At("2026-06-20T12:00:00+08:00"), nullptr}; }

  testing::TestNamespace t_;
};

TEST(RecallToolDefinition, SameBytesEveryCallInBothFormats) {
  EXPECT_EQ(RecallToolDefinition(Wire::kOpenAI).dump(), RecallToolDefinition(Wire::kOpenAI).dump());
  const json openai = RecallToolDefinition(Wire::kOpenAI);
  EXPECT_EQ(openai["type"], "function");
  EXPECT_EQ(openai["function"]["name"], "recall");
  EXPECT_FALSE(openai["function"]["parameters"].contains("required")) << "a query, or `around` instead of one";
  EXPECT_TRUE(openai["function"]["parameters"]["properties"].contains("around"));
  EXPECT_FALSE(openai["function"]["parameters"]["properties"].contains("conversation_id"))
      << "the model is shown no conversation ids";
  const json anthropic = RecallToolDefinition(Wire::kAnthropic);
  EXPECT_EQ(anthropic["name"], "recall");
  EXPECT_EQ(anthropic["input_schema"], openai["function"]["parameters"]);
}

TEST_F(RecallToolTest, ReturnsTheVerbatimTextUnderItsShortIdAndCountsAccess) {
  const RecallToolOutcome out = RunRecallTool(t_.ns(), R"({"query":"猫叫什么"})", Options());
  EXPECT_TRUE(out.ok);
  EXPECT_EQ(out.query, "猫叫什么");
  ASSERT_GE(out.results, 1);
  EXPECT_NE(out.text.find("我家的猫叫年糕，三岁了，特别怕吸尘器。"), std::string::npos) << out.text;
  EXPECT_TRUE(out.text.rfind("w_", 0) == 0 || out.text.rfind("x_", 0) == 0) << "the result's id first: " << out.text;
  EXPECT_EQ(out.text.find("p1"), std::string::npos) << "no message ids in what the model reads: " << out.text;
  EXPECT_EQ(out.text.find("conversation"), std::string::npos) << out.text;
  EXPECT_EQ(out.sources.front(), (std::pair<std::string, std::string>{"pets", "p1"})) << "they stay in the turn record";
  auto accessed = t_.ns().store().Read([](store::Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare("SELECT SUM(access_count) FROM windows"));
    const int64_t sum = s->Step() ? s->Int(0) : 0;
    s->Reset();
    return sum;
  });
  ASSERT_TRUE(accessed.ok());
  EXPECT_GE(*accessed, 1) << "a recall by the model is a real recall";
}

TEST_F(RecallToolTest, BadArgumentsBecomeAResultTheModelCanReadNotAFailure) {
  RecallToolOutcome out = RunRecallTool(t_.ns(), "not json", Options());
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.text.find("must be a JSON object"), std::string::npos);
  out = RunRecallTool(t_.ns(), R"({"query":""})", Options());
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.text.find("query"), std::string::npos);
  out = RunRecallTool(t_.ns(), R"({"query":"wifi","after":"yesterday-ish"})", Options());
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.text.find("after"), std::string::npos);
}

TEST_F(RecallToolTest, AroundAResultsIdReadsThePassageAgain) {
  const RecallToolOutcome found = RunRecallTool(t_.ns(), R"({"query":"wifi password"})", Options());
  ASSERT_GE(found.results, 1) << found.text;
  const std::string id = found.text.substr(0, found.text.find(' '));
  const RecallToolOutcome around = RunRecallTool(t_.ns(), json{{"around", id}}.dump(), Options());
  EXPECT_TRUE(around.ok) << around.text;
  EXPECT_NE(around.text.find("Kiwi-2048"), std::string::npos) << around.text;
  EXPECT_EQ(around.sources.front(), (std::pair<std::string, std::string>{"wifi", "w1"}));

  RecallToolOutcome bad = RunRecallTool(t_.ns(), R"({"around":"pets"})", Options());
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.text.find("w_<n> or x_<n>"), std::string::npos) << bad.text;
  bad = RunRecallTool(t_.ns(), R"({"around":"w_999999"})", Options());
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.text.find("no passage w_999999"), std::string::npos) << bad.text;
  bad = RunRecallTool(t_.ns(), R"({"around":7})", Options());
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.text.find("around: must be a result's id"), std::string::npos) << bad.text;
}

TEST_F(RecallToolTest, AConversationIdTheModelMadeUpDoesNotFilter) {
  const RecallToolOutcome out = RunRecallTool(t_.ns(), R"({"query":"wifi password","conversation_id":"c_1"})", Options());
  EXPECT_NE(out.text.find("Kiwi-2048"), std::string::npos) << out.text;
}

TEST_F(RecallToolTest, NothingFoundSaysSo) {
  const RecallToolOutcome out = RunRecallTool(t_.ns(), R"({"query":"zebra xylophone quantum"})", Options());
  EXPECT_TRUE(out.ok);
  EXPECT_EQ(out.results, 0);
  EXPECT_EQ(out.text, "No stored memory matches this query.");
}

TEST_F(RecallToolTest, WhatTheClientAlreadySendsIsLeftOut) {
  RecallToolOptions options = Options();
  options.already_seen = [](const memory::RecallResult& r) { return r.conversation_id == "wifi"; };
  const RecallToolOutcome out = RunRecallTool(t_.ns(), R"({"query":"wifi password"})", options);
  EXPECT_EQ(out.text.find("Kiwi-2048"), std::string::npos) << out.text;
}

TEST(RenderRecallResults, CutsAtTheLimitAndSaysHowManyWereLeftOut) {
  std::vector<memory::RecallResult> results(3);
  for (int i = 0; i < 3; ++i) {
    results[i].id = "w_" + std::to_string(i);
    results[i].conversation_id = "c";
    results[i].message_ids = {"m" + std::to_string(i)};
    results[i].text = std::string(100, static_cast<char>('a' + i));
  }
  const std::string two = RenderRecallResults(results, 300);
  EXPECT_NE(two.find(std::string(100, 'b')), std::string::npos);
  EXPECT_EQ(two.find(std::string(100, 'c')), std::string::npos);
  EXPECT_NE(two.find("(1 more results left out for length)"), std::string::npos);
  results[0].text = "年糕" + std::string(500, 'x');
  const std::string cut = RenderRecallResults(results, 50);
  EXPECT_TRUE(text::IsValidUtf8(cut));
  EXPECT_NE(cut.find("年糕"), std::string::npos) << "the best result is cut, never dropped";
  EXPECT_NE(cut.find("(2 more results left out for length)"), std::string::npos);
}

}  // namespace
}  // namespace cilia::gateway
