#include "gateway/prompt_assembler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cilia::gateway {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

json RecallTool() {
  return json{{"name", "recall"},
              {"description", "Search the archive of past conversations."},
              {"input_schema", {{"type", "object"}, {"properties", {{"query", {{"type", "string"}}}}}}}};
}

json OpenAIRecallTool() {
  return json{{"type", "function"},
              {"function", {{"name", "recall"}, {"parameters", {{"type", "object"}}}}}};
}

json Text(const std::string& text) { return json{{"type", "text"}, {"text", text}}; }

json MarkedText(const std::string& text) {
  json block = Text(text);
  block["cache_control"] = {{"type", "ephemeral"}};
  return block;
}

json Message(const std::string& role, json content) { return json{{"role", role}, {"content", std::move(content)}}; }

// A three-turn chat: two finished exchanges, then the current question.
json ChatRequest() {
  return json{{"model", "claude-sonnet-4-5"},
              {"max_tokens", 1024},
              {"system", "You are Ari, a patient tutor."},
              {"messages",
               {Message("user", "What is a monad?"), Message("assistant", "A monoid in the category of endofunctors."),
                Message("user", "Say it simpler."), Message("assistant", "A box with rules for chaining."),
                Message("user", "Give an example in C++.")}}};
}

MemoryBlocks FullMemory() {
  MemoryBlocks memory;
  memory.profile = {{"user", "Lives in Chengdu. Runs half marathons."}, {"persona", "Warm, brief, precise."}};
  memory.daily_pack = "Yesterday: talked about the 6月14号 race.";
  memory.summary = "Earlier they discussed category theory basics.";
  memory.volatile_text = "Current time: 2026-06-19 21:03\nMenu:\n06-14 half marathon in Chengdu";
  return memory;
}

AssembleOptions Anthropic() { return AssembleOptions{Wire::kAnthropic}; }
AssembleOptions OpenAI() { return AssembleOptions{Wire::kOpenAI}; }

Assembled MustAssemble(const json& body, const MemoryBlocks& memory, const json& recall, const AssembleOptions& options) {
  Result<Assembled> result = Assemble(body, memory, recall, options);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? std::move(result).value() : Assembled{};
}

// Where the cache_control markers are, in the order the upstream reads the
// prompt: tools, system, messages.
std::vector<std::string> MarkerPlaces(const json& body) {
  std::vector<std::string> places;
  for (const char* list : {"tools", "system"}) {
    if (!body.contains(list) || !body[list].is_array()) continue;
    for (size_t i = 0; i < body[list].size(); ++i) {
      if (body[list][i].contains("cache_control")) places.push_back(std::string(list) + "[" + std::to_string(i) + "]");
    }
  }
  const json& messages = body["messages"];
  for (size_t m = 0; m < messages.size(); ++m) {
    const json& content = messages[m]["content"];
    if (!content.is_array()) continue;
    for (size_t b = 0; b < content.size(); ++b) {
      if (content[b].contains("cache_control")) {
        places.push_back("messages[" + std::to_string(m) + "][" + std::to_string(b) + "]");
      }
    }
  }
  return places;
}

bool HasCacheControlAnywhere(const json& value) {
  if (value.is_object()) {
    if (value.contains("cache_control")) return true;
    for (const auto& item : value.items()) {
      if (HasCacheControlAnywhere(item.value())) return true;
    }
  }
  if (value.is_array()) {
    for (const json& item : value) {
      if (HasCacheControlAnywhere(item)) return true;
    }
  }
  return false;
}

// The prompt as the upstream reads it (tools, system, then message blocks),
// serialised up to and including the block with the last marker.
std::string PrefixThroughLastMarker(const json& body) {
  const size_t markers = MarkerPlaces(body).size();
  const json tools = body.value("tools", json::array());
  const json system = body.value("system", json::array());
  std::string prefix = tools.dump() + system.dump();
  size_t seen = 0;
  for (const json& tool : tools) seen += tool.contains("cache_control");
  for (const json& block : system) seen += block.contains("cache_control");
  for (const json& message : body["messages"]) {
    if (seen == markers) break;
    prefix += message["role"].dump();
    const json& content = message["content"];
    if (!content.is_array()) {
      prefix += content.dump();
      continue;
    }
    for (const json& block : content) {
      if (seen == markers) break;
      prefix += block.dump();
      seen += block.contains("cache_control");
    }
  }
  return prefix;
}

std::string SystemText(const json& body, size_t index) { return body["system"][index]["text"]; }

// ---------------------------------------------------------------------------
// Determinism and the cached prefix

TEST(PromptAssembler, IdenticalInputGivesIdenticalBytes) {
  for (const AssembleOptions& options : {Anthropic(), OpenAI()}) {
    const json recall = options.wire == Wire::kOpenAI ? OpenAIRecallTool() : RecallTool();
    const std::string first = MustAssemble(ChatRequest(), FullMemory(), recall, options).body.dump();
    const std::string second = MustAssemble(ChatRequest(), FullMemory(), recall, options).body.dump();
    EXPECT_EQ(first, second);
  }
}

TEST(PromptAssembler, ChangingTheMenuChangesNothingBeforeTheLastBreakpoint) {
  MemoryBlocks monday = FullMemory();
  MemoryBlocks tuesday = FullMemory();
  tuesday.volatile_text = "Current time: 2026-06-20 08:15\nMenu:\n05-01 出发去稻城亚丁 🏔️";
  const Assembled a = MustAssemble(ChatRequest(), monday, RecallTool(), Anthropic());
  const Assembled b = MustAssemble(ChatRequest(), tuesday, RecallTool(), Anthropic());

  EXPECT_NE(a.body.dump(), b.body.dump());
  EXPECT_EQ(PrefixThroughLastMarker(a.body), PrefixThroughLastMarker(b.body));
  EXPECT_EQ(MarkerPlaces(a.body), MarkerPlaces(b.body));
  // Only the current turn differs.
  EXPECT_EQ(a.body["system"], b.body["system"]);
  EXPECT_EQ(a.body["tools"], b.body["tools"]);
  for (size_t i = 0; i + 1 < a.body["messages"].size(); ++i) {
    EXPECT_EQ(a.body["messages"][i], b.body["messages"][i]) << "message " << i;
  }
}

