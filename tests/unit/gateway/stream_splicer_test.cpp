#include "gateway/stream_splicer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "llm/responses_stream.h"
#include "llm/stream.h"
#include "net/sse.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

std::string Frame(const json& data) { return llm::SseFrame(data.dump()); }
std::string Event(const json& data) { return llm::SseFrame(data.dump(), data["type"].get<std::string>()); }

// The events a client reads from the spliced bytes.
std::vector<net::SseEvent> Events(const std::string& bytes) {
  std::vector<net::SseEvent> events;
  net::SseParser parser;
  parser.Feed(bytes, [&](const net::SseEvent& e) { events.push_back(e); });
  return events;
}

json Chunk(const std::string& id, json delta, json finish = nullptr) {
  return {{"id", id}, {"object", "chat.completion.chunk"}, {"created", 100}, {"model", "m"},
          {"choices", json::array({{{"index", 0}, {"delta", std::move(delta)}, {"finish_reason", finish}}})}};
}

TEST(OpenAISplicer, RecallRoundIsInvisibleAndTheAnswerReadsAsOneMessage) {
  auto splicer = StreamSplicer::Create(Wire::kOpenAI, "recall", "companion");
  std::string out;
  out += splicer->Feed(Frame(Chunk("c1", {{"role", "assistant"}, {"content", ""}})));
  out += splicer->Feed(Frame(Chunk("c1", {{"content", "Let me check. "}})));
  out += splicer->Feed(Frame(Chunk(
      "c1", {{"tool_calls", json::array({{{"index", 0}, {"id", "call_1"}, {"type", "function"},
                                          {"function", {{"name", "recall"}, {"arguments", ""}}}}})}})));
  out += splicer->Feed(Frame(Chunk("c1", {{"tool_calls", json::array({{{"index", 0}, {"function", {{"arguments", "{\"query\":\"cat\"}"}}}}})}})));
  out += splicer->Feed(Frame(Chunk("c1", json::object(), "tool_calls")));
  out += splicer->Feed(llm::SseFrame("[DONE]"));
  out += splicer->EndRound(true, {10, 5, 0, 0});
  out += splicer->Feed(Frame(Chunk("c2", {{"role", "assistant"}, {"content", ""}})));
  out += splicer->Feed(Frame(Chunk("c2", {{"content", "Her name is Mochi."}})));
  out += splicer->Feed(Frame(Chunk("c2", json::object(), "stop")));
  json usage_chunk = {{"id", "c2"}, {"choices", json::array()}, {"usage", {{"prompt_tokens", 20}}}};
  out += splicer->Feed(Frame(usage_chunk));
  out += splicer->Feed(llm::SseFrame("[DONE]"));
  out += splicer->EndRound(false, {30, 12, 4, 0});

  const auto events = Events(out);
  ASSERT_EQ(events.size(), 6u);  // role, text, text, finish, usage, [DONE]
  std::string text;
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    const json chunk = json::parse(events[i].data);
    EXPECT_EQ(chunk["id"], "c1") << "every chunk keeps the first round's id";
    EXPECT_EQ(chunk["model"], "companion");
    EXPECT_EQ(chunk.dump().find("recall"), std::string::npos);
    if (!chunk["choices"].empty()) text += chunk["choices"][0]["delta"].value("content", "");
  }
  EXPECT_EQ(text, "Let me check. Her name is Mochi.");
  EXPECT_EQ(json::parse(events[3].data)["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(json::parse(events[4].data)["usage"]["prompt_tokens"], 30) << "usage of both rounds";
  EXPECT_EQ(json::parse(events[4].data)["usage"]["completion_tokens"], 12);
  EXPECT_EQ(events[5].data, "[DONE]");
  EXPECT_FALSE(splicer->failed());
}

TEST(OpenAISplicer, ClientToolKeepsItsIdAndGetsIndexZeroWhenRecallWasFirst) {
  auto splicer = StreamSplicer::Create(Wire::kOpenAI, "recall", "companion");
  std::string out = splicer->Feed(Frame(Chunk(
      "c1", {{"tool_calls", json::array({{{"index", 0}, {"id", "call_r"}, {"function", {{"name", "recall"}, {"arguments", "{}"}}}},
                                         {{"index", 1}, {"id", "call_w"}, {"function", {{"name", "weather"}, {"arguments", "{}"}}}}})}})));
  out += splicer->Feed(Frame(Chunk("c1", json::object(), "tool_calls")));
  out += splicer->EndRound(false, {});
  const auto events = Events(out);
  ASSERT_EQ(events.size(), 2u);
  const json calls = json::parse(events[0].data)["choices"][0]["delta"]["tool_calls"];
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["id"], "call_w");
  EXPECT_EQ(calls[0]["index"], 0);
  EXPECT_EQ(json::parse(events[1].data)["choices"][0]["finish_reason"], "tool_calls");
}

