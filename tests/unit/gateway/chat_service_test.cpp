#include "gateway/chat_service.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "testing/fault_env.h"
#include "testing/local_server.h"
#include "testing/temp_dir.h"
#include "core/clock.h"
#include "core/executor.h"
#include "gateway/turn_state.h"
#include "ingest/context_parts.h"
#include "llm/upstream.h"
#include "memory/archive/archive.h"
#include "memory/upkeep/precious.h"
#include "net/sse.h"
#include "store/message_repo.h"
#include "store/summary_repo.h"
#include "store/turn_repo.h"

namespace cilia::gateway {
namespace {

using nlohmann::json;

// A local upstream on POST {base_url}/<path>: every request body is kept,
// then answered by `answer`.
class RecordingUpstream {
 public:
  using Answer = std::function<void(const json& body, httplib::Response& res)>;
  RecordingUpstream(const std::string& path, Answer answer)
      : answer_(std::move(answer)), server_([this, path](httplib::Server& s) {
          s.Post("/v1/" + path, [this](const httplib::Request& req, httplib::Response& res) {
            const json body = json::parse(req.body);
            {
              std::lock_guard<std::mutex> lock(mu_);
              requests_.push_back(body);
            }
            answer_(body, res);
          });
        }) {}

  std::string base_url() const { return server_.Url("/v1"); }
  std::vector<json> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  const Answer answer_;
  std::mutex mu_;
  std::vector<json> requests_;
  testing::LocalServer server_;
};

// A scripted OpenAI-compatible upstream. The last user text decides:
// "RECALL" calls recall, "WEATHER" calls the client's tool, "BOTH" both,
// "FAIL" answers 500; a request ending in a tool result answers with it.
class ScriptedUpstream : public RecordingUpstream {
 public:
  ScriptedUpstream() : RecordingUpstream("chat/completions", &ScriptedUpstream::Answer) {}

 private:
  static json Call(const std::string& id, const std::string& name, const std::string& arguments) {
    return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
  }

  static void Answer(const json& body, httplib::Response& res) {
    const json& last = body["messages"].back();
    std::string user_text;
    for (const json& m : body["messages"]) {
      if (m["role"] != "user") continue;
      user_text = m["content"].is_string() ? m["content"].get<std::string>() : m["content"][0]["text"].get<std::string>();
    }
    json message = {{"role", "assistant"}, {"content", nullptr}};
    std::string finish = "stop";
    if (last["role"] == "tool" && user_text.find("AGAIN") != std::string::npos) {
      message["tool_calls"] = json::array({Call("call_again", "recall", R"({"query":"more"})")});
      finish = "tool_calls";
    } else if (last["role"] == "tool") {
      message["content"] = "tool result: " + last["content"].get<std::string>();
    } else if (user_text.find("FAIL") != std::string::npos) {
      res.status = 500;
      res.set_content(R"({"error":{"message":"upstream broke","type":"server_error"}})", "application/json");
      return;
    } else if (user_text.find("BOTH") != std::string::npos) {
      message["tool_calls"] = json::array({Call("call_r", "recall", R"({"query":"cat"})"), Call("call_w", "weather", "{}")});
      finish = "tool_calls";
    } else if (user_text.find("RECALL") != std::string::npos) {
      message["content"] = "Let me look. ";
      if (user_text.find("THINK") != std::string::npos) message["reasoning_content"] = "She asked about her cat.";
      message["tool_calls"] = json::array({Call("call_r", "recall", R"({"query":"cat named"})")});
      finish = "tool_calls";
    } else if (user_text.find("WEATHER") != std::string::npos) {
      message["tool_calls"] = json::array({Call("call_w", "weather", R"({"city":"Paris"})")});
      finish = "tool_calls";
    } else {
      message["content"] = "echo: " + user_text.substr(0, user_text.find("\n\n<turn_context>"));
    }
    const json usage = {{"prompt_tokens", 100},
                        {"completion_tokens", 10},
                        {"prompt_tokens_details", {{"cached_tokens", 50}}},
                        {"completion_tokens_details", {{"reasoning_tokens", 4}}}};
    if (!body.value("stream", false)) {
      res.set_content(json{{"id", "cmpl-1"}, {"object", "chat.completion"}, {"model", "up"},
                           {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})},
                           {"usage", usage}}
                          .dump(),
                      "application/json");
      return;
    }
    std::string sse;
    auto chunk = [&](json delta, json finish_reason) {
      sse += "data: " + json{{"id", "cmpl-s"}, {"model", "up"},
                             {"choices", json::array({{{"index", 0}, {"delta", delta}, {"finish_reason", finish_reason}}})}}
                            .dump() + "\n\n";
    };
    chunk({{"role", "assistant"}, {"content", ""}}, nullptr);
    if (message["content"].is_string()) chunk({{"content", message["content"]}}, nullptr);
    if (message.contains("tool_calls")) {
      for (size_t i = 0; i < message["tool_calls"].size(); ++i) {
        json call = message["tool_calls"][i];
        call["index"] = i;
        chunk({{"tool_calls", json::array({call})}}, nullptr);
      }
    }
    chunk(json::object(), finish);
    sse += "data: " + json{{"id", "cmpl-s"}, {"choices", json::array()}, {"usage", usage}}.dump() + "\n\ndata: [DONE]\n\n";
    res.set_content(sse, "text/event-stream");
  }
};

