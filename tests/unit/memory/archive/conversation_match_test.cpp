#include "memory/archive/conversation_match.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"
#include "memory/archive/archive.h"
#include "ingest/context_parts.h"

namespace cilia::memory {
namespace {

ChatHistoryMessage U(std::string text) { return {"user", std::move(text)}; }
ChatHistoryMessage A(std::string text) { return {"assistant", std::move(text)}; }

std::vector<ChatHistoryMessage> Concat(std::vector<ChatHistoryMessage> a, const std::vector<ChatHistoryMessage>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

class ConversationMatchTest : public ::testing::Test {
 protected:
  // Stores a conversation as the gateway would (message i at first_at + i
  // minutes, caller ids "<id>-<i>") and tags it; returns its row.
  int64_t Store(const std::string& id, const std::vector<ChatHistoryMessage>& messages,
                std::string_view client_user = "alice", UnixMs first_at = 1'779'000'000'000) {
    ingest::IngestConversation c;
    c.conversation_id = id;
    c.source = "gateway";
    for (size_t i = 0; i < messages.size(); ++i) {
      ingest::IngestMessage m;
      m.id = id + "-" + std::to_string(i);
      m.role = messages[i].role;
      m.content = messages[i].text;
      m.created_at_ms = first_at + static_cast<int64_t>(i) * kMsPerMinute;
      c.messages.push_back(std::move(m));
    }
    auto out = archive_.Store(c);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(TagConversationUser(t_.ns(), out->conversation_row, client_user).ok());
    return out->conversation_row;
  }

  std::optional<ConversationMatch> Find(const std::vector<ChatHistoryMessage>& history,
                                        std::string_view client_user = "alice") {
    auto found = FindContinuedConversation(t_.ns(), client_user, history);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? *found : std::nullopt;
  }

  testing::TestNamespace t_;
  Archive archive_{t_.ns()};
};

const std::vector<ChatHistoryMessage> kTrip = {
    U("Help me plan three days in Chengdu."),
    A("Day 1: People's Park and a teahouse. Day 2: the pandas. Day 3: Jinli street."),
    U("What should I eat there?"),
    A("Hotpot, dan dan noodles and rabbit heads, if you are brave."),
};

TEST_F(ConversationMatchTest, TheWholeHistoryResentFindsTheConversationAndTheNewMessage) {
  const int64_t row = Store("trip", kTrip);
  auto match = Find(Concat(kTrip, {U("Is the tea strong?")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "trip");
  EXPECT_EQ(match->conversation_row, row);
  EXPECT_EQ(match->matched, 4);
  EXPECT_EQ(match->last_matched_seq, 3);
  EXPECT_EQ(match->last_matched_index, 3);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{4}));
}

TEST_F(ConversationMatchTest, ToolCallsAndResultsMatchByTheirIdsNotTheirText) {
  // A tool loop as the gateway keeps it: the question, a call, its result, another call.
  ingest::IngestConversation c;
  c.conversation_id = "tools";
  c.source = "gateway";
  auto add = [&](std::string role, nlohmann::json content) {
    ingest::IngestMessage m;
    m.id = "tools-" + std::to_string(c.messages.size());
    m.role = std::move(role);
    m.content = std::move(content);
    c.messages.push_back(std::move(m));
  };
  add("user", "weather in Paris?");
  add("assistant", nlohmann::json::array({ingest::ToolCallPart("c1", "get_weather", "{}")}));
  add("tool", nlohmann::json::array({ingest::ToolResultPart("c1", "sunny", false)}));
  add("assistant",
      nlohmann::json::array({ingest::TextPart("And Rome?"), ingest::ToolCallPart("c2", "get_weather", "{}")}));
  auto stored = archive_.Store(c);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_TRUE(TagConversationUser(t_.ns(), stored->conversation_row, "alice").ok());

  // Resent with the second result new; the client dropped the text beside the call.
  auto match = Find({U("weather in Paris?"), {"assistant", "", "call:c1"}, {"tool", "", "result:c1"},
                     {"assistant", "", "call:c2"}, {"tool", "", "result:c2"}});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 4);
  EXPECT_EQ(match->last_matched_index, 3);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{4}));

  // Or with the text and without the call (and a message stored before calls were kept is found by its text).
  match = Find({U("weather in Paris?"), {"assistant", "", "call:c1"}, {"tool", "", "result:c1"}, A("And Rome?")});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 4);

  // Another call is another message, though both have no text.
  match = Find({U("weather in Paris?"), {"assistant", "", "call:c9"}});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 1);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{1}));
}