TEST(PromptAssembler, OpenAIPrefixIsStableWhenOnlyTheMenuChanges) {
  MemoryBlocks other = FullMemory();
  other.volatile_text = "Menu:\n01-02 something else entirely";
  const json a = MustAssemble(ChatRequest(), FullMemory(), OpenAIRecallTool(), OpenAI()).body;
  const json b = MustAssemble(ChatRequest(), other, OpenAIRecallTool(), OpenAI()).body;
  ASSERT_EQ(a["messages"].size(), b["messages"].size());
  for (size_t i = 0; i + 1 < a["messages"].size(); ++i) EXPECT_EQ(a["messages"][i], b["messages"][i]);
  EXPECT_NE(a["messages"].back(), b["messages"].back());
}

// ---------------------------------------------------------------------------
// Block order and markers

TEST(PromptAssembler, LaysOutSystemProfilePackAndSummaryInOrder) {
  const Assembled out = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), Anthropic());
  const json& system = out.body["system"];
  ASSERT_EQ(system.size(), 4u);
  EXPECT_EQ(SystemText(out.body, 0), "You are Ari, a patient tutor.");
  EXPECT_EQ(SystemText(out.body, 1),
            "<profile name=\"persona\">\nWarm, brief, precise.\n</profile>\n\n"
            "<profile name=\"user\">\nLives in Chengdu. Runs half marathons.\n</profile>");
  EXPECT_EQ(SystemText(out.body, 2), "<recent_days>\nYesterday: talked about the 6月14号 race.\n</recent_days>");
  EXPECT_EQ(SystemText(out.body, 3),
            "<conversation_summary>\nEarlier they discussed category theory basics.\n</conversation_summary>");
}

TEST(PromptAssembler, TheMemoryGuideHeadsBp1BeforeTheProfileOnBothWires) {
  MemoryBlocks memory = FullMemory();
  memory.guide = "Read the memory as memory.";
  const Assembled anthropic = MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic());
  EXPECT_EQ(SystemText(anthropic.body, 1).rfind("<memory_guide>\nRead the memory as memory.\n</memory_guide>\n\n"
                                                "<profile name=\"persona\">", 0),
            0u)
      << SystemText(anthropic.body, 1);
  EXPECT_THAT(MarkerPlaces(anthropic.body), ElementsAre("system[1]", "system[2]", "system[3]", "messages[3][0]"))
      << "guide and profile are one block: BP1";
  const Assembled openai = MustAssemble(ChatRequest(), memory, RecallTool(), OpenAI());
  const std::string body = openai.body.dump();
  ASSERT_NE(body.find("<memory_guide>"), std::string::npos) << body;
  EXPECT_LT(body.find("<memory_guide>"), body.find("<profile name")) << body;
}

TEST(PromptAssembler, PreciousPassagesCloseBp1AfterTheProfileOnBothWires) {
  MemoryBlocks memory = FullMemory();
  memory.precious = "<passage date=\"2026-05-01\">\n星星会替我们记得。\n</passage>";
  const Assembled anthropic = MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic());
  const std::string bp1 = SystemText(anthropic.body, 1);
  EXPECT_NE(bp1.find("</profile>\n\n<precious_passages>\n<passage date=\"2026-05-01\">\n星星会替我们记得。\n</passage>\n"
                     "</precious_passages>"),
            std::string::npos)
      << bp1;
  EXPECT_EQ(bp1.substr(bp1.size() - std::string("</precious_passages>").size()), "</precious_passages>");
  EXPECT_THAT(MarkerPlaces(anthropic.body), ElementsAre("system[1]", "system[2]", "system[3]", "messages[3][0]"))
      << "in BP1's block: no marker of its own";
  const std::string openai = MustAssemble(ChatRequest(), memory, RecallTool(), OpenAI()).body.dump();
  ASSERT_NE(openai.find("<precious_passages>"), std::string::npos) << openai;
  EXPECT_LT(openai.find("<profile name"), openai.find("<precious_passages>"));
  EXPECT_LT(openai.find("<precious_passages>"), openai.find("<recent_days>"));
  memory.precious = " \n";
  EXPECT_EQ(MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic()).body.dump().find("precious_passages"),
            std::string::npos)
      << "no passages, no block";
}

TEST(PromptAssembler, WithoutClientMarkersPlacesAllFourBreakpoints) {
  const Assembled out = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), Anthropic());
  // BP1 on the profile, BP2 on the pack, BP3 on the summary, BP4 on the last history message.
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[1]", "system[2]", "system[3]", "messages[3][0]"));
  EXPECT_EQ(out.markers_added, 4);
  EXPECT_EQ(out.markers_total, 4);
  EXPECT_EQ(out.body["system"][1]["cache_control"], json({{"type", "ephemeral"}}));
}

TEST(PromptAssembler, Bp4IsOnTheLastHistoryMessageEvenWhenItIsTheAssistantReply) {
  const Assembled out = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), Anthropic());
  const json& previous_reply = out.body["messages"][3];
  EXPECT_EQ(previous_reply["role"], "assistant");
  EXPECT_EQ(previous_reply["content"],
            json::array({{{"type", "text"}, {"text", "A box with rules for chaining."}, {"cache_control", {{"type", "ephemeral"}}}}}));
  // The messages before it are sent as the client wrote them.
  EXPECT_EQ(out.body["messages"][2], Message("user", "Say it simpler."));
}

