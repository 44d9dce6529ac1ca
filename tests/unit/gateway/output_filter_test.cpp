#include "gateway/output_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/stream.h"
#include "net/sse.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

std::shared_ptr<const OutputFilterOptions> Options(bool strip, std::vector<RewriteRule> rules = {}) {
  return std::make_shared<const OutputFilterOptions>(OutputFilterOptions{strip, std::move(rules)});
}

const std::vector<RewriteRule> kRules = {{"Claude", "Cilia"}, {"Clau", "X"}, {"ab", "b"}, {"b", "a"}, {"思考", "想"}};

// The text fed in two pieces cut at every byte, and byte by byte.
void ExpectSameAtEveryCut(const std::shared_ptr<const OutputFilterOptions>& options, const std::string& text) {
  const std::string whole = FilterText(options, text);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    TextFilter filter(options);
    std::string out = filter.Feed(text.substr(0, cut));
    out += filter.Feed(text.substr(cut));
    out += filter.Finish();
    EXPECT_EQ(out, whole) << "cut at " << cut << " of " << text;
  }
  TextFilter bytes(options);
  std::string out;
  for (char c : text) out += bytes.Feed(std::string(1, c));
  out += bytes.Finish();
  EXPECT_EQ(out, whole) << "byte by byte: " << text;
}

TEST(TextFilterTest, StripsThinkingAndTheWhitespaceAfterIt) {
  auto strip = Options(true);
  EXPECT_EQ(FilterText(strip, "<think>plan the answer</think>\n\n  Hello"), "Hello");
  EXPECT_EQ(FilterText(strip, "A <think>x</think> B"), "A B");
  EXPECT_EQ(FilterText(strip, "one<think>a</think>two<think>b</think>three"), "onetwothree");
  EXPECT_EQ(FilterText(strip, "<think></think>"), "");
}

TEST(TextFilterTest, AnUnclosedThinkHidesTheRest) {
  EXPECT_EQ(FilterText(Options(true), "Hi <think>never closed </thi"), "Hi ");
}

TEST(TextFilterTest, WithoutStrippingThinkingPasses) {
  EXPECT_EQ(FilterText(Options(false, {{"x", "y"}}), "<think>x</think>z"), "<think>y</think>z");
  EXPECT_EQ(FilterText(Options(true), "a stray </think> stays"), "a stray </think> stays");
}

TEST(TextFilterTest, TheLongestRuleWinsAndOutputIsNeverRescanned) {
  auto rules = Options(false, kRules);
  EXPECT_EQ(FilterText(rules, "Claude and Claus"), "Cilia and Xs");
  EXPECT_EQ(FilterText(rules, "abb"), "ba");  // "ab" -> "b", then "b" -> "a"; the "b" written is not read again
  EXPECT_EQ(FilterText(rules, "我在思考。"), "我在想。");
}

TEST(TextFilterTest, HoldsBackOnlyAPossiblePartialMatch) {
  TextFilter filter(Options(true, {{"world", "W"}}));
  EXPECT_EQ(filter.Feed("Hello wor"), "Hello ");
  EXPECT_EQ(filter.Feed("ld! <thi"), "W! ");
  EXPECT_EQ(filter.Feed("nk>secret</th"), "");
  EXPECT_EQ(filter.Feed("ink> end wo"), "end ");
  EXPECT_EQ(filter.Finish(), "wo");
}

TEST(TextFilterTest, AHeldPartialTagIsLetOutAtTheEnd) {
  TextFilter filter(Options(true));
  EXPECT_EQ(filter.Feed("x <thi"), "x ");
  EXPECT_EQ(filter.Finish(), "<thi");
}

