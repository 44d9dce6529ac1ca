#include "llm/stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>

namespace cilia::llm {
namespace {

using json = nlohmann::json;
using ::testing::ElementsAre;

// ---- recorded upstream streams ------------------------------------------------

std::string AnthropicFrame(const std::string& data) {
  return SseFrame(data, json::parse(data)["type"].get<std::string>());
}

// Thinking, text with an emoji, a tool call with streamed arguments and one
// without any, as an Anthropic upstream sends them.
const std::string kAnthropicToolStream =
    AnthropicFrame(R"({"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":100,"cache_read_input_tokens":900,"output_tokens":1}}})") +
    AnthropicFrame(R"({"type":"ping"})") +
    AnthropicFrame(R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"想一想"}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}})") +
    AnthropicFrame(R"({"type":"content_block_stop","index":0})") +
    AnthropicFrame(R"({"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello 🙂"}})") +
    AnthropicFrame(R"({"type":"content_block_stop","index":1})") +
    AnthropicFrame(R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01","name":"recall","input":{}}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"ca"}})") +
    AnthropicFrame(R"({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"ts\"}"}})") +
    AnthropicFrame(R"({"type":"content_block_stop","index":2})") +
    AnthropicFrame(R"({"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_02","name":"now","input":{}}})") +
    AnthropicFrame(R"({"type":"content_block_stop","index":3})") +
    AnthropicFrame(R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}})") +
    AnthropicFrame(R"({"type":"message_stop"})");

std::string OpenAIChunk(const std::string& choice_or_usage) {
  return SseFrame(R"({"id":"c1","object":"chat.completion.chunk","created":1,"model":"ds",)" + choice_or_usage + "}");
}

std::string Choice(const std::string& delta, const std::string& finish = "null") {
  return R"("choices":[{"index":0,"delta":)" + delta + R"(,"finish_reason":)" + finish + "}]";
}

const std::string kOpenAIUsageChunk = OpenAIChunk(
    R"("choices":[],"usage":{"prompt_tokens":2000,"completion_tokens":50,"total_tokens":2050,"prompt_tokens_details":{"cached_tokens":1024}})");

// DeepSeek-style reasoning, text in two pieces, two tool calls.
const std::string kOpenAIToolStreamBeforeUsage =
    OpenAIChunk(Choice(R"({"role":"assistant","content":null,"reasoning_content":"嗯"})")) +
    OpenAIChunk(Choice(R"({"content":"Hi "})")) + OpenAIChunk(Choice(R"({"content":"there"})")) +
    OpenAIChunk(Choice(R"({"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"recall","arguments":""}}]})")) +
    OpenAIChunk(Choice(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"query\":"}}]})")) +
    OpenAIChunk(Choice(R"({"tool_calls":[{"index":0,"function":{"arguments":"\"x\"}"}}]})")) +
    OpenAIChunk(Choice(R"({"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"weather","arguments":"{}"}}]})")) +
    OpenAIChunk(Choice("{}", R"("tool_calls")"));
const std::string kOpenAIToolStream = kOpenAIToolStreamBeforeUsage + kOpenAIUsageChunk + SseFrame("[DONE]");

// ---- helpers ------------------------------------------------------------------

// Feeds `stream` in pieces of `piece` bytes (0: all at once), then Finish().
std::string FeedAll(StreamReader& reader, std::string_view stream, size_t piece = 0) {
  std::string out;
  if (piece == 0) piece = stream.size() + 1;
  for (size_t at = 0; at < stream.size(); at += piece) out += reader.Feed(stream.substr(at, piece));
  return out + reader.Finish();
}

struct ClientEvent {
  std::string event;
  json data;  // null for "[DONE]"
};

std::vector<ClientEvent> Events(std::string_view bytes) {
  std::vector<ClientEvent> events;
  net::SseParser parser;
  parser.Feed(bytes, [&events](const net::SseEvent& e) {
    events.push_back({e.event, e.data == "[DONE]" ? json() : json::parse(e.data)});
  });
  return events;
}