TEST(PromptAssembler, ClientWithThreeMarkersGetsOnlyBp4) {
  json request = ChatRequest();
  request["tools"] = json::array({{{"name", "bash"}, {"input_schema", {{"type", "object"}}}, {"cache_control", {{"type", "ephemeral"}}}}});
  request["system"] = json::array({MarkedText("You are Ari."), MarkedText("Be brief.")});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("tools[0]", "system[0]", "system[1]", "messages[3][0]"));
  EXPECT_EQ(out.markers_added, 1);
  EXPECT_EQ(out.markers_total, 4);
}

TEST(PromptAssembler, ClientWithFourMarkersGetsNone) {
  json request = ChatRequest();
  request["system"] = json::array({MarkedText("A."), MarkedText("B."), MarkedText("C.")});
  request["messages"][4] = Message("user", json::array({MarkedText("Give an example in C++.")}));
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[0]", "system[1]", "system[2]", "messages[4][0]"));
  EXPECT_EQ(out.markers_added, 0);
  EXPECT_EQ(out.markers_total, 4);
}

TEST(PromptAssembler, TopLevelAutomaticCachingTakesOneSlot) {
  json request = ChatRequest();
  request["cache_control"] = {{"type", "ephemeral"}};
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  // BP4, BP1 and BP2 fit; BP3 is last in priority and does not.
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[1]", "system[2]", "messages[3][0]"));
  EXPECT_EQ(out.markers_total, 4);
  EXPECT_EQ(out.body["cache_control"], json({{"type", "ephemeral"}}));
}

TEST(PromptAssembler, TwoFreeSlotsGoToBp4ThenBp1) {
  json request = ChatRequest();
  request["system"] = json::array({MarkedText("A."), MarkedText("B.")});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[0]", "system[1]", "system[2]", "messages[3][0]"));
  EXPECT_EQ(SystemText(out.body, 2).substr(0, 9), "<profile ");
}

TEST(PromptAssembler, AMarkerTheClientPutOnTheTailCountsAsBp4) {
  json request = ChatRequest();
  request["messages"][3] = Message("assistant", json::array({MarkedText("A box with rules for chaining.")}));
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[1]", "system[2]", "system[3]", "messages[3][0]"));
  EXPECT_EQ(out.markers_added, 3);
}

TEST(PromptAssembler, VolatileBlockEndsTheCurrentTurnAfterTheClientsLastMarker) {
  json request = ChatRequest();
  request["messages"][4] = Message("user", json::array({MarkedText("Give an example in C++.")}));
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  const json& turn = out.body["messages"][4]["content"];
  ASSERT_EQ(turn.size(), 2u);
  EXPECT_EQ(turn[0], MarkedText("Give an example in C++."));
  EXPECT_EQ(turn[1]["text"],
            "<turn_context>\nCurrent time: 2026-06-19 21:03\nMenu:\n06-14 half marathon in Chengdu\n</turn_context>");
  EXPECT_FALSE(turn[1].contains("cache_control"));
}

TEST(PromptAssembler, CurrentUserTextKeepsItsBytes) {
  json request = ChatRequest();
  const std::string question = "成都半马那天🏃‍♀️几点起跑？\r\n  (trailing spaces)  ";
  request["messages"][4] = Message("user", question);
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  const json& turn = out.body["messages"][4]["content"];
  ASSERT_EQ(turn.size(), 2u);
  EXPECT_EQ(turn[0], Text(question));
  EXPECT_THAT(turn[1]["text"].get<std::string>(), HasSubstr("<turn_context>"));
}

TEST(PromptAssembler, ThinkingAndToolBlocksPassThroughAndBp4SkipsThinking) {
  const json thinking = {{"type", "thinking"}, {"thinking", "Let me look."}, {"signature", "c2lnbmF0dXJl"}};
  const json tool_use = {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "bash"}, {"input", {{"cmd", "ls"}}}};
  const json tool_result = {{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "a.txt"}};
  const json answer_thinking = {{"type", "thinking"}, {"thinking", "Done."}, {"signature", "c2ln"}};
  json request = ChatRequest();
  request["messages"] = json::array({Message("user", "List files."), Message("assistant", json::array({thinking, tool_use})),
                                     Message("user", json::array({tool_result})),
                                     Message("assistant", json::array({Text("One file."), answer_thinking})),
                                     Message("user", "Thanks!")});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  const json& messages = out.body["messages"];
  EXPECT_EQ(messages[1]["content"], json::array({thinking, tool_use}));
  EXPECT_EQ(messages[2]["content"], json::array({tool_result}));
  // The last block is thinking, which cannot carry a marker: BP4 goes on the text before it.
  EXPECT_EQ(messages[3]["content"][1], answer_thinking);
  EXPECT_TRUE(messages[3]["content"][0].contains("cache_control"));
}

TEST(PromptAssembler, Bp4CanSitOnAToolResult) {
  json request = ChatRequest();
  const json tool_use = {{"type", "tool_use"}, {"id", "toolu_9"}, {"name", "bash"}, {"input", json::object()}};
  const json tool_result = {{"type", "tool_result"}, {"tool_use_id", "toolu_9"}, {"content", "ok"}};
  request["messages"] = json::array({Message("user", "Run it."), Message("assistant", json::array({tool_use})),
                                     Message("user", json::array({tool_result})), Message("assistant", json::array({tool_use})),
                                     Message("user", json::array({tool_result}))});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_TRUE(out.body["messages"][3]["content"][0].contains("cache_control"));
  // The volatile block follows the tool result in the current turn, which the upstream allows.
  const json& turn = out.body["messages"][4]["content"];
  ASSERT_EQ(turn.size(), 2u);
  EXPECT_EQ(turn[0], tool_result);
  EXPECT_EQ(turn[1]["type"], "text");
}