TEST(TextFilterTest, OwnsItsOptions) {
  // The options it was made from are gone when it runs.
  TextFilter filter = [] { return TextFilter(Options(true, {{"a", "b"}})); }();
  EXPECT_EQ(filter.Feed("a<think>a</think>a"), "bb");
  std::unique_ptr<StreamFilter> stream = [] {
    OutputFilterOptions options{true, {{"a", "b"}}};
    return StreamFilter::Create(Wire::kOpenAI, options);
  }();
  EXPECT_THAT(stream->Feed(llm::SseFrame(R"({"choices":[{"index":0,"delta":{"content":"a"}}]})")), ::testing::HasSubstr("\"b\""));
}

TEST(TextFilterTest, TheResultDoesNotDependOnWhereTheTextIsCut) {
  auto both = Options(true, kRules);
  for (const std::string text :
       {"<think>plan</think>\n\nClaude said ab", "Clau<think>x</thinkk</think>   Claude", "abababb", "<thin<think>y</think>",
        "no match at all", "思考<think>思考</think>思考", "ends in Clau", "ends thinking <think>and never stops </th",
        "<<think>>></think> >", "</think><think></think></think>"}) {
    ExpectSameAtEveryCut(both, text);
    ExpectSameAtEveryCut(Options(true), text);
    ExpectSameAtEveryCut(Options(false, kRules), text);
  }
}

TEST(OutputFilterOptionsTest, FollowsTheSwitches) {
  GatewayConfig gateway;
  gateway.rewrite = {{"a", "b"}};
  FeaturesConfig features;
  EXPECT_FALSE(features.strip_reasoning);
  EXPECT_TRUE(features.rewrite);
  OutputFilterOptions options = OutputFilterOptions::For(features, gateway);
  EXPECT_TRUE(options.active());
  EXPECT_EQ(options.rewrite, gateway.rewrite);
  features.rewrite = false;
  EXPECT_FALSE(OutputFilterOptions::For(features, gateway).active());
  features.strip_reasoning = true;
  EXPECT_TRUE(OutputFilterOptions::For(features, gateway).strip_reasoning);
  EXPECT_TRUE(OutputFilterOptions::For(features, gateway).rewrite.empty());
}

// ---- Whole replies ----

TEST(FilterReplyTest, ChatDropsReasoningFieldsAndFiltersContent) {
  json reply = {{"choices", json::array({{{"index", 0},
                                          {"message",
                                           {{"role", "assistant"},
                                            {"content", "<think>hm</think>Claude here"},
                                            {"reasoning_content", "hm"},
                                            {"reasoning", "hm"},
                                            {"reasoning_details", json::array()}}}}})}};
  json out = FilterReply(reply, Wire::kOpenAI, *Options(true, kRules));
  EXPECT_EQ(out["choices"][0]["message"], json({{"role", "assistant"}, {"content", "Cilia here"}}));
  json passed = FilterReply(reply, Wire::kOpenAI, *Options(false));
  EXPECT_EQ(passed, reply);
}