std::vector<std::string> Types(const std::vector<ClientEvent>& events) {
  std::vector<std::string> types;
  for (const ClientEvent& e : events) types.push_back(e.event);
  return types;
}

// Every way of cutting the stream gives the same client bytes.
void ExpectSameForAnyPieces(const std::function<std::unique_ptr<StreamReader>()>& make, const std::string& stream) {
  auto whole = make();
  const std::string expected = FeedAll(*whole, stream);
  for (size_t piece : {1, 2, 7, 13, 64}) {
    auto reader = make();
    EXPECT_EQ(FeedAll(*reader, stream, piece), expected) << "pieces of " << piece;
    EXPECT_EQ(reader->turn().text, whole->turn().text);
    EXPECT_EQ(reader->turn().tool_calls, whole->turn().tool_calls);
    EXPECT_EQ(reader->turn().usage, whole->turn().usage);
  }
}

void ExpectAnthropicToolTurn(const AssistantTurn& turn) {
  EXPECT_EQ(turn.id, "msg_01");
  EXPECT_EQ(turn.text, "Hello 🙂");
  EXPECT_THAT(turn.thinking, ElementsAre(ThinkingBlock{"想一想", "EqQB", ""}));
  EXPECT_THAT(turn.tool_calls, ElementsAre(ToolCall{"toolu_01", "recall", R"({"query": "cats"})"},
                                           ToolCall{"toolu_02", "now", "{}"}));
  EXPECT_EQ(turn.finish, FinishReason::kToolCalls);
  EXPECT_EQ(turn.usage, (Usage{1012, 30, 900, 100}));
}

void ExpectOpenAIToolTurn(const AssistantTurn& turn) {
  EXPECT_EQ(turn.text, "Hi there");
  EXPECT_EQ(turn.ReasoningText(), "嗯");
  EXPECT_THAT(turn.tool_calls, ElementsAre(ToolCall{"call_a", "recall", R"({"query":"x"})"}, ToolCall{"call_b", "weather", "{}"}));
  EXPECT_EQ(turn.finish, FinishReason::kToolCalls);
  EXPECT_EQ(turn.usage, (Usage{2000, 50, 1024, 0}));
}

// ---- framing ------------------------------------------------------------------

TEST(SseFrameTest, FramesEventNameAndEveryDataLine) {
  EXPECT_EQ(SseFrame("x"), "data: x\n\n");
  EXPECT_EQ(SseFrame("a\nb", "ping"), "event: ping\ndata: a\ndata: b\n\n");
  EXPECT_EQ(SseFrame(""), "data: \n\n");
}

// ---- Anthropic upstream → OpenAI client --------------------------------------

TEST(AnthropicToOpenAIStreamTest, TranslatesThinkingTextAndToolCallsIntoChunks) {
  AnthropicToOpenAIStream stream({.model = "companion", .created = 1700000000, .include_usage = true});
  const auto events = Events(FeedAll(stream, kAnthropicToolStream));
  std::vector<json> deltas;
  for (const ClientEvent& e : events) {
    if (!e.data.is_null() && !e.data["choices"].empty()) deltas.push_back(e.data["choices"][0]["delta"]);
  }
  EXPECT_THAT(deltas, ElementsAre(json::parse(R"({"role":"assistant","content":""})"),
                                  json::parse(R"({"reasoning_content":"想一想"})"),
                                  json::parse(R"({"content":"Hello 🙂"})"),
                                  json::parse(R"({"tool_calls":[{"index":0,"id":"toolu_01","type":"function","function":{"name":"recall","arguments":""}}]})"),
                                  json::parse(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"query\": \"ca"}}]})"),
                                  json::parse(R"({"tool_calls":[{"index":0,"function":{"arguments":"ts\"}"}}]})"),
                                  json::parse(R"({"tool_calls":[{"index":1,"id":"toolu_02","type":"function","function":{"name":"now","arguments":""}}]})"),
                                  json::parse(R"({"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]})"),
                                  json::object()));
  ASSERT_EQ(events.size(), deltas.size() + 2);
  const json& first = events[0].data;
  EXPECT_EQ(first["id"], "msg_01");
  EXPECT_EQ(first["object"], "chat.completion.chunk");
  EXPECT_EQ(first["created"], 1700000000);
  EXPECT_EQ(first["model"], "companion");
  EXPECT_EQ(events[deltas.size() - 1].data["choices"][0]["finish_reason"], "tool_calls");
  const json& usage = events[deltas.size()].data;
  EXPECT_TRUE(usage["choices"].empty());
  EXPECT_EQ(usage["usage"], json::parse(R"({"prompt_tokens":1012,"completion_tokens":30,"total_tokens":1042,"prompt_tokens_details":{"cached_tokens":900}})"));
  EXPECT_TRUE(events.back().data.is_null());  // [DONE]
  EXPECT_TRUE(stream.done());
  ExpectAnthropicToolTurn(stream.turn());
}