// A scripted upstream that speaks Responses. The last user text decides:
// "RECALL" answers encrypted reasoning and a recall call; a request ending
// in a function_call_output answers with it; anything else is echoed.
class ScriptedResponsesUpstream : public RecordingUpstream {
 public:
  ScriptedResponsesUpstream() : RecordingUpstream("responses", &ScriptedResponsesUpstream::Answer) {}

 private:
  static void Answer(const json& body, httplib::Response& res) {
    const json& input = body["input"];
    const json& last = input.back();
    std::string user_text;
    for (const json& item : input) {
      if (item.value("role", "") == "user") user_text = item["content"].is_string() ? item["content"].get<std::string>() : item["content"][0]["text"].get<std::string>();
    }
    json output = json::array();
    if (last.value("type", "") == "function_call_output") {
      output.push_back({{"id", "msg_2"}, {"type", "message"}, {"role", "assistant"},
                        {"content", json::array({{{"type", "output_text"}, {"text", "tool result: " + last["output"].get<std::string>()}}})}});
    } else if (user_text.find("RECALL") != std::string::npos) {
      output.push_back({{"id", "rs_1"}, {"type", "reasoning"}, {"summary", json::array()}, {"encrypted_content", "gAAA-up=="}});
      output.push_back({{"id", "fc_1"}, {"type", "function_call"}, {"call_id", "call_r"}, {"name", "recall"},
                        {"arguments", R"({"query":"cat named"})"}});
    } else {
      output.push_back({{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"},
                        {"content", json::array({{{"type", "output_text"}, {"text", "echo: " + user_text.substr(0, user_text.find("\n\n"))}}})}});
    }
    const json response = {{"id", "resp_up"}, {"object", "response"}, {"status", "completed"}, {"output", output},
                           {"instructions", body.value("instructions", "")}, {"tools", body.value("tools", json::array())},
                           {"usage", {{"input_tokens", 100}, {"input_tokens_details", {{"cached_tokens", 60}}},
                                      {"output_tokens", 10}, {"output_tokens_details", {{"reasoning_tokens", 4}}}}}};
    if (!body.value("stream", false)) {
      res.set_content(response.dump(), "application/json");
      return;
    }
    int64_t sequence = 0;
    std::string sse;
    auto event = [&](json e) {
      e["sequence_number"] = sequence++;
      sse += "event: " + e["type"].get<std::string>() + "\ndata: " + e.dump() + "\n\n";
    };
    event({{"type", "response.created"}, {"response", {{"id", "resp_up"}, {"status", "in_progress"}}}});
    for (size_t i = 0; i < output.size(); ++i) {
      event({{"type", "response.output_item.added"}, {"output_index", i}, {"item", output[i]}});
      if (output[i]["type"] == "message") {
        event({{"type", "response.output_text.delta"}, {"output_index", i}, {"item_id", output[i]["id"]},
               {"delta", output[i]["content"][0]["text"]}});
      }
      event({{"type", "response.output_item.done"}, {"output_index", i}, {"item", output[i]}});
    }
    event({{"type", "response.completed"}, {"response", response}});
    res.set_content(sse, "text/event-stream");
  }
};

class CollectingSink : public ChatSink {
 public:
  bool Write(std::string_view bytes) override {
    bytes_.append(bytes);
    return true;
  }
  bool ClientGone() const override { return false; }
  // The data of every event written.
  std::vector<std::string> Events() const {
    std::vector<std::string> out;
    net::SseParser parser;
    parser.Feed(bytes_, [&](const net::SseEvent& e) { out.push_back(e.data); });
    return out;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class ChatServiceTest : public ::testing::Test {
 protected:
  ChatServiceTest() : clock_(1'780'000'000'000) {
    config_.server.data_dir = dir_.path();
    config_.server.time_zone = "UTC";
    ProviderConfig provider;
    provider.name = "up";
    provider.base_url = upstream_.base_url();
    provider.api_key = "test-upstream-key";
    config_.providers.push_back(provider);
    ProviderConfig responses;
    responses.name = "resp";
    responses.base_url = responses_upstream_.base_url();
    responses.wire_api = WireApi::kResponses;
    config_.providers.push_back(responses);
    config_.models.chat = "up/model";
    registry_ = std::move(memory::Registry::Open(config_, clock_)).value();
    service_ = std::make_unique<ChatService>(registry_->config(), *registry_, executor_);
    // A fact from an earlier conversation, for the recall tool to find.
    ingest::IngestConversation earlier;
    earlier.conversation_id = "pets";
    earlier.messages.push_back({"p1", "user", "", "My cat is named Mochi and she hates the vacuum.", clock_.Now() - 86'400'000});
    memory::Archive archive(ns());
    auto stored = archive.Store(earlier);
    EXPECT_TRUE(stored.ok());
    EXPECT_TRUE(archive.IndexConversation(stored->conversation_row).ok());
  }

  memory::Namespace& ns() { return *registry_->Get("default").value(); }

  ChatCall Call(json body, const std::string& conversation = "") {
    ChatCall call;
    call.body = std::move(body);
    call.conversation_header = conversation;
    call.name_space = "default";
    return call;
  }

  static json User(const std::string& text) { return {{"role", "user"}, {"content", text}}; }
  static json Assistant(const std::string& text) { return {{"role", "assistant"}, {"content", text}}; }
  static json Body(json messages, bool stream = false) {
    return {{"model", "companion"}, {"messages", std::move(messages)}, {"stream", stream}};
  }
  // A braced list of one message is an array here with every compiler (with
  // a json parameter, clang takes {User(..)} for the message itself).
  static json Body(std::initializer_list<json> messages, bool stream = false) {
    json list = json::array();
    for (const json& message : messages) list.push_back(message);
    return Body(std::move(list), stream);
  }

  ChatReply Complete(json body, const std::string& conversation = "") {
    auto turn = service_->Prepare(Call(std::move(body), conversation));
    EXPECT_TRUE(turn.ok()) << turn.status().ToString();
    return service_->Complete(**turn);
  }

  std::vector<store::MessageRecord> Messages(const std::string& conversation) {
    return ns().store().Read([&](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
      store::MessageRepo repo(db);
      CILIA_ASSIGN_OR_RETURN(auto c, repo.FindConversation(conversation));
      if (!c) return std::vector<store::MessageRecord>{};
      return repo.MessagesFrom(c->id, 0);
    }).value();
  }

  std::optional<store::ConversationSummary> Summary(const std::string& conversation) {
    return ns().store().Read([&](store::Database& db) -> Result<std::optional<store::ConversationSummary>> {
      CILIA_ASSIGN_OR_RETURN(auto c, store::MessageRepo(db).FindConversation(conversation));
      if (!c) return std::optional<store::ConversationSummary>{};
      return store::SummaryRepo(db).Latest(c->id);
    }).value();
  }

  std::vector<store::TurnRecord> Turns() {
    return ns().store().Read([](store::Database& db) { return store::TurnRepo(db).List(std::nullopt, std::nullopt, 100); }).value();
  }

  testing::TempDir dir_;
  FakeClock clock_;
  ScriptedUpstream upstream_;
  ScriptedResponsesUpstream responses_upstream_;
  Config config_;
  Executor executor_{4, 16};
  std::unique_ptr<memory::Registry> registry_;
  std::unique_ptr<ChatService> service_;
};

TEST_F(ChatServiceTest, StoresBothSidesVerbatimAndARetryStoresNothingTwice) {
  const json body = Body({User("hello there 🌸")});
  ChatReply first = Complete(body, "c1");
  ASSERT_EQ(first.http_status, 200) << first.body.dump();
  EXPECT_EQ(first.body["choices"][0]["message"]["content"], "echo: hello there 🌸");
  EXPECT_EQ(first.body["model"], "companion");
  Complete(body, "c1");
  const auto messages = Messages("c1");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].text, "hello there 🌸");
  EXPECT_EQ(messages[1].role, "assistant");
  EXPECT_EQ(messages[1].text, "echo: hello there 🌸");
  EXPECT_EQ(messages[0].source, "gateway");
}

TEST_F(ChatServiceTest, AClientWithoutAnIdContinuesTheConversationItsHistoryMatches) {
  Complete(Body({User("first words")}));
  ChatReply second = Complete(Body({User("first words"), Assistant("echo: first words"), User("second words")}));
  ASSERT_EQ(second.http_status, 200);
  const auto turns = Turns();
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].conversation_id, turns[1].conversation_id);
  EXPECT_EQ(Messages(turns[0].conversation_id).size(), 4u);
}