TEST(OpenAISplicer, WordsInTheFinishingChunkOfAnInnerRoundStillReachTheClient) {
  auto splicer = StreamSplicer::Create(Wire::kOpenAI, "recall", "companion");
  std::string out = splicer->Feed(Frame(Chunk("c1", {{"content", "Hmm."}}, "tool_calls")));
  out += splicer->EndRound(true, {});
  const auto events = Events(out);
  ASSERT_EQ(events.size(), 1u);
  const json chunk = json::parse(events[0].data);
  EXPECT_EQ(chunk["choices"][0]["delta"]["content"], "Hmm.");
  EXPECT_TRUE(chunk["choices"][0]["finish_reason"].is_null());
}

TEST(OpenAISplicer, AnErrorChunkPassesAtOnceAndMarksTheStreamFailed) {
  auto splicer = StreamSplicer::Create(Wire::kOpenAI, "recall", "companion");
  const std::string out = splicer->Feed(llm::OpenAIStreamError("api_error", "boom"));
  const auto events = Events(out);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(json::parse(events[0].data)["error"]["message"], "boom");
  EXPECT_EQ(events[1].data, "[DONE]");
  EXPECT_TRUE(splicer->failed());
}

json BlockStart(int index, json block) { return {{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(block)}}; }
json TextDelta(int index, const std::string& text) {
  return {{"type", "content_block_delta"}, {"index", index}, {"delta", {{"type", "text_delta"}, {"text", text}}}};
}
json BlockStop(int index) { return {{"type", "content_block_stop"}, {"index", index}}; }
json MessageStart(const std::string& id) {
  return {{"type", "message_start"}, {"message", {{"id", id}, {"type", "message"}, {"role", "assistant"}, {"content", json::array()}}}};
}
json MessageDelta(const std::string& stop) {
  return {{"type", "message_delta"}, {"delta", {{"stop_reason", stop}}}, {"usage", {{"output_tokens", 3}}}};
}

