#include "llm/responses_stream.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <vector>

namespace cilia::llm {
namespace {

using json = nlohmann::json;

std::string Chunk(const std::string& delta, const std::string& finish = "null") {
  return SseFrame(R"({"id":"c1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":)" + delta +
                  R"(,"finish_reason":)" + finish + "}]}");
}

// Reasoning, text with an emoji, two tool calls with streamed arguments, then
// usage: what the gateway's Chat Completions stream holds for a turn.
const std::string kChatStream =
    Chunk(R"({"role":"assistant","content":""})") + Chunk(R"({"reasoning_content":"想"})") +
    Chunk(R"({"reasoning_content":"一想"})") + Chunk(R"({"content":"Hello "})") + Chunk(R"({"content":"🙂"})") +
    Chunk(R"({"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]})") +
    Chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]})") +
    Chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]})") +
    Chunk(R"({"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"now","arguments":"{}"}}]})") +
    Chunk("{}", R"("tool_calls")") +
    SseFrame(R"({"id":"c1","choices":[],"usage":{"prompt_tokens":200,"completion_tokens":20,"prompt_tokens_details":{"cached_tokens":150},"completion_tokens_details":{"reasoning_tokens":7}}})") +
    SseFrame("[DONE]");

struct Event {
  std::string name;
  json data;
};

std::vector<Event> Events(std::string_view bytes) {
  std::vector<Event> events;
  net::SseParser parser;
  parser.Feed(bytes, [&](const net::SseEvent& e) { events.push_back({e.event, json::parse(e.data)}); });
  return events;
}

std::vector<std::string> Names(const std::vector<Event>& events) {
  std::vector<std::string> names;
  for (const Event& e : events) names.push_back(e.name);
  return names;
}

const json kRequest = {{"model", "companion"}, {"instructions", "be brief"}, {"metadata", {{"k", "v"}}}, {"stream", true}};

std::unique_ptr<ChatToResponsesStream> ToResponses() {
  return std::make_unique<ChatToResponsesStream>(kRequest, ResponseHeader{"resp_abc", 1780000000, "companion"});
}

// Feeds the pieces in order, then Finish() (the operands of + have no order).
std::string FeedAll(StreamReader& reader, std::initializer_list<std::string_view> pieces) {
  std::string out;
  for (std::string_view piece : pieces) out += reader.Feed(piece);
  out += reader.Finish();
  return out;
}

// Cut at every byte, in two pieces: the same events as the whole.
void ExpectSameAtEveryCut(const std::function<std::unique_ptr<StreamReader>()>& make, const std::string& stream) {
  auto whole = make();
  const std::string expected = FeedAll(*whole, {stream});
  ASSERT_FALSE(expected.empty());
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    auto reader = make();
    const std::string got = FeedAll(*reader, {std::string_view(stream).substr(0, cut), std::string_view(stream).substr(cut)});
    ASSERT_EQ(got, expected) << "cut at byte " << cut;
    ASSERT_EQ(reader->turn().tool_calls, whole->turn().tool_calls);
  }
}