TEST_F(ChatServiceTest, TheUpstreamSeesMemoryAfterTheClientsTextAndTheRecallToolLast) {
  json body = Body({User("tell me about my cat")});
  body["tools"] = json::array({{{"type", "function"}, {"function", {{"name", "weather"}, {"parameters", {{"type", "object"}}}}}}});
  Complete(body, "c2");
  const json sent = upstream_.requests().back();
  ASSERT_EQ(sent["tools"].size(), 2u);
  EXPECT_EQ(sent["tools"][0]["function"]["name"], "weather");
  EXPECT_EQ(sent["tools"][1]["function"]["name"], "recall");
  const std::string user = sent["messages"].back()["content"].is_string() ? sent["messages"].back()["content"].get<std::string>()
                                                                          : sent["messages"].back().dump();
  EXPECT_EQ(user.rfind("tell me about my cat", 0), 0u) << "the client's words come first, unchanged";
  EXPECT_NE(user.find("<turn_context>"), std::string::npos);
  EXPECT_NE(user.find("Mochi"), std::string::npos) << "the menu names the earlier fact";
  EXPECT_FALSE(Turns().front().injected["menu"].empty());
}

TEST_F(ChatServiceTest, APinnedPassageIsInTheCachedSystemPrefixWithTheSameBytesEveryTurn) {
  auto pinned = memory::Pin(ns(), {"pets", {"p1"}, "My cat is named Mochi", store::Author::kOwner}, clock_.Now());
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  const std::string said_on = ns().tz().FormatLocal(clock_.Now() - 86'400'000, false);
  Complete(Body({User("first words")}), "pin");
  clock_.Advance(60'000);
  Complete(Body({User("first words"), Assistant("echo: first words"), User("second words")}), "pin");
  const auto sent = upstream_.requests();
  ASSERT_EQ(sent.size(), 2u);
  const json& system = sent[0]["messages"][0];
  ASSERT_EQ(system["role"], "system");
  const std::string text = system["content"].get<std::string>();
  EXPECT_NE(text.find("<precious_passages>\n<passage date=\"" + said_on + "\">\nMy cat is named Mochi\n</passage>\n</precious_passages>"),
            std::string::npos)
      << text;
  EXPECT_EQ(sent[1]["messages"][0].dump(), system.dump()) << "the stable prefix must not change between turns";
  EXPECT_EQ(Turns().front().injected["precious"], json::array({"p_" + std::to_string(pinned->id)}));
}

TEST_F(ChatServiceTest, ARecallCallIsRunInsideAndTheClientGetsOneAnswer) {
  ChatReply reply = Complete(Body({User("what is my cat called? RECALL")}), "c3");
  ASSERT_EQ(reply.http_status, 200) << reply.body.dump();
  const json message = reply.body["choices"][0]["message"];
  const std::string content = message["content"];
  EXPECT_EQ(content.rfind("Let me look. tool result: ", 0), 0u) << content;
  EXPECT_NE(content.find("My cat is named Mochi"), std::string::npos);
  EXPECT_FALSE(message.contains("tool_calls"));
  EXPECT_EQ(reply.body["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(reply.body["usage"]["prompt_tokens"], 200) << "usage of both rounds";
  EXPECT_EQ(reply.body["usage"]["completion_tokens_details"]["reasoning_tokens"], 8);
  EXPECT_EQ(Turns().front().reasoning_tokens, 8) << "reasoning tokens recorded per turn, like the others";
  const auto requests = upstream_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[1]["messages"].back()["role"], "tool");
  EXPECT_EQ(requests[1]["messages"].back()["tool_call_id"], "call_r");
  EXPECT_EQ(Turns().front().recall_rounds, 1);
  EXPECT_EQ(Messages("c3").back().text, content) << "the stored answer is what the client saw";
}

TEST_F(ChatServiceTest, ARecallCallBesideAClientToolIsDroppedAndTheClientToolReturned) {
  json body = Body({User("BOTH please")});
  body["tools"] = json::array({{{"type", "function"}, {"function", {{"name", "weather"}, {"parameters", {{"type", "object"}}}}}}});
  ChatReply reply = Complete(body, "c4");
  ASSERT_EQ(reply.http_status, 200);
  const json calls = reply.body["choices"][0]["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0]["id"], "call_w");
  EXPECT_EQ(reply.body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(upstream_.requests().size(), 1u);
  const auto stored = Messages("c4");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(json::parse(stored[1].content), json::array({ingest::ToolCallPart("call_w", "weather", "{}")}))
      << "the client's call is archived, cilia's recall is not";
}

TEST_F(ChatServiceTest, StreamingARecallTurnReadsAsOneStream) {
  auto turn = service_->Prepare(Call(Body({User("what is my cat called? RECALL")}, true), "c5"));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  CollectingSink sink;
  ASSERT_TRUE(service_->Stream(**turn, sink).ok());
  const auto events = sink.Events();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back(), "[DONE]");
  std::string text;
  int done = 0, finishes = 0;
  for (const std::string& e : events) {
    if (e == "[DONE]") {
      ++done;
      continue;
    }
    const json chunk = json::parse(e);
    EXPECT_FALSE(chunk.contains("usage")) << "the client did not ask for usage";
    for (const json& choice : chunk["choices"]) {
      if (!choice["finish_reason"].is_null()) ++finishes;
      EXPECT_FALSE(choice["delta"].contains("tool_calls")) << e;
      if (choice["delta"].contains("content")) text += choice["delta"]["content"].get<std::string>();
    }
  }
  EXPECT_EQ(done, 1);
  EXPECT_EQ(finishes, 1);
  EXPECT_NE(text.find("My cat is named Mochi"), std::string::npos) << text;
  EXPECT_EQ(Messages("c5").back().text, text);
}

TEST_F(ChatServiceTest, AnUpstreamRefusalBeforeTheFirstByteIsTheCallersToAnswer) {
  auto turn = service_->Prepare(Call(Body({User("FAIL now")}, true), "c6"));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  CollectingSink sink;
  const Status status = service_->Stream(**turn, sink);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(llm::UpstreamErrorOf(status).http_status, 500);
  EXPECT_TRUE(sink.bytes().empty());
  ChatReply reply = Complete(Body({User("FAIL again")}), "c6");
  EXPECT_EQ(reply.http_status, 500);
  EXPECT_EQ(reply.body["error"]["message"], "upstream broke");
  EXPECT_EQ(Messages("c6").size(), 2u) << "the user's messages are kept, no answer is invented";
}

TEST_F(ChatServiceTest, WithMemoryOffTheRequestGoesThroughAsItCame) {
  ChatCall call = Call(Body({User("RECALL private")}), "c7");
  call.features.memory = false;
  auto turn = service_->Prepare(std::move(call));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ChatReply reply = service_->Complete(**turn);
  EXPECT_EQ(reply.http_status, 200);
  const json sent = upstream_.requests().back();
  EXPECT_FALSE(sent.contains("tools"));
  EXPECT_EQ(sent["messages"].back()["content"], "RECALL private");
  EXPECT_TRUE(Messages("c7").empty());
}

TEST_F(ChatServiceTest, AStoreThatFailsTheTurnsWriteAnswersAsWithMemoryOffAndSaysWhy) {
  Result<std::shared_ptr<PreparedTurn>> turn = Status::Internal("not prepared");
  {
    testing::FaultEnv disk;
    disk.Fail(DiskOp::kWrite, "cilia.db", Status::DiskFull("no space left on device"));
    turn = service_->Prepare(Call(Body({User("tell me about my cat")}), "c-full"));
    ASSERT_TRUE(turn.ok()) << turn.status().ToString();
    ChatReply reply = service_->Complete(**turn);
    ASSERT_EQ(reply.http_status, 200) << reply.body.dump();
    EXPECT_EQ(reply.body["choices"][0]["message"]["content"], "echo: tell me about my cat");
  }
  EXPECT_TRUE(ChatService::MemoryWasUnavailable(**turn));
  const json sent = upstream_.requests().back();
  EXPECT_FALSE(sent.contains("tools")) << "no recall tool";
  EXPECT_EQ(sent["messages"].size(), 1u) << "no memory block: " << sent.dump();
  EXPECT_EQ(sent["messages"].back()["content"], "tell me about my cat");
  const json& injected = (*turn)->record.injected;
  ASSERT_TRUE(injected.contains("memory_unavailable")) << injected.dump();
  EXPECT_NE(injected["memory_unavailable"].get<std::string>().find("disk_full: storing the turn's messages"),
            std::string::npos);
  EXPECT_FALSE(injected.contains("menu")) << "what was read beside the failed store is dropped too";
  EXPECT_TRUE((*turn)->record.sources.empty());
  EXPECT_TRUE(Messages("c-full").empty()) << "no answer stored without its question";

  // The store is well again: memory is back.
  ASSERT_TRUE(Complete(Body({User("tell me about my cat")}), "c-full").http_status == 200);
  EXPECT_TRUE(upstream_.requests().back().contains("tools"));
  EXPECT_EQ(Messages("c-full").size(), 2u);
  const auto turns = Turns();
  ASSERT_EQ(turns.size(), 1u) << "the failed turn's record could not be written";
  EXPECT_TRUE(turns[0].injected.contains("menu"));
  EXPECT_FALSE(turns[0].injected.contains("memory_unavailable"));
}

TEST_F(ChatServiceTest, ANamespaceThatCannotBeOpenedAnswersWithoutMemoryButABadNameIsRefused) {
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kWrite, "ns/fresh", Status::IOError("disk I/O error"));
  ChatCall call = Call(Body({User("hello from a new namespace")}));
  call.name_space = "fresh";
  auto turn = service_->Prepare(std::move(call));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  EXPECT_TRUE(ChatService::MemoryWasUnavailable(**turn));
  EXPECT_EQ(service_->Complete(**turn).http_status, 200);
  EXPECT_EQ(upstream_.requests().back()["messages"].back()["content"], "hello from a new namespace");
  EXPECT_TRUE((*turn)->record.injected.contains("memory_unavailable"));

  // A key with memory off needed the namespace only for the record: it answers, and nothing was missed.
  ChatCall plain = Call(Body({User("hello without memory")}));
  plain.name_space = "fresh";
  plain.features.memory = false;
  auto proxied = service_->Prepare(std::move(plain));
  ASSERT_TRUE(proxied.ok()) << proxied.status().ToString();
  EXPECT_FALSE(ChatService::MemoryWasUnavailable(**proxied));
  EXPECT_EQ(service_->Complete(**proxied).http_status, 200);

  // A chain only the archive could continue is the store's error, not a 404.
  ChatCall chained = Call({{"model", "companion"},
                           {"previous_response_id", NewResponseId("gone-with-the-disk", clock_.Now(), "1")},
                           {"input", "and then?"}});
  chained.endpoint = ChatEndpoint::kResponses;
  chained.name_space = "fresh";
  EXPECT_EQ(service_->Prepare(std::move(chained)).status().code(), Code::kIOError);

  ChatCall bad = Call(Body({User("hello")}));
  bad.name_space = "../etc";
  EXPECT_EQ(service_->Prepare(std::move(bad)).status().code(), Code::kInvalidArgument);
}

TEST_F(ChatServiceTest, DeepSeekReasoningIsSentBackInTheContinuationAndShownToTheClient) {
  ChatReply reply = Complete(Body({User("THINK then RECALL the cat")}), "c9");
  ASSERT_EQ(reply.http_status, 200);
  const auto requests = upstream_.requests();
  ASSERT_EQ(requests.size(), 2u);
  const json& echoed = requests[1]["messages"][requests[1]["messages"].size() - 2];
  EXPECT_EQ(echoed["role"], "assistant");
  EXPECT_EQ(echoed["reasoning_content"], "She asked about her cat.") << "DeepSeek answers 400 without it";
  EXPECT_EQ(echoed["tool_calls"][0]["id"], "call_r");
  EXPECT_EQ(reply.body["choices"][0]["message"]["reasoning_content"], "She asked about her cat.");
}

TEST_F(ChatServiceTest, AfterTheRoundLimitTheModelIsToldToAnswer) {
  ChatReply reply = Complete(Body({User("RECALL AGAIN and again")}), "c8");
  ASSERT_EQ(reply.http_status, 200) << reply.body.dump();
  const auto requests = upstream_.requests();
  ASSERT_EQ(requests.size(), 4u) << "the first call and three recall rounds";
  for (size_t i = 0; i < 3; ++i) EXPECT_FALSE(requests[i].contains("tool_choice"));
  EXPECT_EQ(requests[3]["tool_choice"], "none");
  EXPECT_EQ(Turns().front().recall_rounds, 3);
}

TEST_F(ChatServiceTest, ALongConversationIsSummarisedAndThenSentAsSummaryPlusRecentMessages) {
  Config small = registry_->config();
  small.gateway.compression_threshold_tokens = 1000;
  small.gateway.compression_keep_tokens = 300;
  ChatService service(small, *registry_, executor_);
  json history = json::array();
  for (int i = 0; i < 20; ++i) {
    history.push_back(User("turn " + std::to_string(i) + ": " + std::string(400, 'a' + i % 26)));
    history.push_back(Assistant("reply " + std::to_string(i)));
  }
  json first = history;
  first.push_back(User("what now?"));
  auto turn = service.Prepare(Call(Body(first), "long"));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(service.Complete(**turn).http_status, 200);
  std::optional<store::ConversationSummary> summary;
  for (int i = 0; i < 200 && !summary; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    summary = Summary("long");
  }
  ASSERT_TRUE(summary.has_value()) << "the summary is written in the background";
  EXPECT_FALSE(summary->text.empty());

  json second = first;
  second.push_back(Assistant("echo: what now?"));
  second.push_back(User("and then?"));
  turn = service.Prepare(Call(Body(second), "long"));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(service.Complete(**turn).http_status, 200);
  const json sent = upstream_.requests().back();
  EXPECT_NE(sent.dump().find("<conversation_summary>"), std::string::npos);
  for (const json& m : sent["messages"]) {
    if (m["role"] == "system") continue;
    EXPECT_EQ(m.dump().find("turn 0: "), std::string::npos) << "the summarised part is not sent raw";
  }
  EXPECT_NE(sent.dump().find("and then?"), std::string::npos);
  EXPECT_LT(sent["messages"].size(), second.size());
  EXPECT_EQ(Messages("long").size(), second.size() + 1) << "nothing is deleted: every message and the answer are archived";
}

TEST_F(ChatServiceTest, AnUnknownModelIsTheClientsMistakeAndNamesTheModels) {
  json body = Body({User("hi")});
  body["model"] = "nope";
  auto turn = service_->Prepare(Call(body));
  ASSERT_FALSE(turn.ok());
  EXPECT_EQ(turn.status().code(), Code::kInvalidArgument);
  EXPECT_NE(turn.status().message().find("companion"), std::string::npos);
}

// ---- POST /v1/responses -----------------------------------------------------

TEST_F(ChatServiceTest, AResponsesTurnIsAnsweredAsAResponseAndChainsByItsId) {
  ChatCall call = Call({{"model", "companion"}, {"instructions", "be brief"}, {"input", "my name is Ada"}});
  call.endpoint = ChatEndpoint::kResponses;
  auto turn = service_->Prepare(std::move(call));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ChatReply first = service_->Complete(**turn);
  ASSERT_EQ(first.http_status, 200) << first.body.dump();
  EXPECT_EQ(first.body["object"], "response");
  EXPECT_EQ(first.body["status"], "completed");
  EXPECT_EQ(first.body["model"], "companion");
  EXPECT_EQ(first.body["output"][0]["content"][0]["text"], "echo: my name is Ada");
  EXPECT_EQ(first.body["usage"]["input_tokens"], 100);
  EXPECT_EQ(first.body["usage"]["input_tokens_details"]["cached_tokens"], 50);
  EXPECT_EQ(first.body["usage"]["output_tokens_details"]["reasoning_tokens"], 4);
  const std::string id = first.body["id"];
  EXPECT_EQ(service_->GetResponse("default", id).value(), first.body);
  EXPECT_EQ(Turns().front().endpoint, "responses");
  EXPECT_EQ(Turns().front().input_tokens, 100) << "usage is logged like the other wires";
  EXPECT_EQ(Turns().front().reasoning_tokens, 4);

  ChatCall next = Call({{"model", "companion"}, {"previous_response_id", id}, {"input", "what is my name?"}});
  next.endpoint = ChatEndpoint::kResponses;
  turn = service_->Prepare(std::move(next));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(service_->Complete(**turn).http_status, 200);
  const json sent = upstream_.requests().back();
  const std::string all = sent["messages"].dump();
  EXPECT_NE(all.find("my name is Ada"), std::string::npos) << "the chain's history reaches the upstream";
  EXPECT_NE(all.find("echo: my name is Ada"), std::string::npos);
  const auto turns = Turns();
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].conversation_id, turns[1].conversation_id) << "one conversation, not two";
  EXPECT_EQ(Messages(turns[0].conversation_id).size(), 5u) << "the instructions, once, and two turns";
  EXPECT_EQ(Messages(turns[0].conversation_id)[0].content, R"([{"text":"be brief","type":"system_prompt"}])");
  ASSERT_TRUE(service_->DeleteResponse("default", id).ok());
  EXPECT_EQ(service_->GetResponse("default", id).status().code(), Code::kNotFound);
}