TEST_F(ConversationMatchTest, ARetriedTurnWhoseMessageIsStoredHasNothingNew) {
  Store("trip", kTrip);
  auto match = Find(kTrip);
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 4);
  EXPECT_TRUE(match->unmatched.empty());
}

TEST_F(ConversationMatchTest, OnlyTheLastMessagesSentStillMatch) {
  std::vector<ChatHistoryMessage> long_chat;
  for (int i = 0; i < 40; ++i) {
    long_chat.push_back(U("question number " + std::to_string(i)));
    long_chat.push_back(A("answer number " + std::to_string(i)));
  }
  Store("endless", long_chat);
  std::vector<ChatHistoryMessage> last_six(long_chat.end() - 6, long_chat.end());
  auto match = Find(Concat(last_six, {U("question number 40")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "endless");
  EXPECT_EQ(match->matched, 6);
  EXPECT_EQ(match->last_matched_seq, 79);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{6}));
}

TEST_F(ConversationMatchTest, AReplyRegeneratedAndStoredTwiceDoesNotBreakTheMatch) {
  // The client regenerated the answer: both replies are stored, it keeps the second.
  Store("regen", {U("Name a colour."), A("Blue."), A("Vermilion.")});
  auto match = Find({U("Name a colour."), A("Vermilion."), U("Another one?")});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 2);
  EXPECT_EQ(match->last_matched_seq, 2);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{2}));
}

TEST_F(ConversationMatchTest, AnEditedUserMessageInTheMiddleIsReportedAndTheRestMatches) {
  Store("trip", kTrip);
  std::vector<ChatHistoryMessage> edited = kTrip;
  edited[2].text = "What should I eat there? I am vegetarian.";
  auto match = Find(Concat(edited, {U("Thanks!")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 3);
  EXPECT_EQ(match->last_matched_index, 3);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{2, 4}));
}

TEST_F(ConversationMatchTest, AnEditedLastMessageBranchesOffTheStoredConversation) {
  Store("trip", kTrip);
  auto match = Find({kTrip[0], kTrip[1], U("What should I drink there?")});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "trip");
  EXPECT_EQ(match->matched, 2);
  EXPECT_EQ(match->last_matched_seq, 1);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{2}));
}

TEST_F(ConversationMatchTest, OfTwoConversationsOpeningWithHiTheLongerMatchWins) {
  const std::vector<ChatHistoryMessage> packing = {U("hi"), A("Hi! How can I help?"),
                                                   U("I need a packing list for Iceland."),
                                                   A("Wool layers, a shell jacket, hiking boots.")};
  Store("packing", packing, "alice", 1'779'000'000'000);
  // Newer, and opening the same way.
  Store("short", {U("hi"), A("Hi! How can I help?")}, "alice", 1'779'500'000'000);
  auto match = Find(Concat(packing, {U("And for the car?")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "packing");
  EXPECT_EQ(match->matched, 4);
  // Equally long matches: the most recently updated wins.
  auto tie = Find({U("hi"), A("Hi! How can I help?"), U("What time is it?")});
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(tie->conversation_id, "short");
  EXPECT_EQ(tie->matched, 2);
}

TEST_F(ConversationMatchTest, ConversationsOfAnotherClientUserNeverMatch) {
  Store("trip", kTrip, "alice");
  const auto history = Concat(kTrip, {U("Is the tea strong?")});
  EXPECT_FALSE(Find(history, "bob").has_value());
  EXPECT_FALSE(Find(history, "").has_value());
  // "" is a tag like any other.
  Store("anonymous", {U("Tell me a joke."), A("Why did the panda cross the road?")}, "");
  auto anonymous = Find({U("Tell me a joke."), A("Why did the panda cross the road?"), U("Why?")}, "");
  ASSERT_TRUE(anonymous.has_value());
  EXPECT_EQ(anonymous->conversation_id, "anonymous");
  EXPECT_FALSE(Find({U("Tell me a joke.")}, "alice").has_value());
}

TEST_F(ConversationMatchTest, UntaggedConversationsAndRetaggedOnesFollowTheTag) {
  ingest::IngestConversation imported;
  imported.conversation_id = "imported";
  imported.source = "import";
  for (const auto& m : kTrip) imported.messages.push_back({"", m.role, "", m.text, 1'779'000'000'000});
  ASSERT_TRUE(archive_.Store(imported).ok());
  EXPECT_FALSE(Find(kTrip).has_value());

  const int64_t row = Store("trip", kTrip, "alice");
  ASSERT_TRUE(TagConversationUser(t_.ns(), row, "bob").ok());
  EXPECT_FALSE(Find(kTrip, "alice").has_value());
  auto bob = Find(kTrip, "bob");
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->conversation_id, "trip");
}

TEST_F(ConversationMatchTest, AnEmptyHistoryOrOneWithoutTextMatchesNothing) {
  Store("trip", kTrip);
  EXPECT_FALSE(Find({}).has_value());
  EXPECT_FALSE(Find({U(""), A(" \n\t ")}).has_value());
  EXPECT_FALSE(Find({U("Something never said before.")}).has_value());
}

TEST_F(ConversationMatchTest, RolesMustAgree) {
  Store("echo", {U("ping"), A("pong")});
  EXPECT_FALSE(Find({A("ping"), U("pong")}).has_value());
}

TEST_F(ConversationMatchTest, ChineseAndEmojiTextsMatchWithWhitespaceAtTheEndsIgnored) {
  const std::vector<ChatHistoryMessage> run = {U("今天跑了10公里🏃‍♂️，配速5分50！"),
                                               A("太棒了👏👏 膝盖还好吗？"), U("还行，就是有点酸。🦵")};
  Store("run", run);
  auto match = Find({U("  今天跑了10公里🏃‍♂️，配速5分50！\n"), A("太棒了👏👏 膝盖还好吗？\r\n"),
                     U("\t还行，就是有点酸。🦵"), A("记得拉伸。")});
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "run");
  EXPECT_EQ(match->matched, 3);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{3}));
  // Inner whitespace and the emoji themselves count.
  EXPECT_FALSE(Find({U("今天跑了10公里🏃，配速5分50！")}).has_value());
  EXPECT_FALSE(Find({A("太棒了👏👏膝盖还好吗？")}).has_value());
}