TEST(PromptAssembler, EmptyMemoryMakesNoBlocksAndNoMarkersOnNothing) {
  json request = ChatRequest();
  request.erase("system");
  MemoryBlocks memory;
  memory.profile = {{"persona", ""}, {"rules", " \n\t"}};
  memory.daily_pack = "\n";
  const Assembled out = MustAssemble(request, memory, json(), Anthropic());
  EXPECT_FALSE(out.body.contains("system"));
  EXPECT_FALSE(out.body.contains("tools"));
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("messages[3][0]"));
  // No volatile text and no moved lines: the current turn is untouched.
  EXPECT_EQ(out.body["messages"][4], Message("user", "Give an example in C++."));
  EXPECT_EQ(out.markers_added, 1);
}

TEST(PromptAssembler, FirstTurnMarksBp1AndBp2ButNoBp4) {
  json request = ChatRequest();
  request["messages"] = json::array({Message("user", "Hi, I'm back!")});
  MemoryBlocks memory = FullMemory();
  memory.summary.clear();
  const Assembled out = MustAssemble(request, memory, RecallTool(), Anthropic());
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[1]", "system[2]"));
  EXPECT_EQ(out.body["messages"].size(), 1u);
  EXPECT_EQ(out.body["messages"][0]["content"][0], Text("Hi, I'm back!"));
}

TEST(PromptAssembler, Bp1FallsOnTheClientSystemWhenThereIsNoProfile) {
  MemoryBlocks memory = FullMemory();
  memory.profile.clear();
  const Assembled out = MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic());
  EXPECT_EQ(out.body["system"][0], MarkedText("You are Ari, a patient tutor."));
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[0]", "system[1]", "system[2]", "messages[3][0]"));
}

TEST(PromptAssembler, WithoutMarkersTheLayoutIsTheSame) {
  AssembleOptions options = Anthropic();
  options.add_markers = false;
  json request = ChatRequest();
  request["system"] = json::array({MarkedText("You are Ari.")});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), options);
  EXPECT_THAT(MarkerPlaces(out.body), ElementsAre("system[0]"));
  EXPECT_EQ(out.body["system"].size(), 4u);
  EXPECT_EQ(out.body["messages"][3], Message("assistant", "A box with rules for chaining."));
  EXPECT_EQ(out.markers_added, 0);
  EXPECT_EQ(out.markers_total, 1);
}

TEST(PromptAssembler, NeverMoreThanFourMarkersOnAHugeHistory) {
  json request = ChatRequest();
  json messages = json::array();
  for (int i = 0; i < 2000; ++i) {
    messages.push_back(Message(i % 2 == 0 ? "user" : "assistant", json::array({Text("turn " + std::to_string(i))})));
  }
  messages.push_back(Message("user", "And now?"));
  request["messages"] = messages;
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_EQ(MarkerPlaces(out.body).size(), 4u);
  EXPECT_TRUE(out.body["messages"][1999]["content"][0].contains("cache_control"));
}

// ---------------------------------------------------------------------------
// TTL

TEST(PromptAssembler, OneHourTtlOnEveryCiliaMarker) {
  AssembleOptions options = Anthropic();
  options.ttl = "1h";
  const Assembled out = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), options);
  const json hour = {{"type", "ephemeral"}, {"ttl", "1h"}};
  EXPECT_EQ(out.body["system"][1]["cache_control"], hour);
  EXPECT_EQ(out.body["messages"][3]["content"][0]["cache_control"], hour);
}

TEST(PromptAssembler, OneHourNeverFollowsAClientFiveMinuteMarker) {
  AssembleOptions options = Anthropic();
  options.ttl = "1h";
  json request = ChatRequest();
  request["system"] = json::array({MarkedText("You are Ari.")});  // 5 minutes
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), options);
  EXPECT_EQ(out.body["system"][1]["cache_control"], json({{"type", "ephemeral"}}));
  EXPECT_EQ(out.body["messages"][3]["content"][0]["cache_control"], json({{"type", "ephemeral"}}));
}

TEST(PromptAssembler, FiveMinutesBecomesOneHourBeforeAClientOneHourMarker) {
  json request = ChatRequest();
  request["messages"][4] = Message("user", json::array({Text("Give an example in C++.")}));
  request["messages"][4]["content"][0]["cache_control"] = {{"type", "ephemeral"}, {"ttl", "1h"}};
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_EQ(out.body["messages"][3]["content"][0]["cache_control"], json({{"type", "ephemeral"}, {"ttl", "1h"}}));
}