TEST_F(ChatServiceTest, AStreamedResponsesTurnHidesTheRecallRoundsAndEndsCompleted) {
  ChatCall call = Call({{"model", "companion"}, {"input", "what is my cat called? RECALL"}, {"stream", true}});
  call.endpoint = ChatEndpoint::kResponses;
  auto turn = service_->Prepare(std::move(call));
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  CollectingSink sink;
  ASSERT_TRUE(service_->Stream(**turn, sink).ok());
  std::string text;
  std::vector<std::string> types;
  json completed;
  for (const std::string& e : sink.Events()) {
    const json event = json::parse(e);
    types.push_back(event["type"]);
    if (event["type"] == "response.output_text.delta") text += event["delta"].get<std::string>();
    if (event["type"] == "response.output_item.added") {
      EXPECT_NE(event["item"]["type"], "function_call") << e;
    }
    if (event["type"] == "response.completed") completed = event["response"];
  }
  ASSERT_FALSE(types.empty());
  EXPECT_EQ(types.front(), "response.created");
  EXPECT_EQ(types.back(), "response.completed");
  EXPECT_NE(text.find("My cat is named Mochi"), std::string::npos) << text;
  EXPECT_EQ(completed["usage"]["input_tokens"], 200) << "usage of both rounds";
  EXPECT_EQ(completed["usage"]["output_tokens_details"]["reasoning_tokens"], 8);
  EXPECT_EQ(Turns().front().reasoning_tokens, 8) << "streamed: recorded like the other tokens";
  EXPECT_EQ(service_->GetResponse("default", completed["id"]).value()["status"], "completed");
}