TEST(AnthropicToOpenAIStreamTest, GivesTheSameBytesHoweverTheStreamIsCut) {
  ExpectSameForAnyPieces([] { return std::make_unique<AnthropicToOpenAIStream>(OpenAIStreamOptions{.include_usage = true}); },
                         kAnthropicToolStream);
}

TEST(AnthropicToOpenAIStreamTest, SendsNoUsageChunkUnlessTheClientAsked) {
  AnthropicToOpenAIStream stream({.model = "m"});
  const auto events = Events(FeedAll(stream, kAnthropicToolStream));
  for (const ClientEvent& e : events) {
    if (!e.data.is_null()) {
      EXPECT_FALSE(e.data["choices"].empty());
    }
  }
  EXPECT_EQ(stream.turn().usage, (Usage{1012, 30, 900, 100}));  // cilia still sees it
}

TEST(AnthropicToOpenAIStreamTest, AnUpstreamErrorEventBecomesAnErrorChunkThenDone) {
  const std::string stream_bytes =
      kAnthropicToolStream.substr(0, kAnthropicToolStream.find("event: content_block_start")) +
      SseFrame(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", "error") +
      AnthropicFrame(R"({"type":"message_stop"})");
  AnthropicToOpenAIStream stream({});
  const auto events = Events(FeedAll(stream, stream_bytes));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].data, json::parse(R"({"error":{"message":"Overloaded","type":"overloaded_error","code":null}})"));
  EXPECT_TRUE(events[2].data.is_null());
  EXPECT_EQ(stream.upstream_error(), "Overloaded");
}

TEST(AnthropicToOpenAIStreamTest, AStreamCutShortEndsWithAnErrorNotSilence) {
  AnthropicToOpenAIStream stream({});
  std::string out = stream.Feed(kAnthropicToolStream.substr(0, kAnthropicToolStream.size() / 2));
  EXPECT_FALSE(stream.done());
  out += stream.Finish("upstream timed out");
  const auto events = Events(out);
  EXPECT_EQ(events[events.size() - 2].data["error"]["message"], "upstream timed out");
  EXPECT_TRUE(events.back().data.is_null());
  EXPECT_EQ(stream.Finish(), "");
  EXPECT_EQ(stream.Feed(kAnthropicToolStream), "");
}

// ---- OpenAI upstream → Anthropic client --------------------------------------