TEST(FilterReplyTest, AnthropicDropsThinkingBlocksAndTextLeftEmpty) {
  json reply = {{"type", "message"},
                {"content", json::array({{{"type", "thinking"}, {"thinking", "hm"}, {"signature", "s"}},
                                         {{"type", "redacted_thinking"}, {"data", "x"}},
                                         {{"type", "text"}, {"text", "<think>only this</think>"}},
                                         {{"type", "text"}, {"text", "Claude"}},
                                         {{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", json::object()}}})}};
  json out = FilterReply(reply, Wire::kAnthropic, *Options(true, kRules));
  EXPECT_EQ(out["content"], json::array({{{"type", "text"}, {"text", "Cilia"}},
                                         {{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", json::object()}}}));
  json kept = FilterReply(reply, Wire::kAnthropic, *Options(false, kRules));
  EXPECT_EQ(kept["content"].size(), 5u);
  EXPECT_EQ(kept["content"][0]["type"], "thinking");
}

TEST(FilterReplyTest, ResponsesDropsReasoningItems) {
  json reply = {{"object", "response"},
                {"output", json::array({{{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}},
                                        {{"type", "message"},
                                         {"id", "msg_1"},
                                         {"content", json::array({{{"type", "output_text"}, {"text", "<think>a</think>Claude"}}})}}})}};
  json out = FilterReply(reply, Wire::kResponses, *Options(true, kRules));
  ASSERT_EQ(out["output"].size(), 1u);
  EXPECT_EQ(out["output"][0]["content"][0]["text"], "Cilia");
}

// ---- Streams ----

// A JSON string carries whole code points: an upstream's text pieces are cut
// between them (TextFilter itself is cut at every byte above).
bool IsInsideCodePoint(const std::string& text, size_t cut) {
  return cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80;
}

struct Event {
  std::string type;
  json data;
};

std::vector<Event> Events(const std::string& sse) {
  std::vector<Event> events;
  net::SseParser parser;
  parser.Feed(sse, [&](const net::SseEvent& e) { events.push_back({e.event, json::parse(e.data, nullptr, false)}); });
  return events;
}

// The stream fed whole, in two pieces cut at every byte, and byte by byte:
// the same bytes out every time. Returns them.
std::string FilterStream(Wire wire, const OutputFilterOptions& options, const std::string& sse) {
  auto whole = StreamFilter::Create(wire, options);
  std::string expected = whole->Feed(sse);
  expected += whole->Finish();
  for (size_t cut = 0; cut <= sse.size(); ++cut) {
    auto filter = StreamFilter::Create(wire, options);
    std::string out = filter->Feed(sse.substr(0, cut));
    out += filter->Feed(sse.substr(cut));
    out += filter->Finish();
    EXPECT_EQ(out, expected) << "cut at " << cut;
    EXPECT_EQ(filter->visible_text(), whole->visible_text());
  }
  auto bytes = StreamFilter::Create(wire, options);
  std::string out;
  for (char c : sse) out += bytes->Feed(std::string(1, c));
  out += bytes->Finish();
  EXPECT_EQ(out, expected) << "byte by byte";
  return expected;
}

std::string Chat(const json& delta, const json& finish = nullptr) {
  return llm::SseFrame(json({{"id", "c1"}, {"object", "chat.completion.chunk"}, {"model", "m"},
                             {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}})}})
                           .dump());
}

// A chat stream whose content is `pieces`, after a reasoning_content chunk.
std::string ChatStream(const std::vector<std::string>& pieces) {
  std::string sse = Chat({{"role", "assistant"}, {"content", ""}});
  sse += Chat({{"reasoning_content", "let me think"}});
  for (const std::string& piece : pieces) sse += Chat({{"content", piece}});
  sse += Chat(json::object(), "stop");
  sse += llm::SseFrame(json({{"id", "c1"}, {"choices", json::array()}, {"usage", {{"prompt_tokens", 3}}}}).dump());
  sse += llm::SseFrame("[DONE]");
  return sse;
}

std::string ChatContent(const std::vector<Event>& events) {
  std::string text;
  for (const Event& e : events) {
    if (!e.data.is_object()) continue;
    for (const json& choice : e.data.value("choices", json::array())) {
      if (choice["delta"].contains("content")) text += choice["delta"]["content"].get<std::string>();
    }
  }
  return text;
}

TEST(StreamFilterTest, ChatStreamLosesReasoningAndThinkingAndEndsAsBefore) {
  const OutputFilterOptions options{true, kRules};
  const std::string out =
      FilterStream(Wire::kOpenAI, options, ChatStream({"<thi", "nk>plan</think>\n", "Hello, Cla", "ude"}));
  const std::vector<Event> events = Events(out);
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("reasoning")));
  EXPECT_EQ(ChatContent(events), "Hello, Cilia");
  ASSERT_GE(events.size(), 3u);
  EXPECT_TRUE(events.back().data.is_discarded());  // [DONE] is not JSON
  EXPECT_THAT(out, ::testing::HasSubstr("\"finish_reason\":\"stop\""));
  EXPECT_THAT(out, ::testing::HasSubstr("\"usage\""));
  // The held "Cla" + "ude" came out before the finishing chunk.
  EXPECT_LT(out.find("Cilia"), out.find("\"finish_reason\":\"stop\""));
}

TEST(StreamFilterTest, ChatStreamPassesUntouchedWhenNothingIsOn) {
  const std::string sse = ChatStream({"<think>x</think>y"});
  auto filter = StreamFilter::Create(Wire::kOpenAI, OutputFilterOptions{});
  EXPECT_FALSE(filter->active());
  EXPECT_EQ(filter->Feed(sse), sse);
  EXPECT_EQ(filter->Finish(), "");
}

TEST(StreamFilterTest, ChatTextCutAtEveryByteReadsAsTheWholeTextFiltered) {
  const OutputFilterOptions options{true, kRules};
  const auto shared = std::make_shared<const OutputFilterOptions>(options);
  const std::string text = "<think>a b</think>  Claude: ab 思考";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    if (IsInsideCodePoint(text, cut)) continue;
    auto filter = StreamFilter::Create(Wire::kOpenAI, options);
    std::string out = filter->Feed(ChatStream({text.substr(0, cut), text.substr(cut)}));
    out += filter->Finish();
    EXPECT_EQ(ChatContent(Events(out)), FilterText(shared, text)) << cut;
    EXPECT_EQ(filter->visible_text(), FilterText(shared, text)) << cut;
  }
}

std::string Anthropic(const json& data) { return llm::SseFrame(data.dump(), data["type"].get<std::string>()); }

std::string MessagesStream(const std::vector<std::string>& pieces) {
  std::string sse = Anthropic({{"type", "message_start"}, {"message", {{"id", "msg"}, {"content", json::array()}}}});
  sse += Anthropic({{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "thinking"}, {"thinking", ""}}}});
  sse += Anthropic({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "thinking_delta"}, {"thinking", "hm"}}}});
  sse += Anthropic({{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "signature_delta"}, {"signature", "s"}}}});
  sse += Anthropic({{"type", "content_block_stop"}, {"index", 0}});
  sse += Anthropic({{"type", "content_block_start"}, {"index", 1}, {"content_block", {{"type", "text"}, {"text", ""}}}});
  for (const std::string& piece : pieces) {
    sse += Anthropic({{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "text_delta"}, {"text", piece}}}});
  }
  sse += Anthropic({{"type", "content_block_stop"}, {"index", 1}});
  // A text block that is nothing but thinking.
  sse += Anthropic({{"type", "content_block_start"}, {"index", 2}, {"content_block", {{"type", "text"}, {"text", ""}}}});
  sse += Anthropic({{"type", "content_block_delta"}, {"index", 2}, {"delta", {{"type", "text_delta"}, {"text", "<think>x</think>"}}}});
  sse += Anthropic({{"type", "content_block_stop"}, {"index", 2}});
  sse += Anthropic({{"type", "content_block_start"}, {"index", 3},
                    {"content_block", {{"type", "tool_use"}, {"id", "t"}, {"name", "f"}, {"input", json::object()}}}});
  sse += Anthropic({{"type", "content_block_delta"}, {"index", 3}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "{}"}}}});
  sse += Anthropic({{"type", "content_block_stop"}, {"index", 3}});
  sse += Anthropic({{"type", "message_delta"}, {"delta", {{"stop_reason", "tool_use"}}}, {"usage", {{"output_tokens", 5}}}});
  sse += Anthropic({{"type", "message_stop"}});
  return sse;
}