TEST_F(ChatServiceTest, AResponsesRequestWithABuiltInToolIsRefusedNamingIt) {
  ChatCall call = Call({{"model", "companion"}, {"input", "hi"}, {"tools", json::array({{{"type", "web_search"}}})}});
  call.endpoint = ChatEndpoint::kResponses;
  auto turn = service_->Prepare(std::move(call));
  ASSERT_FALSE(turn.ok());
  EXPECT_EQ(turn.status().code(), Code::kInvalidArgument);
  EXPECT_NE(turn.status().message().find("tools[0].type"), std::string::npos);
  EXPECT_TRUE(upstream_.requests().empty());
}

TEST_F(ChatServiceTest, AResponsesClientOnAResponsesUpstreamIsPassedThroughWithTheMemoryAndRecallInside) {
  const json reasoning = {{"type", "reasoning"}, {"id", "rs_0"}, {"summary", json::array()}, {"encrypted_content", "gAAA-client=="}};
  for (const bool stream : {false, true}) {
    const json body = {{"model", "resp/gpt"},
                       {"instructions", "You are Codex."},
                       {"include", json::array({"reasoning.encrypted_content"})},
                       {"prompt_cache_key", "session-1"},
                       {"text", {{"verbosity", "low"}}},
                       {"store", false},
                       {"stream", stream},
                       {"tools", json::array({{{"type", "web_search"}}})},
                       {"input", json::array({reasoning, {{"role", "user"}, {"content", "what is my cat called? RECALL"}}})}};
    ChatCall call = Call(body);
    call.endpoint = ChatEndpoint::kResponses;
    auto turn = service_->Prepare(std::move(call));
    ASSERT_TRUE(turn.ok()) << turn.status().ToString();
    json response;
    if (stream) {
      CollectingSink sink;
      ASSERT_TRUE(service_->Stream(**turn, sink).ok());
      int64_t sequence = 0;
      for (const std::string& e : sink.Events()) {
        const json event = json::parse(e);
        EXPECT_EQ(event["sequence_number"], sequence++) << e;
        EXPECT_EQ(e.find("call_r"), std::string::npos) << "the recall call stays inside: " << e;
        if (event["type"] == "response.completed") response = event["response"];
      }
    } else {
      ChatReply reply = service_->Complete(**turn);
      ASSERT_EQ(reply.http_status, 200) << reply.body.dump();
      response = reply.body;
    }
    ASSERT_TRUE(response.is_object()) << stream;
    ASSERT_EQ(response["output"].size(), 2u) << response.dump();
    EXPECT_EQ(response["output"][0]["encrypted_content"], "gAAA-up==") << "the upstream's reasoning reaches the client";
    EXPECT_NE(response["output"][1]["content"][0]["text"].get<std::string>().find("Mochi"), std::string::npos);
    EXPECT_EQ(response["instructions"], "You are Codex.");
    EXPECT_EQ(response["tools"], body["tools"]);
    EXPECT_EQ(response["usage"]["input_tokens"], 200) << "both rounds";
    EXPECT_EQ(response["model"], "resp/gpt");

    const std::vector<json> sent = responses_upstream_.requests();
    ASSERT_GE(sent.size(), 2u);
    const json& first = sent[sent.size() - 2];
    for (const char* field : {"include", "prompt_cache_key", "text", "store"}) EXPECT_EQ(first[field], body[field]) << field;
    EXPECT_EQ(first["input"][0], reasoning) << "the client's encrypted reasoning goes up unchanged";
    EXPECT_EQ(first["input"][1]["content"].get<std::string>().find("what is my cat called? RECALL\n\n<turn_context>"), 0u);
    EXPECT_EQ(first["instructions"].get<std::string>().find("You are Codex.\n\n<memory_guide>"), 0u);
    EXPECT_EQ(first["tools"][0], body["tools"][0]) << "built-in tools pass through";
    EXPECT_EQ(first["tools"][1]["name"], "recall");
    const json& again = sent.back()["input"];
    ASSERT_EQ(again.size(), 5u);
    EXPECT_EQ(again[2]["encrypted_content"], "gAAA-up==") << "the round's reasoning goes back with its call";
    EXPECT_EQ(again[3]["call_id"], "call_r");
    EXPECT_EQ(again[4]["type"], "function_call_output");
  }
  const auto turns = Turns();
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].reasoning_tokens, 8);
  EXPECT_EQ(turns[0].cache_read_tokens, 120);
  EXPECT_EQ(turns[0].upstream_model, "resp/gpt");
  EXPECT_TRUE(upstream_.requests().empty()) << "the Chat Completions upstream saw nothing";
}

}  // namespace
}  // namespace cilia::gateway