TEST(PromptAssembler, RejectsAnUnknownTtl) {
  AssembleOptions options = Anthropic();
  options.ttl = "5h";
  EXPECT_EQ(Assemble(ChatRequest(), FullMemory(), RecallTool(), options).status().code(), Code::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Per-turn lines of the client's system text

TEST(PromptAssembler, MovesTimeLinesFromAStringSystemIntoTheCurrentTurn) {
  json request = ChatRequest();
  request["system"] = "You are Ari.\nCurrent time: 2026-06-19 21:03\nBe kind.\r\n当前时间：2026年6月19日 21:03\nEnd.";
  MemoryBlocks memory = FullMemory();
  memory.clock_line = "Current time: Friday 2026-06-19 21:03 (Asia/Shanghai)";
  memory.volatile_text = "Menu: nothing today";
  const Assembled out = MustAssemble(request, memory, RecallTool(), Anthropic());
  EXPECT_EQ(SystemText(out.body, 0), "You are Ari.\nBe kind.\r\nEnd.");
  EXPECT_THAT(out.moved_lines, ElementsAre("Current time: 2026-06-19 21:03", "当前时间：2026年6月19日 21:03"));
  EXPECT_EQ(out.body["messages"][4]["content"][1]["text"],
            "<turn_context>\nCurrent time: 2026-06-19 21:03\n当前时间：2026年6月19日 21:03\n\nMenu: nothing today\n</turn_context>");
}

TEST(PromptAssembler, TheTurnContextHasOneClockCiliasOnlyWhenTheClientSentNone) {
  MemoryBlocks memory = FullMemory();
  memory.clock_line = "Current time: Friday 2026-06-19 21:03 (Asia/Shanghai)";
  memory.volatile_text = "Menu: nothing today";
  json request = ChatRequest();
  request["system"] = "You are Ari.";
  const Assembled out = MustAssemble(request, memory, RecallTool(), Anthropic());
  EXPECT_TRUE(out.moved_lines.empty());
  EXPECT_EQ(out.body["messages"][4]["content"][1]["text"],
            "<turn_context>\nCurrent time: Friday 2026-06-19 21:03 (Asia/Shanghai)\n\nMenu: nothing today\n</turn_context>");
}

TEST(PromptAssembler, MovesTimeLinesFromSystemBlocksAndDropsABlockLeftEmpty) {
  json request = ChatRequest();
  request["system"] = json::array({Text("You are Claude Code."), MarkedText("Today's date: 2026-06-19\n"),
                                   Text("<env>\nPlatform: linux\nToday's date: 2026-06-19\n</env>")});
  MemoryBlocks memory = FullMemory();
  memory.volatile_text.clear();
  const Assembled out = MustAssemble(request, memory, RecallTool(), Anthropic());
  EXPECT_EQ(out.body["system"][0], Text("You are Claude Code."));
  EXPECT_EQ(out.body["system"][1], Text("<env>\nPlatform: linux\n</env>"));
  EXPECT_THAT(out.moved_lines, ElementsAre("Today's date: 2026-06-19", "Today's date: 2026-06-19"));
  EXPECT_EQ(out.body["messages"][4]["content"][1]["text"],
            "<turn_context>\nToday's date: 2026-06-19\nToday's date: 2026-06-19\n</turn_context>");
}

TEST(PromptAssembler, NothingMovesWithoutAUserTurnToCarryIt) {
  json request = ChatRequest();
  request["system"] = "Current time: 2026-06-19 21:03";
  request["messages"] = json::array({Message("assistant", "Hello.")});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_THAT(out.moved_lines, IsEmpty());
  EXPECT_EQ(SystemText(out.body, 0), "Current time: 2026-06-19 21:03");
}

TEST(IsPerTurnLine, RecognisesCurrentDateAndTimeLines) {
  for (const char* line : {"Current time: 2026-06-19 21:03", "current date and time: 2026-06-19T21:03:00+08:00",
                           "The current date is June 19, 2026.", "Today is Friday, June 19", "Today is 19 June 2026",
                           "Today's date: 2026-06-19", "Today’s date is 2026/06/19", "Now: 21:03",
                           "- **Current time:** 2026-06-19 21:03", "[Current time] 2026-06-19 21:03",
                           "Date: 2026-06-19", "Local time = 21:03 CST", "当前时间：2026-06-19 21:03",
                           "现在是2026年6月19日 21点03分", "今天是星期五", "今天：6月19日", "【当前时间】2026-06-19 21:03",
                           "日期：2026年6月19日", "北京时间: 21:03", "2026-06-19T21:03:00Z", "2026-06-19 21:03:05.123 +0800",
                           "  2026/06/19 21:03  "}) {
    EXPECT_TRUE(IsPerTurnLine(line)) << line;
  }
}

TEST(IsPerTurnLine, LeavesOrdinaryLinesAlone) {
  for (const char* line : {"", "You are a helpful assistant.", "Today is a good day to learn.",
                           "Time: 10:00 every Monday for standup", "Knowledge cutoff: 2024-06",
                           "You were born on 2000-01-01.", "2026-06-19", "Date of birth: 1990-01-01 is private",
                           "今天是个好日子", "时间：21:03", "Use ISO dates like 2026-06-19 21:03 in answers.",
                           "Version 2.1.3 released 2026-06-19", "周末愉快"}) {
    EXPECT_FALSE(IsPerTurnLine(line)) << line;
  }
}

TEST(IsPerTurnLine, NeverMovesLongLines) {
  const std::string line = "Current time: 2026-06-19 21:03. " + std::string(200, 'x');
  EXPECT_FALSE(IsPerTurnLine(line));
  EXPECT_FALSE(IsPerTurnLine("Current time: 2026-06-19 21:03 " + std::string(300, '\xE5')));
}

TEST(WithoutPerTurnLines, KeepsTheStablePartOfASystemPrompt) {
  EXPECT_EQ(WithoutPerTurnLines("You are Ada.\nCurrent time: 2026-06-19 21:03"), "You are Ada.");
  EXPECT_EQ(WithoutPerTurnLines("今天是星期五\n你是小助手。\n"), "你是小助手。\n");
  EXPECT_EQ(WithoutPerTurnLines("You are Ada."), "You are Ada.");
  EXPECT_EQ(WithoutPerTurnLines("Current time: 2026-06-19 21:03"), WithoutPerTurnLines("Current time: 2026-06-20 08:00"));
}

// ---------------------------------------------------------------------------
// Profile order

TEST(PromptAssembler, ProfileOrderIsFixedWhateverTheInputOrder) {
  MemoryBlocks memory;
  memory.profile = {{"zeta", "z"}, {"rules", "r"}, {"alpha", "a"}, {"relationship", "rel"}, {"user", "u"}, {"persona", "p"}};
  MemoryBlocks reversed = memory;
  std::reverse(reversed.profile.begin(), reversed.profile.end());
  const json a = MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic()).body;
  const json b = MustAssemble(ChatRequest(), reversed, RecallTool(), Anthropic()).body;
  EXPECT_EQ(a.dump(), b.dump());
  EXPECT_EQ(SystemText(a, 1),
            "<profile name=\"persona\">\np\n</profile>\n\n<profile name=\"user\">\nu\n</profile>\n\n"
            "<profile name=\"relationship\">\nrel\n</profile>\n\n<profile name=\"rules\">\nr\n</profile>\n\n"
            "<profile name=\"alpha\">\na\n</profile>\n\n<profile name=\"zeta\">\nz\n</profile>");
}

TEST(PromptAssembler, ProfileNamesAreEscapedAndBadUtf8Repaired) {
  MemoryBlocks memory;
  memory.profile = {{"a\"b<c&", "caf\xC3"}};
  const json body = MustAssemble(ChatRequest(), memory, RecallTool(), Anthropic()).body;
  EXPECT_EQ(SystemText(body, 1), "<profile name=\"a&quot;b&lt;c&amp;\">\ncaf\xEF\xBF\xBD\n</profile>");
  EXPECT_NO_THROW((void)body.dump());
}

// ---------------------------------------------------------------------------
// Tools

TEST(PromptAssembler, ClientToolsKeepTheirOrderAndRecallComesLast) {
  json request = ChatRequest();
  const json zulu = {{"name", "zulu"}, {"input_schema", {{"type", "object"}}}};
  const json alpha = {{"name", "alpha"}, {"description", "second"}, {"input_schema", {{"type", "object"}}}};
  request["tools"] = json::array({zulu, alpha});
  const Assembled out = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_EQ(out.body["tools"], json::array({zulu, alpha, RecallTool()}));
  EXPECT_TRUE(out.recall_offered);
}

TEST(PromptAssembler, NoRecallToolWhenNullOrWhenTheClientHasOneOfThatName) {
  json request = ChatRequest();
  const json own_recall = {{"name", "recall"}, {"input_schema", {{"type", "object"}}}};
  request["tools"] = json::array({own_recall});
  const Assembled clash = MustAssemble(request, FullMemory(), RecallTool(), Anthropic());
  EXPECT_EQ(clash.body["tools"], json::array({own_recall}));
  EXPECT_FALSE(clash.recall_offered);

  const Assembled none = MustAssemble(ChatRequest(), FullMemory(), json(), Anthropic());
  EXPECT_FALSE(none.body.contains("tools"));
  EXPECT_FALSE(none.recall_offered);
}

// ---------------------------------------------------------------------------
// Summary and the compressed history

TEST(PromptAssembler, WithASummaryHistoryBeforeKeepFromIsNotSent) {
  AssembleOptions options = Anthropic();
  options.history_keep_from = 2;
  const Assembled out = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), options);
  const json& messages = out.body["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], Message("user", "Say it simpler."));
  EXPECT_EQ(messages[1]["content"][0]["text"], "A box with rules for chaining.");
  EXPECT_EQ(messages[2]["content"][0], Text("Give an example in C++."));
}