std::string MessagesText(const std::vector<Event>& events) {
  std::string text;
  for (const Event& e : events) {
    if (e.type == "content_block_delta" && e.data["delta"]["type"] == "text_delta") text += e.data["delta"]["text"];
  }
  return text;
}

TEST(StreamFilterTest, MessagesStreamLosesThinkingBlocksAndRenumbersTheRest) {
  const OutputFilterOptions options{true, kRules};
  const std::string out = FilterStream(Wire::kAnthropic, options, MessagesStream({"<think>p</thi", "nk> Hi Clau", "de"}));
  const std::vector<Event> events = Events(out);
  EXPECT_EQ(MessagesText(events), "Hi Cilia");
  std::vector<std::string> starts;
  for (const Event& e : events) {
    if (e.type == "content_block_start") {
      starts.push_back(e.data["content_block"]["type"].get<std::string>() + std::to_string(e.data["index"].get<int>()));
    }
    if (e.data.contains("index")) EXPECT_LE(e.data["index"].get<int>(), 1) << e.data.dump();
  }
  EXPECT_THAT(starts, ::testing::ElementsAre("text0", "tool_use1"));
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("thinking")));
  EXPECT_EQ(events.front().type, "message_start");
  EXPECT_EQ(events.back().type, "message_stop");
}