TEST(AnthropicSplicer, BlocksOfLaterRoundsCountOnAndTheRecallBlockIsGone) {
  auto splicer = StreamSplicer::Create(Wire::kAnthropic, "recall", "companion");
  std::string out;
  out += splicer->Feed(Event(MessageStart("msg_1")));
  out += splicer->Feed(Event(BlockStart(0, {{"type", "text"}, {"text", ""}})));
  out += splicer->Feed(Event(TextDelta(0, "Checking. ")));
  out += splicer->Feed(Event(BlockStop(0)));
  out += splicer->Feed(Event(BlockStart(1, {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "recall"}, {"input", json::object()}})));
  out += splicer->Feed(Event({{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "{}"}}}}));
  out += splicer->Feed(Event(BlockStop(1)));
  out += splicer->Feed(Event(MessageDelta("tool_use")));
  out += splicer->Feed(Event({{"type", "message_stop"}}));
  out += splicer->EndRound(true, {});
  out += splicer->Feed(Event(MessageStart("msg_2")));
  out += splicer->Feed(Event(BlockStart(0, {{"type", "text"}, {"text", ""}})));
  out += splicer->Feed(Event(TextDelta(0, "Mochi.")));
  out += splicer->Feed(Event(BlockStop(0)));
  out += splicer->Feed(Event(MessageDelta("end_turn")));
  out += splicer->Feed(Event({{"type", "message_stop"}}));
  out += splicer->EndRound(false, {100, 9, 80, 10});

  std::vector<std::string> types;
  std::vector<int> indexes;
  json last_delta;
  for (const net::SseEvent& e : Events(out)) {
    const json data = json::parse(e.data);
    types.push_back(e.event);
    EXPECT_EQ(e.event, data["type"]);
    EXPECT_EQ(data.dump().find("recall"), std::string::npos);
    if (data.contains("index")) indexes.push_back(data["index"]);
    if (data["type"] == "message_delta") last_delta = data;
    if (data["type"] == "message_start") EXPECT_EQ(data["message"]["model"], "companion");
  }
  EXPECT_EQ(types, (std::vector<std::string>{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                                             "content_block_start", "content_block_delta", "content_block_stop",
                                             "message_delta", "message_stop"}));
  EXPECT_EQ(indexes, (std::vector<int>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(last_delta["delta"]["stop_reason"], "end_turn");
  EXPECT_EQ(last_delta["usage"]["output_tokens"], 9);
  EXPECT_EQ(last_delta["usage"]["cache_read_input_tokens"], 80);
  EXPECT_EQ(last_delta["usage"]["input_tokens"], 10) << "the uncached part";
}

TEST(AnthropicSplicer, WithoutAHiddenToolEverythingPassesInOrder) {
  auto splicer = StreamSplicer::Create(Wire::kAnthropic, "", "companion");
  std::string in = Event(MessageStart("m")) + Event(BlockStart(0, {{"type", "tool_use"}, {"id", "t"}, {"name", "recall"}})) +
                   Event(BlockStop(0)) + Event(MessageDelta("tool_use")) + Event({{"type", "message_stop"}});
  std::string out = splicer->Feed(in.substr(0, 7));
  out += splicer->Feed(in.substr(7));
  out += splicer->EndRound(false, {1, 3, 0, 0});
  EXPECT_EQ(Events(out).size(), 5u);
  EXPECT_NE(out.find("\"recall\""), std::string::npos) << "a client tool of that name is the client's";
}

// ---- Responses, passed through ------------------------------------------------

json Numbered(json event, int64_t sequence) {
  event["sequence_number"] = sequence;
  return event;
}

// A recall round as a Responses upstream streams it: encrypted reasoning,
// then the call to cilia's recall.
std::string RecallRound() {
  const json reasoning = {{"id", "rs_1"}, {"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", "gAAA=="}};
  const json call = {{"id", "fc_1"}, {"type", "function_call"}, {"call_id", "call_r"}, {"name", "recall"}, {"arguments", "{\"query\":\"cat\"}"}};
  return Event(Numbered({{"type", "response.created"}, {"response", {{"id", "resp_up1"}, {"instructions", "rules + memory"}}}}, 0)) +
         Event(Numbered({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", reasoning}}, 1)) +
         Event(Numbered({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", reasoning}}, 2)) +
         Event(Numbered({{"type", "response.output_item.added"}, {"output_index", 1}, {"item", call}}, 3)) +
         Event(Numbered({{"type", "response.function_call_arguments.delta"}, {"output_index", 1}, {"item_id", "fc_1"}, {"delta", "{}"}}, 4)) +
         Event(Numbered({{"type", "response.output_item.done"}, {"output_index", 1}, {"item", call}}, 5)) +
         Event(Numbered({{"type", "response.completed"},
                         {"response", {{"id", "resp_up1"}, {"status", "completed"}, {"output", {reasoning, call}},
                                       {"usage", {{"input_tokens", 100}, {"output_tokens", 10}}}}}}, 6));
}

std::string AnswerRound() {
  const json message = {{"id", "msg_2"}, {"type", "message"}, {"role", "assistant"},
                        {"content", json::array({{{"type", "output_text"}, {"text", "Mochi."}}})}};
  return Event(Numbered({{"type", "response.created"}, {"response", {{"id", "resp_up2"}}}}, 0)) +
         Event(Numbered({{"type", "response.in_progress"}, {"response", {{"id", "resp_up2"}}}}, 1)) +
         Event(Numbered({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", message}}, 2)) +
         Event(Numbered({{"type", "response.output_text.delta"}, {"output_index", 0}, {"item_id", "msg_2"}, {"delta", "Mochi."}}, 3)) +
         Event(Numbered({{"type", "response.output_item.done"}, {"output_index", 0}, {"item", message}}, 4)) +
         Event(Numbered({{"type", "response.completed"},
                         {"response", {{"id", "resp_up2"}, {"status", "completed"}, {"output", json::array({message})},
                                       {"usage", {{"input_tokens", 150}, {"output_tokens", 5}}}}}}, 5));
}

const json kClientRequest = {{"model", "companion"}, {"instructions", "rules"}, {"tools", json::array({{{"type", "web_search"}}})}};

// Both rounds through the per-round observer and the splicer, each round's
// bytes cut in two at `cut` (clamped to its length).
std::string RelayBothRounds(size_t cut, ResponsesSplicer& splicer) {
  std::string out;
  int round = 0;
  for (const std::string& bytes : {RecallRound(), AnswerRound()}) {
    llm::ResponsesStreamObserver observer;
    const size_t at = std::min(cut, bytes.size());
    out += splicer.Feed(observer.Feed(std::string_view(bytes).substr(0, at)));
    out += splicer.Feed(observer.Feed(std::string_view(bytes).substr(at)));
    out += splicer.Feed(observer.Finish());
    out += splicer.EndRound(/*more=*/round++ == 0, {250, 15, 0, 0, 0});
  }
  return out;
}

TEST(ResponsesSplicer, TheRecallRoundIsInvisibleAndTheEventsNumberOnAsOneResponse) {
  ResponsesSplicer splicer("recall", kClientRequest, {"resp_cilia", 7, "companion"});
  const auto events = Events(RelayBothRounds(0, splicer));
  std::vector<std::string> types;
  for (size_t i = 0; i < events.size(); ++i) {
    const json data = json::parse(events[i].data);
    types.push_back(events[i].event);
    EXPECT_EQ(data["type"], events[i].event);
    EXPECT_EQ(data["sequence_number"], i) << "numbered on from 0 across the rounds";
    EXPECT_EQ(events[i].data.find("recall"), std::string::npos) << events[i].data;
  }
  EXPECT_EQ(types, (std::vector<std::string>{"response.created", "response.output_item.added", "response.output_item.done",
                                             "response.output_item.added", "response.output_text.delta",
                                             "response.output_item.done", "response.completed"}));
  EXPECT_EQ(json::parse(events[0].data)["response"]["id"], "resp_cilia");
  EXPECT_EQ(json::parse(events[0].data)["response"]["instructions"], "rules") << "the memory is not shown back";
  EXPECT_EQ(json::parse(events[1].data)["item"]["encrypted_content"], "gAAA==");
  EXPECT_EQ(json::parse(events[3].data)["output_index"], 1) << "the answer follows the reasoning the client saw";
  const json completed = json::parse(events.back().data)["response"];
  ASSERT_EQ(completed["output"].size(), 2u);
  EXPECT_EQ(completed["output"][0]["id"], "rs_1");
  EXPECT_EQ(completed["output"][1]["id"], "msg_2");
  EXPECT_EQ(completed["usage"]["input_tokens"], 250) << "usage of both rounds";
  EXPECT_EQ(completed["model"], "companion");
  EXPECT_EQ(completed["tools"], kClientRequest["tools"]);
  EXPECT_EQ(splicer.response(), completed);
  EXPECT_FALSE(splicer.failed());
}

TEST(ResponsesSplicer, GivesTheSameEventsWhereverTheRoundsAreCut) {
  ResponsesSplicer whole("recall", kClientRequest, {"resp_cilia", 7, "companion"});
  const std::string expected = RelayBothRounds(0, whole);
  const size_t longest = std::max(RecallRound().size(), AnswerRound().size());
  for (size_t cut = 1; cut <= longest; ++cut) {
    ResponsesSplicer splicer("recall", kClientRequest, {"resp_cilia", 7, "companion"});
    ASSERT_EQ(RelayBothRounds(cut, splicer), expected) << "cut at byte " << cut;
  }
}

TEST(ResponsesSplicer, OneRoundWithoutRecallGoesOutAsTheUpstreamSentIt) {
  ResponsesSplicer splicer("recall", kClientRequest, {"resp_cilia", 7, "companion"});
  const std::string round = AnswerRound();
  std::string out = splicer.Feed(round);
  out += splicer.EndRound(false, {150, 5, 0, 0, 0});
  const auto events = Events(out);
  const auto sent = Events(round);
  ASSERT_EQ(events.size(), sent.size());
  // The lifecycle events carry cilia's id; the ones between are untouched.
  for (size_t i = 2; i + 1 < events.size(); ++i) EXPECT_EQ(events[i].data, sent[i].data) << "byte for byte: " << i;
  EXPECT_EQ(json::parse(events.back().data)["response"]["usage"], json::parse(sent.back().data)["response"]["usage"]);
  ResponsesSplicer failing("recall", kClientRequest, {"resp_cilia", 7, "companion"});
  const auto failed = Events(failing.Feed(Event(Numbered(
      {{"type", "response.failed"}, {"response", {{"id", "resp_up"}, {"status", "failed"}, {"error", {{"message", "boom"}}}}}}, 0))));
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(failing.failed());
  EXPECT_EQ(json::parse(failed[0].data)["response"]["id"], "resp_cilia");
}

}  // namespace
}  // namespace cilia::gateway