TEST(PromptAssembler, WithoutASummaryKeepFromIsIgnored) {
  AssembleOptions options = Anthropic();
  options.history_keep_from = 2;
  MemoryBlocks memory = FullMemory();
  memory.summary.clear();
  EXPECT_EQ(MustAssemble(ChatRequest(), memory, RecallTool(), options).body["messages"].size(), 5u);
}

TEST(PromptAssembler, KeepFromMovesBackToAUsersOwnMessage) {
  json request = ChatRequest();
  const json tool_use = {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "bash"}, {"input", json::object()}};
  const json tool_result = {{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "ok"}};
  request["messages"] = json::array({Message("user", "Hi"), Message("assistant", "Hello"), Message("user", "Run."),
                                     Message("assistant", json::array({tool_use})),
                                     Message("user", json::array({tool_result})), Message("assistant", "Done."),
                                     Message("user", "Next?")});
  AssembleOptions options = Anthropic();
  // At "Run.", its tool call, its result or the reply after: each starts back at "Run.".
  for (size_t cut : {2, 3, 4, 5}) {
    options.history_keep_from = cut;
    const json messages = MustAssemble(request, FullMemory(), RecallTool(), options).body["messages"];
    EXPECT_EQ(messages.size(), 5u) << "cut " << cut;
    EXPECT_EQ(messages[0], Message("user", "Run.")) << "cut " << cut;
  }
}

TEST(PromptAssembler, KeepFromPastTheEndSendsOnlyTheCurrentTurn) {
  AssembleOptions options = Anthropic();
  options.history_keep_from = 99;
  const json messages = MustAssemble(ChatRequest(), FullMemory(), RecallTool(), options).body["messages"];
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["content"][0], Text("Give an example in C++."));
}

TEST(PromptAssembler, KeepFromNeverLeavesTheCurrentToolResultOrphaned) {
  json request = ChatRequest();
  const json tool_use = {{"type", "tool_use"}, {"id", "toolu_2"}, {"name", "bash"}, {"input", json::object()}};
  const json tool_result = {{"type", "tool_result"}, {"tool_use_id", "toolu_2"}, {"content", "ok"}};
  request["messages"] = json::array({Message("user", "Hi"), Message("assistant", "Hello"), Message("user", "Run."),
                                     Message("assistant", json::array({tool_use})),
                                     Message("user", json::array({tool_result}))});
  AssembleOptions options = Anthropic();
  options.history_keep_from = 99;
  const json messages = MustAssemble(request, FullMemory(), RecallTool(), options).body["messages"];
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], Message("user", "Run."));
}

// ---------------------------------------------------------------------------
// OpenAI wire

json OpenAIChatRequest() {
  return json{{"model", "deepseek-chat"},
              {"stream", true},
              {"messages",
               {Message("system", "You are Ari.\n当前时间：2026-06-19 21:03"), Message("user", "Hi"),
                Message("assistant", "Hello!"), Message("user", "What did I run last week?")}}};
}