TEST(ChatToResponsesStreamTest, EveryOutputItemGetsItsTypedEventsInOrder) {
  auto stream = ToResponses();
  const auto events = Events(FeedAll(*stream, {kChatStream}));
  const std::vector<std::string> expected = {
      "response.created", "response.in_progress",
      "response.output_item.added", "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
      "response.output_item.added", "response.content_part.added",
      "response.output_text.delta", "response.output_text.delta",
      "response.output_text.done", "response.content_part.done", "response.output_item.done",
      "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
      "response.output_item.added", "response.function_call_arguments.delta",
      "response.function_call_arguments.done", "response.output_item.done",
      "response.function_call_arguments.done", "response.output_item.done",
      "response.completed"};
  EXPECT_EQ(Names(events), expected);
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].data["type"], events[i].name);
    EXPECT_EQ(events[i].data["sequence_number"], static_cast<int64_t>(i));
  }
  const json& created = events[0].data["response"];
  EXPECT_EQ(created["id"], "resp_abc");
  EXPECT_EQ(created["object"], "response");
  EXPECT_EQ(created["status"], "in_progress");
  EXPECT_EQ(created["model"], "companion");
  EXPECT_EQ(created["instructions"], "be brief");
  EXPECT_EQ(created["metadata"]["k"], "v");
  EXPECT_EQ(events[11].data["delta"], "Hello ");
  EXPECT_EQ(events[11].data["output_index"], 1);
  EXPECT_EQ(events[11].data["content_index"], 0);
  EXPECT_EQ(events[16].data["item"]["type"], "function_call");
  EXPECT_EQ(events[16].data["item"]["call_id"], "call_a");
  EXPECT_EQ(events[16].data["item"]["name"], "weather");
  EXPECT_EQ(events[17].data["delta"], "{\"city\":");
  EXPECT_EQ(events[21].data["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(events[23].data["arguments"], "{}");

  const json& done = events.back().data["response"];
  EXPECT_EQ(done["status"], "completed");
  ASSERT_EQ(done["output"].size(), 4u);
  EXPECT_EQ(done["output"][0]["type"], "reasoning");
  EXPECT_EQ(done["output"][0]["summary"][0]["text"], "想一想");
  EXPECT_EQ(done["output"][1]["content"][0]["text"], "Hello 🙂");
  EXPECT_EQ(done["output"][2]["arguments"], R"({"city":"Paris"})");
  EXPECT_EQ(done["output"][3]["name"], "now");
  EXPECT_EQ(done["usage"]["input_tokens"], 200);
  EXPECT_EQ(done["usage"]["input_tokens_details"]["cached_tokens"], 150);
  EXPECT_EQ(done["usage"]["output_tokens"], 20);
  EXPECT_EQ(done["usage"]["output_tokens_details"]["reasoning_tokens"], 7);
  EXPECT_EQ(done["usage"]["total_tokens"], 220);
  EXPECT_EQ(stream->response(), done);
  EXPECT_TRUE(stream->done());
}

TEST(ChatToResponsesStreamTest, GivesTheSameEventsWhereverTheStreamIsCut) {
  ExpectSameAtEveryCut([] { return ToResponses(); }, kChatStream);
}

TEST(ChatToResponsesStreamTest, ALengthFinishIsAnIncompleteResponse) {
  auto stream = ToResponses();
  const auto events = Events(stream->Feed(Chunk(R"({"content":"cut"})") + Chunk("{}", R"("length")") + SseFrame("[DONE]")));
  EXPECT_EQ(events.back().name, "response.incomplete");
  EXPECT_EQ(events.back().data["response"]["status"], "incomplete");
  EXPECT_EQ(events.back().data["response"]["incomplete_details"]["reason"], "max_output_tokens");
}

TEST(ChatToResponsesStreamTest, AnErrorChunkOrAStreamCutShortIsAFailedResponse) {
  auto errored = ToResponses();
  const auto events = Events(errored->Feed(Chunk(R"({"content":"par"})") +
                                           SseFrame(R"({"error":{"message":"overloaded","type":"rate_limit_error"}})") +
                                           SseFrame("[DONE]")));
  EXPECT_EQ(events.back().name, "response.failed");
  EXPECT_EQ(events.back().data["response"]["status"], "failed");
  EXPECT_EQ(events.back().data["response"]["error"]["code"], "rate_limit_exceeded");
  EXPECT_EQ(events.back().data["response"]["error"]["message"], "overloaded");
  EXPECT_EQ(errored->upstream_error(), "overloaded");
  EXPECT_EQ(errored->Finish(), "");

  auto cut = ToResponses();
  std::string out = cut->Feed(Chunk(R"({"content":"par"})"));
  out += cut->Finish("the upstream went quiet");
  const auto cut_events = Events(out);
  EXPECT_EQ(cut_events.back().name, "response.failed");
  EXPECT_EQ(cut_events.back().data["response"]["error"]["message"], "the upstream went quiet");

  auto empty = ToResponses();
  const auto nothing = Events(empty->Finish("no bytes"));
  EXPECT_EQ(Names(nothing), (std::vector<std::string>{"response.created", "response.in_progress", "response.failed"}));
}

TEST(ChatToResponsesStreamTest, AFinishedAnswerWithoutDoneStillCompletes) {
  auto stream = ToResponses();
  std::string out = stream->Feed(Chunk(R"({"content":"ok"})") + Chunk("{}", R"("stop")"));
  out += stream->Finish();
  EXPECT_EQ(Events(out).back().name, "response.completed");
}

// ---- a Responses upstream, read as Chat Completions ---------------------------

std::string Typed(const json& event) { return SseFrame(event.dump(), event["type"].get<std::string>()); }

const std::string kResponsesStream =
    Typed({{"type", "response.created"}, {"sequence_number", 0},
           {"response", {{"id", "resp_up"}, {"model", "gpt-up"}, {"created_at", 1780000000}, {"status", "in_progress"}}}}) +
    Typed({{"type", "response.in_progress"}, {"sequence_number", 1}, {"response", {{"id", "resp_up"}}}}) +
    Typed({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", {{"id", "rs_1"}, {"type", "reasoning"}, {"summary", json::array()}}}}) +
    Typed({{"type", "response.reasoning_summary_text.delta"}, {"item_id", "rs_1"}, {"delta", "hmm"}}) +
    Typed({{"type", "response.output_item.added"}, {"output_index", 1}, {"item", {{"id", "msg_1"}, {"type", "message"}, {"content", json::array()}}}}) +
    Typed({{"type", "response.content_part.added"}, {"item_id", "msg_1"}, {"part", {{"type", "output_text"}, {"text", ""}}}}) +
    Typed({{"type", "response.output_text.delta"}, {"item_id", "msg_1"}, {"delta", "Bonjour 🙂"}}) +
    Typed({{"type", "response.output_text.done"}, {"item_id", "msg_1"}, {"text", "Bonjour 🙂"}}) +
    Typed({{"type", "response.output_item.added"}, {"output_index", 2},
           {"item", {{"id", "fc_1"}, {"type", "function_call"}, {"call_id", "call_x"}, {"name", "recall"}, {"arguments", ""}}}}) +
    Typed({{"type", "response.function_call_arguments.delta"}, {"item_id", "fc_1"}, {"delta", "{\"query\":"}}) +
    Typed({{"type", "response.function_call_arguments.delta"}, {"item_id", "fc_1"}, {"delta", "\"cat\"}"}}) +
    Typed({{"type", "response.function_call_arguments.done"}, {"item_id", "fc_1"}, {"arguments", "{\"query\":\"cat\"}"}}) +
    Typed({{"type", "response.output_item.added"}, {"output_index", 3},
           {"item", {{"id", "fc_2"}, {"type", "function_call"}, {"call_id", "call_y"}, {"name", "now"}, {"arguments", ""}}}}) +
    Typed({{"type", "response.function_call_arguments.done"}, {"item_id", "fc_2"}, {"arguments", "{}"}}) +
    Typed({{"type", "response.completed"},
           {"response", {{"id", "resp_up"}, {"status", "completed"},
                         {"usage", {{"input_tokens", 300}, {"input_tokens_details", {{"cached_tokens", 200}}}, {"output_tokens", 30},
                                    {"output_tokens_details", {{"reasoning_tokens", 9}}}, {"total_tokens", 330}}}}}});

TEST(ResponsesToChatStreamTest, EveryEventBecomesTheChunkItStandsFor) {
  ResponsesToChatStream stream;
  const std::string out = FeedAll(stream, {kResponsesStream});
  OpenAIStreamObserver chat(/*client_wants_usage=*/true);
  chat.Feed(out);
  EXPECT_TRUE(chat.done()) << out;
  const AssistantTurn& turn = chat.turn();
  EXPECT_EQ(turn.id, "resp_up");
  EXPECT_EQ(turn.model, "gpt-up");
  EXPECT_EQ(turn.text, "Bonjour 🙂");
  EXPECT_EQ(turn.ReasoningText(), "hmm");
  ASSERT_EQ(turn.tool_calls.size(), 2u);
  EXPECT_EQ(turn.tool_calls[0], (ToolCall{"call_x", "recall", R"({"query":"cat"})"}));
  EXPECT_EQ(turn.tool_calls[1], (ToolCall{"call_y", "now", "{}"})) << "arguments sent only whole still arrive";
  EXPECT_EQ(turn.finish, FinishReason::kToolCalls);
  EXPECT_EQ(turn.usage, (Usage{300, 30, 200, 0, 9}));
  EXPECT_NE(out.find("data: [DONE]"), std::string::npos);
}

TEST(ResponsesToChatStreamTest, GivesTheSameChunksWhereverTheStreamIsCut) {
  ExpectSameAtEveryCut([] { return std::make_unique<ResponsesToChatStream>(); }, kResponsesStream);
}

TEST(ResponsesToChatStreamTest, FailedResponsesAndErrorEventsBecomeErrorChunks) {
  ResponsesToChatStream failed;
  const std::string out = failed.Feed(Typed({{"type", "response.failed"},
                                             {"response", {{"status", "failed"}, {"error", {{"code", "server_error"}, {"message", "boom"}}}}}}));
  EXPECT_NE(out.find(R"("message":"boom")"), std::string::npos) << out;
  EXPECT_NE(out.find("[DONE]"), std::string::npos);
  EXPECT_EQ(failed.upstream_error(), "boom");
  ResponsesToChatStream error;
  const std::string e = error.Feed(Typed({{"type", "error"}, {"code", "rate_limit_exceeded"}, {"message", "slow down"}, {"param", nullptr}}));
  EXPECT_NE(e.find("slow down"), std::string::npos);
  ResponsesToChatStream incomplete;
  const std::string i = incomplete.Feed(Typed({{"type", "response.incomplete"},
                                               {"response", {{"status", "incomplete"}, {"incomplete_details", {{"reason", "max_output_tokens"}}}}}}));
  EXPECT_NE(i.find(R"("finish_reason":"length")"), std::string::npos) << i;
}

// A recorded round of a Responses upstream for Codex: encrypted reasoning,
// then the answer, the whole output in the last event.
const json kReasoningItem = {{"id", "rs_9"}, {"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", "gAAAAB-opaque=="}};
const json kMessageItem = {{"id", "msg_9"}, {"type", "message"}, {"status", "completed"}, {"role", "assistant"},
                           {"content", json::array({{{"type", "output_text"}, {"text", "两个文件 🙂"}, {"annotations", json::array()}}})}};
const std::string kPassThroughStream =
    Typed({{"type", "response.created"}, {"sequence_number", 0}, {"response", {{"id", "resp_up"}, {"status", "in_progress"}}}}) +
    Typed({{"type", "response.output_item.added"}, {"sequence_number", 1}, {"output_index", 0}, {"item", kReasoningItem}}) +
    Typed({{"type", "response.output_item.done"}, {"sequence_number", 2}, {"output_index", 0}, {"item", kReasoningItem}}) +
    Typed({{"type", "response.output_item.added"}, {"sequence_number", 3}, {"output_index", 1},
           {"item", {{"id", "msg_9"}, {"type", "message"}, {"role", "assistant"}, {"content", json::array()}}}}) +
    Typed({{"type", "response.output_text.delta"}, {"sequence_number", 4}, {"output_index", 1}, {"item_id", "msg_9"}, {"delta", "两个"}}) +
    Typed({{"type", "response.output_text.delta"}, {"sequence_number", 5}, {"output_index", 1}, {"item_id", "msg_9"}, {"delta", "文件 🙂"}}) +
    Typed({{"type", "response.output_item.done"}, {"sequence_number", 6}, {"output_index", 1}, {"item", kMessageItem}}) +
    Typed({{"type", "response.completed"}, {"sequence_number", 7},
           {"response", {{"id", "resp_up"}, {"status", "completed"}, {"output", {kReasoningItem, kMessageItem}},
                         {"usage", {{"input_tokens", 900}, {"input_tokens_details", {{"cached_tokens", 800}}}, {"output_tokens", 40},
                                    {"output_tokens_details", {{"reasoning_tokens", 25}}}, {"total_tokens", 940}}}}}});

TEST(ResponsesStreamObserverTest, EventsGoOutAsTheyCameAndTheTurnKeepsTheItems) {
  ResponsesStreamObserver observer;
  EXPECT_EQ(FeedAll(observer, {kPassThroughStream}), kPassThroughStream);
  EXPECT_TRUE(observer.done());
  const AssistantTurn& turn = observer.turn();
  EXPECT_EQ(turn.text, "两个文件 🙂");
  EXPECT_EQ(turn.items, json::array({kReasoningItem, kMessageItem})) << "encrypted reasoning kept for a recall round";
  EXPECT_EQ(turn.usage, (Usage{900, 40, 800, 0, 25}));
  EXPECT_EQ(turn.finish, FinishReason::kStop);
}

TEST(ResponsesStreamObserverTest, GivesTheSameEventsWhereverTheStreamIsCut) {
  ExpectSameAtEveryCut([] { return std::make_unique<ResponsesStreamObserver>(); }, kPassThroughStream);
}

TEST(ResponsesStreamObserverTest, AStreamCutShortEndsWithAFailedResponseNumberedOn) {
  const std::string head = kPassThroughStream.substr(0, kPassThroughStream.find("response.output_text.delta"));
  ResponsesStreamObserver observer;
  std::string out = observer.Feed(head);
  out += observer.Finish("the upstream went quiet");
  const auto events = Events(out);
  ASSERT_FALSE(events.empty());
  const Event& last = events.back();
  EXPECT_EQ(last.name, "response.failed");
  EXPECT_EQ(last.data["sequence_number"], 4);
  EXPECT_EQ(last.data["response"]["id"], "resp_up");
  EXPECT_EQ(last.data["response"]["status"], "failed");
  EXPECT_EQ(last.data["response"]["error"]["message"], "the upstream went quiet");
  ResponsesStreamObserver failed;
  failed.Feed(Typed({{"type", "response.failed"}, {"sequence_number", 0},
                     {"response", {{"status", "failed"}, {"error", {{"code", "server_error"}, {"message", "boom"}}}}}}));
  EXPECT_EQ(failed.upstream_error(), "boom");
  EXPECT_EQ(failed.Finish(), "") << "an upstream failure is an end";
}

}  // namespace
}  // namespace cilia::llm