TEST_F(ConversationMatchTest, LongTextsSharingTheirOpeningAreToldApartByTheRest) {
  const std::string opening(80, 'x');  // longer than the indexed opening
  std::string han;
  for (int i = 0; i < 12; ++i) han += "我们去成都吧";
  Store("first", {U(opening + " first"), A(han + "一")});
  Store("second", {U(opening + " second"), A(han + "二")});
  auto first = Find({U(opening + " first"), U("next")});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->conversation_id, "first");
  auto second = Find({A(han + "二"), U("next")});
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->conversation_id, "second");
  EXPECT_FALSE(Find({A(han)}).has_value());
}

TEST_F(ConversationMatchTest, AForgottenMessageIsNotFoundAndTheRestStillMatches) {
  Store("trip", kTrip);
  ASSERT_TRUE(archive_.ForgetMessage("trip", "trip-2").ok());
  auto match = Find(Concat(kTrip, {U("Is the tea strong?")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 3);
  EXPECT_EQ(match->last_matched_seq, 3);
  EXPECT_EQ(match->last_matched_index, 3);
  // Before last_matched_index: the gateway can tell it from the new message.
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{2, 4}));

  ASSERT_TRUE(archive_.ForgetConversation("trip").ok());
  EXPECT_FALSE(Find(kTrip).has_value());
}

TEST_F(ConversationMatchTest, MessagesTheClientShowsBeforeTheStoredOnesAreIgnored) {
  // The client kept older turns that were never stored here.
  Store("later", {kTrip[2], kTrip[3]});
  auto match = Find(Concat(kTrip, {U("Is the tea strong?")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->matched, 2);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{4}));
}

TEST_F(ConversationMatchTest, ALongHistoryOfCommonRepliesFindsItsOwnStretch) {
  // Many "ok"s: the one that continues is where the distinctive tail is.
  std::vector<ChatHistoryMessage> chat;
  for (int i = 0; i < 200; ++i) {
    chat.push_back(U("ok"));
    chat.push_back(A("Noted, item " + std::to_string(i) + "."));
  }
  Store("lists", chat);
  Store("other", {U("ok"), A("Fine.")}, "alice", 1'779'900'000'000);
  std::vector<ChatHistoryMessage> tail(chat.end() - 10, chat.end());
  auto match = Find(Concat(tail, {U("ok")}));
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->conversation_id, "lists");
  EXPECT_EQ(match->matched, 10);
  EXPECT_EQ(match->last_matched_seq, 399);
  EXPECT_EQ(match->unmatched, (std::vector<size_t>{10}));
}

}  // namespace
}  // namespace cilia::memory