TEST(PromptAssembler, OpenAIWireHasNoCacheControlAnywhere) {
  const Assembled out = MustAssemble(OpenAIChatRequest(), FullMemory(), OpenAIRecallTool(), OpenAI());
  EXPECT_FALSE(HasCacheControlAnywhere(out.body));
  EXPECT_EQ(out.markers_added, 0);
  EXPECT_EQ(out.markers_total, 0);
}

TEST(PromptAssembler, OpenAIWireKeepsTheSameOrderInOneSystemMessage) {
  MemoryBlocks memory = FullMemory();
  memory.volatile_text = "Menu:\n06-14 half marathon in Chengdu";
  const Assembled out = MustAssemble(OpenAIChatRequest(), memory, OpenAIRecallTool(), OpenAI());
  const json& messages = out.body["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0]["role"], "system");
  const std::string system = messages[0]["content"];
  EXPECT_EQ(system.find("You are Ari.\n\n<profile name=\"persona\">"), 0u);
  EXPECT_LT(system.find("<profile name=\"user\">"), system.find("<recent_days>"));
  EXPECT_LT(system.find("<recent_days>"), system.find("<conversation_summary>"));
  EXPECT_EQ(system.find("当前时间"), std::string::npos);
  EXPECT_EQ(messages[1], Message("user", "Hi"));
  EXPECT_EQ(messages[2], Message("assistant", "Hello!"));
  EXPECT_EQ(messages[3]["content"],
            "What did I run last week?\n\n<turn_context>\n当前时间：2026-06-19 21:03\n\n"
            "Menu:\n06-14 half marathon in Chengdu\n</turn_context>");
  EXPECT_THAT(out.moved_lines, ElementsAre("当前时间：2026-06-19 21:03"));
  EXPECT_EQ(out.body["tools"], json::array({OpenAIRecallTool()}));
  EXPECT_EQ(out.body["stream"], true);
}

TEST(PromptAssembler, OpenAIWithoutASystemMessageGetsOneAtTheFront) {
  json request = OpenAIChatRequest();
  request["messages"].erase(request["messages"].begin());
  MemoryBlocks memory = FullMemory();
  memory.summary.clear();
  const json messages = MustAssemble(request, memory, OpenAIRecallTool(), OpenAI()).body["messages"];
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0]["role"], "system");
  EXPECT_EQ(messages[0]["content"].get<std::string>().find("<profile name=\"persona\">"), 0u);
}

TEST(PromptAssembler, OpenAIArrayContentGetsAnExtraTextPart) {
  json request = OpenAIChatRequest();
  const json image = {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64,iVBORw0KGgo="}}}};
  request["messages"][3] = Message("user", json::array({Text("这是什么？"), image}));
  const json turn = MustAssemble(request, FullMemory(), OpenAIRecallTool(), OpenAI()).body["messages"][3]["content"];
  ASSERT_EQ(turn.size(), 3u);
  EXPECT_EQ(turn[0], Text("这是什么？"));
  EXPECT_EQ(turn[1], image);
  EXPECT_THAT(turn[2]["text"].get<std::string>(), HasSubstr("<turn_context>"));
}

TEST(PromptAssembler, OpenAIToolMessagesAndToolCallsPassThrough) {
  json request = OpenAIChatRequest();
  const json call = {{"role", "assistant"},
                     {"content", nullptr},
                     {"tool_calls", {{{"id", "call_1"}, {"type", "function"}, {"function", {{"name", "weather"}, {"arguments", "{}"}}}}}}};
  const json result = {{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "晴 28°C"}};
  request["messages"] = json::array({Message("user", "Weather?"), call, result, Message("user", "Thanks")});
  const json messages = MustAssemble(request, FullMemory(), OpenAIRecallTool(), OpenAI()).body["messages"];
  ASSERT_EQ(messages.size(), 5u);
  EXPECT_EQ(messages[2], call);
  EXPECT_EQ(messages[3], result);
}

// ---------------------------------------------------------------------------
// Responses, passed through

AssembleOptions Responses() { return AssembleOptions{Wire::kResponses}; }

json ResponsesRecallTool() {
  return json{{"type", "function"}, {"name", "recall"}, {"parameters", {{"type", "object"}}}};
}

json InputText(const std::string& text) { return json{{"type", "input_text"}, {"text", text}}; }

// What Codex sends on its second request of a turn: its developer and
// context messages, the user's question, the model's encrypted reasoning
// and its shell call with the output, then a new user message.
json CodexRequest() {
  return json{{"model", "gpt-5-codex"},
              {"instructions", "You are Codex, a coding agent."},
              {"include", json::array({"reasoning.encrypted_content"})},
              {"prompt_cache_key", "0199-session"},
              {"text", {{"verbosity", "low"}}},
              {"service_tier", "priority"},
              {"parallel_tool_calls", false},
              {"reasoning", {{"effort", "high"}, {"summary", "auto"}}},
              {"store", false},
              {"stream", true},
              {"tools", {{{"type", "function"}, {"name", "shell"}, {"parameters", {{"type", "object"}}}},
                         {{"type", "web_search"}}}},
              {"input",
               {{{"type", "message"}, {"role", "developer"}, {"content", json::array({InputText("<permissions>…</permissions>")})}},
                {{"type", "message"}, {"role", "user"}, {"content", json::array({InputText("<environment_context>…</environment_context>")})}},
                {{"type", "message"}, {"role", "user"}, {"content", json::array({InputText("List the files.")})}},
                {{"type", "reasoning"}, {"id", "rs_1"}, {"summary", json::array()}, {"encrypted_content", "gAAAAB-opaque=="}},
                {{"type", "function_call"}, {"id", "fc_1"}, {"call_id", "call_1"}, {"name", "shell"}, {"arguments", "{\"command\":[\"ls\"]}"}},
                {{"type", "function_call_output"}, {"call_id", "call_1"}, {"output", "a.txt"}},
                {{"type", "message"}, {"role", "assistant"}, {"content", json::array({{{"type", "output_text"}, {"text", "One file: a.txt."}}})}},
                {{"type", "message"}, {"role", "user"}, {"content", json::array({InputText("And the hidden ones?")})}}}}};
}

TEST(PromptAssembler, ResponsesKeepsEveryFieldAndItemAndAddsTheMemoryAtBothEnds) {
  const json request = CodexRequest();
  MemoryBlocks memory = FullMemory();
  memory.summary.clear();
  const Assembled out = MustAssemble(request, memory, ResponsesRecallTool(), Responses());
  for (const auto& field : request.items()) {
    if (field.key() == "instructions" || field.key() == "tools" || field.key() == "input") continue;
    EXPECT_EQ(out.body[field.key()], field.value()) << field.key() << " goes up as the client sent it";
  }
  const std::string instructions = out.body["instructions"];
  EXPECT_EQ(instructions.find("You are Codex, a coding agent.\n\n<profile name=\"persona\">"), 0u);
  EXPECT_LT(instructions.find("<profile name=\"user\">"), instructions.find("<recent_days>"));
  EXPECT_EQ(out.body["tools"], json::array({request["tools"][0], request["tools"][1], ResponsesRecallTool()}));
  EXPECT_TRUE(out.recall_offered);
  const json& input = out.body["input"];
  ASSERT_EQ(input.size(), request["input"].size());
  for (size_t i = 0; i + 1 < input.size(); ++i) EXPECT_EQ(input[i], request["input"][i]) << "item " << i;
  EXPECT_EQ(input[3]["encrypted_content"], "gAAAAB-opaque==");
  const json& last = input.back()["content"];
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0], InputText("And the hidden ones?"));
  EXPECT_EQ(last[1]["type"], "input_text");
  EXPECT_EQ(last[1]["text"].get<std::string>().find("<turn_context>\nCurrent time: 2026-06-19 21:03"), 0u);
  EXPECT_FALSE(HasCacheControlAnywhere(out.body));
}