TEST(OpenAIToAnthropicStreamTest, EmitsTheRealEventSequence) {
  OpenAIToAnthropicStream stream("companion");
  const auto events = Events(FeedAll(stream, kOpenAIToolStream));
  EXPECT_THAT(Types(events),
              ElementsAre("message_start", "content_block_start", "content_block_delta", "content_block_delta",
                          "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
                          "content_block_stop", "content_block_start", "content_block_delta", "content_block_delta",
                          "content_block_stop", "content_block_start", "content_block_delta", "content_block_stop",
                          "message_delta", "message_stop"));
  for (const ClientEvent& e : events) EXPECT_EQ(e.data["type"], e.event);
  EXPECT_EQ(events[0].data["message"]["id"], "c1");
  EXPECT_EQ(events[0].data["message"]["model"], "companion");
  EXPECT_EQ(events[1].data, json::parse(R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})"));
  EXPECT_EQ(events[2].data["delta"], json::parse(R"({"type":"thinking_delta","thinking":"嗯"})"));
  EXPECT_EQ(events[3].data["delta"]["type"], "signature_delta");
  EXPECT_EQ(events[5].data["content_block"], json::parse(R"({"type":"text","text":""})"));
  EXPECT_EQ(events[6].data["delta"], json::parse(R"({"type":"text_delta","text":"Hi "})"));
  EXPECT_EQ(events[9].data, json::parse(R"({"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_a","name":"recall","input":{}}})"));
  EXPECT_EQ(events[10].data["delta"], json::parse(R"({"type":"input_json_delta","partial_json":"{\"query\":"})"));
  EXPECT_EQ(events[11].data["delta"]["partial_json"], "\"x\"}");
  EXPECT_EQ(events[13].data["content_block"]["id"], "call_b");
  EXPECT_EQ(events[13].data["index"], 3);
  EXPECT_EQ(events[14].data["delta"]["partial_json"], "{}");
  EXPECT_EQ(events[16].data, json::parse(R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},
    "usage":{"input_tokens":976,"output_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":1024}})"));
  ExpectOpenAIToolTurn(stream.turn());
}

TEST(OpenAIToAnthropicStreamTest, GivesTheSameBytesHoweverTheStreamIsCut) {
  ExpectSameForAnyPieces([] { return std::make_unique<OpenAIToAnthropicStream>("m"); }, kOpenAIToolStream);
}

TEST(OpenAIToAnthropicStreamTest, AFinishedAnswerWithoutDoneStillClosesNormally) {
  OpenAIToAnthropicStream stream("m");
  const auto events = Events(FeedAll(stream, OpenAIChunk(Choice(R"({"content":"ok"})", R"("stop")"))));
  EXPECT_THAT(Types(events), ElementsAre("message_start", "content_block_start", "content_block_delta",
                                         "content_block_stop", "message_delta", "message_stop"));
  EXPECT_EQ(events[4].data["delta"]["stop_reason"], "end_turn");
}

TEST(OpenAIToAnthropicStreamTest, ErrorsAndCutsBecomeAnErrorEvent) {
  OpenAIToAnthropicStream failed("m");
  auto events = Events(FeedAll(failed, OpenAIChunk(Choice(R"({"content":"par"})")) +
                                       SseFrame(R"({"error":{"message":"rate limited","type":"rate_limit_error"}})")));
  EXPECT_EQ(events.back().event, "error");
  EXPECT_EQ(events.back().data, json::parse(R"({"type":"error","error":{"type":"rate_limit_error","message":"rate limited"}})"));
  EXPECT_EQ(failed.upstream_error(), "rate limited");

  OpenAIToAnthropicStream cut("m");
  events = Events(FeedAll(cut, OpenAIChunk(Choice(R"({"content":"par"})"))));
  EXPECT_EQ(events.back().event, "error");
  EXPECT_EQ(cut.turn().text, "par");
}

TEST(OpenAIToAnthropicStreamTest, AnEmptyStreamStillGivesAWholeMessage) {
  OpenAIToAnthropicStream stream("m");
  EXPECT_THAT(Types(Events(FeedAll(stream, SseFrame("[DONE]")))), ElementsAre("message_start", "message_delta", "message_stop"));
}

// ---- same format on both sides -----------------------------------------------

TEST(OpenAIStreamObserverTest, ForwardsEveryChunkUnchangedWhenTheClientAskedForUsage) {
  OpenAIStreamObserver observer(true);
  EXPECT_EQ(FeedAll(observer, kOpenAIToolStream), kOpenAIToolStream);
  EXPECT_TRUE(observer.done());
  ExpectOpenAIToolTurn(observer.turn());
  EXPECT_TRUE(observer.turn().CalledTool("recall"));
}