TEST(StreamFilterTest, MessagesStreamKeepsThinkingWhenNotStripping) {
  const OutputFilterOptions options{false, kRules};
  const std::string out = FilterStream(Wire::kAnthropic, options, MessagesStream({"Clau", "de"}));
  const std::vector<Event> events = Events(out);
  std::vector<int> indexes;
  for (const Event& e : events) {
    if (e.type == "content_block_start") indexes.push_back(e.data["index"]);
  }
  EXPECT_THAT(indexes, ::testing::ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(MessagesText(events), "Cilia<think>x</think>");
}

TEST(StreamFilterTest, MessagesTextCutAtEveryByteReadsAsTheWholeTextFiltered) {
  const OutputFilterOptions options{true, kRules};
  const auto shared = std::make_shared<const OutputFilterOptions>(options);
  const std::string text = "<think>a b</think>  Claude: ab 思考";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    if (IsInsideCodePoint(text, cut)) continue;
    auto filter = StreamFilter::Create(Wire::kAnthropic, options);
    std::string out = filter->Feed(MessagesStream({text.substr(0, cut), text.substr(cut)}));
    out += filter->Finish();
    EXPECT_EQ(MessagesText(Events(out)), FilterText(shared, text)) << cut;
    EXPECT_EQ(filter->visible_text(), FilterText(shared, text)) << cut;
  }
}

std::string ResponsesEvent(json data, int64_t& sequence) {
  data["sequence_number"] = sequence++;
  return llm::SseFrame(data.dump(), data["type"].get<std::string>());
}