TEST(PromptAssembler, ResponsesPrefixIsTheSameOnTheNextTurn) {
  const json first = CodexRequest();
  json second = first;
  second["input"].push_back({{"type", "message"}, {"role", "assistant"}, {"content", json::array({{{"type", "output_text"}, {"text", "None."}}})}});
  second["input"].push_back({{"type", "message"}, {"role", "user"}, {"content", json::array({InputText("Thanks.")})}});
  MemoryBlocks memory = FullMemory();
  const Assembled a = MustAssemble(first, memory, ResponsesRecallTool(), Responses());
  memory.volatile_text = "Current time: 2026-06-19 21:09\nMenu:\n06-15 a different hint";
  const Assembled b = MustAssemble(second, memory, ResponsesRecallTool(), Responses());
  EXPECT_EQ(a.body["instructions"].dump(), b.body["instructions"].dump());
  EXPECT_EQ(a.body["tools"].dump(), b.body["tools"].dump());
  for (size_t i = 0; i + 1 < first["input"].size(); ++i) {
    EXPECT_EQ(a.body["input"][i].dump(), b.body["input"][i].dump()) << "item " << i;
  }
  EXPECT_EQ(b.body["input"][first["input"].size() - 1], first["input"].back()) << "last turn's block is gone";
}

TEST(PromptAssembler, ResponsesStringInputStaysAStringAndTimeLinesLeaveTheInstructions) {
  const json request = {{"model", "m"}, {"instructions", "Be brief.\nCurrent time: 2026-06-19 21:03"}, {"input", "hi"}};
  MemoryBlocks memory;
  memory.volatile_text = "Menu:\n06-14 half marathon";
  const Assembled out = MustAssemble(request, memory, nullptr, Responses());
  EXPECT_EQ(out.body["instructions"], "Be brief.");
  EXPECT_EQ(out.body["input"],
            "hi\n\n<turn_context>\nCurrent time: 2026-06-19 21:03\n\nMenu:\n06-14 half marathon\n</turn_context>");
  EXPECT_FALSE(out.body.contains("tools"));
  const json untouched = {{"model", "m"}, {"input", json::array({{{"role", "user"}, {"content", "hi"}}})}};
  EXPECT_EQ(MustAssemble(untouched, MemoryBlocks{}, nullptr, Responses()).body, untouched)
      << "no memory: the body goes as it came";
  EXPECT_EQ(Assemble(json{{"input", 3}}, memory, nullptr, Responses()).status().code(), Code::kInvalidArgument);
}

// ---------------------------------------------------------------------------
// Bad input

TEST(PromptAssembler, RejectsWhatIsNotARequest) {
  EXPECT_EQ(Assemble(json::array(), FullMemory(), RecallTool(), Anthropic()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Assemble(json{{"model", "x"}}, FullMemory(), RecallTool(), Anthropic()).status().code(), Code::kInvalidArgument);
  json bad_system = ChatRequest();
  bad_system["system"] = 42;
  EXPECT_EQ(Assemble(bad_system, FullMemory(), RecallTool(), Anthropic()).status().code(), Code::kInvalidArgument);
  json bad_message = ChatRequest();
  bad_message["messages"][1] = "not an object";
  EXPECT_EQ(Assemble(bad_message, FullMemory(), RecallTool(), Anthropic()).status().code(), Code::kInvalidArgument);
  json bad_tools = ChatRequest();
  bad_tools["tools"] = "recall";
  EXPECT_EQ(Assemble(bad_tools, FullMemory(), RecallTool(), Anthropic()).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace cilia::gateway