TEST(OpenAIStreamObserverTest, DropsTheUsageChunkForAClientThatDidNotAsk) {
  OpenAIStreamObserver observer(false);
  EXPECT_EQ(FeedAll(observer, kOpenAIToolStream), kOpenAIToolStreamBeforeUsage + SseFrame("[DONE]"));
  EXPECT_EQ(observer.turn().usage, (Usage{2000, 50, 1024, 0}));

  // Some servers put usage on the last chunk with choices: the usage goes, the chunk stays.
  OpenAIStreamObserver combined(false);
  const auto events = Events(FeedAll(combined, OpenAIChunk(Choice(R"({"content":"x"})", R"("stop")") +
                                                       R"(,"usage":{"prompt_tokens":3,"completion_tokens":1})") +
                                               SseFrame("[DONE]")));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_FALSE(events[0].data.contains("usage"));
  EXPECT_EQ(events[0].data["choices"][0]["delta"]["content"], "x");
  EXPECT_EQ(combined.turn().usage, (Usage{3, 1, 0, 0}));
}

TEST(OpenAIStreamObserverTest, GivesTheSameBytesHoweverTheStreamIsCut) {
  ExpectSameForAnyPieces([] { return std::make_unique<OpenAIStreamObserver>(false); }, kOpenAIToolStream);
}

TEST(OpenAIStreamObserverTest, ACutStreamEndsWithAnErrorAndAFinishedOneWithDone) {
  OpenAIStreamObserver cut(true);
  auto events = Events(FeedAll(cut, OpenAIChunk(Choice(R"({"content":"x"})"))));
  EXPECT_TRUE(events[events.size() - 2].data.contains("error"));
  EXPECT_TRUE(events.back().data.is_null());

  OpenAIStreamObserver finished(true);
  events = Events(FeedAll(finished, OpenAIChunk(Choice(R"({"content":"x"})", R"("length")"))));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_TRUE(events[1].data.is_null());
  EXPECT_EQ(finished.turn().finish, FinishReason::kLength);
}

TEST(AnthropicStreamObserverTest, ForwardsEveryEventUnchangedAndKeepsTheTurn) {
  AnthropicStreamObserver observer;
  EXPECT_EQ(FeedAll(observer, kAnthropicToolStream), kAnthropicToolStream);
  EXPECT_TRUE(observer.done());
  ExpectAnthropicToolTurn(observer.turn());
}

TEST(AnthropicStreamObserverTest, GivesTheSameBytesHoweverTheStreamIsCut) {
  ExpectSameForAnyPieces([] { return std::make_unique<AnthropicStreamObserver>(); }, kAnthropicToolStream);
}

TEST(AnthropicStreamObserverTest, NamesEventsThatCameWithoutAnEventLineAndClosesACutStreamWithAnError) {
  AnthropicStreamObserver observer;
  const std::string out = FeedAll(observer, SseFrame(R"({"type":"message_start","message":{"id":"m","usage":{"input_tokens":4}}})"));
  const auto events = Events(out);
  EXPECT_THAT(Types(events), ElementsAre("message_start", "error"));
  EXPECT_EQ(events[1].data["error"]["type"], "api_error");
  EXPECT_EQ(observer.turn().usage.input, 4);
}

TEST(StreamTest, AnEventWithoutJsonIsHarmless) {
  AnthropicToOpenAIStream a({});
  OpenAIToAnthropicStream b("m");
  AnthropicStreamObserver c;
  OpenAIStreamObserver d(false);
  for (StreamReader* reader : std::initializer_list<StreamReader*>{&a, &b, &c, &d}) {
    EXPECT_NO_THROW(reader->Feed("data: {not json\n\ndata: \xff\xfe\n\n"));
    EXPECT_FALSE(reader->done());
  }
}

}  // namespace
}  // namespace cilia::llm