std::string ResponsesStream(const std::vector<std::string>& pieces) {
  int64_t seq = 0;
  std::string text;
  for (const std::string& piece : pieces) text += piece;
  const json reasoning = {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}};
  const json message = {{"type", "message"},
                        {"id", "msg_1"},
                        {"role", "assistant"},
                        {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}};
  std::string sse = ResponsesEvent({{"type", "response.created"}, {"response", {{"id", "r"}, {"output", json::array()}}}}, seq);
  sse += ResponsesEvent({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", reasoning}}, seq);
  sse += ResponsesEvent({{"type", "response.reasoning_summary_text.delta"}, {"output_index", 0}, {"item_id", "rs_1"},
                         {"summary_index", 0}, {"delta", "hm"}},
                        seq);
  sse += ResponsesEvent({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", reasoning}}, seq);
  json empty_message = message;
  empty_message["content"] = json::array();
  sse += ResponsesEvent({{"type", "response.output_item.added"}, {"output_index", 1}, {"item", empty_message}}, seq);
  sse += ResponsesEvent({{"type", "response.content_part.added"}, {"output_index", 1}, {"item_id", "msg_1"},
                         {"content_index", 0}, {"part", {{"type", "output_text"}, {"text", ""}}}},
                        seq);
  for (const std::string& piece : pieces) {
    sse += ResponsesEvent({{"type", "response.output_text.delta"}, {"output_index", 1}, {"item_id", "msg_1"},
                           {"content_index", 0}, {"delta", piece}},
                          seq);
  }
  sse += ResponsesEvent({{"type", "response.output_text.done"}, {"output_index", 1}, {"item_id", "msg_1"},
                         {"content_index", 0}, {"text", text}},
                        seq);
  sse += ResponsesEvent({{"type", "response.content_part.done"}, {"output_index", 1}, {"item_id", "msg_1"},
                         {"content_index", 0}, {"part", {{"type", "output_text"}, {"text", text}}}},
                        seq);
  sse += ResponsesEvent({{"type", "response.output_item.done"}, {"output_index", 1}, {"item", message}}, seq);
  sse += ResponsesEvent(
      {{"type", "response.completed"}, {"response", {{"id", "r"}, {"output", json::array({reasoning, message})}}}}, seq);
  return sse;
}

std::string ResponsesText(const std::vector<Event>& events) {
  std::string text;
  for (const Event& e : events) {
    if (e.type == "response.output_text.delta") text += e.data["delta"];
  }
  return text;
}

TEST(StreamFilterTest, ResponsesStreamLosesReasoningItemsAndCountsOn) {
  const OutputFilterOptions options{true, kRules};
  const std::string out = FilterStream(Wire::kResponses, options, ResponsesStream({"<think>x</think>Hi Cl", "aude"}));
  const std::vector<Event> events = Events(out);
  EXPECT_EQ(ResponsesText(events), "Hi Cilia");
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].data["sequence_number"], i) << events[i].data.dump();
    if (events[i].data.contains("output_index")) EXPECT_EQ(events[i].data["output_index"], 0);
  }
  EXPECT_THAT(out, ::testing::Not(::testing::HasSubstr("reasoning")));
  const Event& completed = events.back();
  EXPECT_EQ(completed.type, "response.completed");
  ASSERT_EQ(completed.data["response"]["output"].size(), 1u);
  EXPECT_EQ(completed.data["response"]["output"][0]["content"][0]["text"], "Hi Cilia");
  for (const Event& e : events) {
    if (e.type == "response.output_text.done") EXPECT_EQ(e.data["text"], "Hi Cilia");
    if (e.type == "response.content_part.done") EXPECT_EQ(e.data["part"]["text"], "Hi Cilia");
  }
}

TEST(StreamFilterTest, ResponsesTextCutAtEveryByteReadsAsTheWholeTextFiltered) {
  const OutputFilterOptions options{true, kRules};
  const auto shared = std::make_shared<const OutputFilterOptions>(options);
  const std::string text = "<think>a b</think>  Claude: ab 思考";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    if (IsInsideCodePoint(text, cut)) continue;
    auto filter = StreamFilter::Create(Wire::kResponses, options);
    std::string out = filter->Feed(ResponsesStream({text.substr(0, cut), text.substr(cut)}));
    out += filter->Finish();
    EXPECT_EQ(ResponsesText(Events(out)), FilterText(shared, text)) << cut;
    EXPECT_EQ(filter->visible_text(), FilterText(shared, text)) << cut;
  }
}

TEST(StreamFilterTest, HeldTextIsLetOutAtTheEndOfAStreamCutShort) {
  const OutputFilterOptions options{false, {{"Claude", "Cilia"}}};
  auto filter = StreamFilter::Create(Wire::kOpenAI, options);
  std::string out = filter->Feed(Chat({{"content", "bye Clau"}}));
  EXPECT_EQ(ChatContent(Events(out)), "bye ");
  out += filter->Finish();
  EXPECT_EQ(ChatContent(Events(out)), "bye Clau");
  EXPECT_EQ(filter->visible_text(), "bye Clau");
}

}  // namespace
}  // namespace cilia::gateway
