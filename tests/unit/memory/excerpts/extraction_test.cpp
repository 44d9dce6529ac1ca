#include "memory/excerpts/extraction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fmt/format.h>

#include "testing/test_namespace.h"
#include "ingest/context_parts.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "text/utf8.h"
#include "testing/scripted_model.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"

namespace cilia::memory {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

json Item(const std::string& content, const std::string& quote, double confidence = 0.9,
          json fact_key = nullptr, const std::string& type = "fact") {
  return {{"date", "2026-05-20"}, {"content", content}, {"quote", quote}, {"type", type},
          {"fact_key", fact_key}, {"confidence", confidence}};
}
std::string Items(std::vector<json> items) { return json{{"items", items}}.dump(); }
std::string Judge(int item, const std::string& memory, const std::string& relation) {
  return json{{"judgements", {{{"item", item}, {"memory", memory}, {"relation", relation}}}}}.dump();
}

class ExtractionTest : public ::testing::Test {
 protected:
  ExtractionTest() : config_(model_.MakeConfig()) {}

  // Stores messages (alternating user/assistant) at one-minute steps.
  int64_t Say(const std::string& conversation, const std::vector<std::string>& texts, int64_t at = 1'779'900'000'000) {
    ingest::IngestConversation c;
    c.conversation_id = conversation;
    for (size_t i = 0; i < texts.size(); ++i) {
      c.messages.push_back({"", i % 2 == 0 ? "user" : "assistant", i % 2 == 0 ? "Lena" : "",
                            texts[i], at + static_cast<int64_t>(next_minute_++) * 60'000});
    }
    auto out = Archive(t_.ns()).StoreAndIndex(c);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out->conversation_row;
  }
  // Stores messages as the importers do (source "import"), an hour apart
  // from 2023 on: old history, long quiet.
  int64_t Imported(const std::string& conversation, const std::vector<std::string>& texts) {
    ingest::IngestConversation c;
    c.conversation_id = conversation;
    c.source = "import";
    for (size_t i = 0; i < texts.size(); ++i) {
      c.messages.push_back({"", i % 2 == 0 ? "user" : "assistant", "", texts[i],
                            1'700'000'000'000 + static_cast<int64_t>(next_hour_++) * 3'600'000});
    }
    auto out = Archive(t_.ns()).StoreAndIndex(c);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out->conversation_row;
  }
  ExtractionOutcome Extract(const ExtractionRunOptions& options = {}) {
    auto out = RunExtraction(t_.ns(), config_, t_.clock(), options);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : ExtractionOutcome{};
  }
  ExtractionEstimate Estimate(const std::optional<std::vector<int64_t>>& rows = std::nullopt) {
    auto out = EstimateExtraction(t_.ns(), config_, rows);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : ExtractionEstimate{};
  }
  std::vector<store::ExcerptRecord> Excerpts(std::optional<ExcerptStatus> status = std::nullopt) {
    return *t_.ns().store().Read([&](store::Database& db) { return store::ExcerptRepo(db).List(status, {}); });
  }
  std::vector<store::CandidateRecord> Candidates() {
    return *t_.ns().store().Read([&](store::Database& db) { return store::ExcerptRepo(db).ListCandidates(std::nullopt, {}); });
  }
  int64_t Cursor(int64_t conversation) {
    auto c = *t_.ns().store().Read([&](store::Database& db) { return store::ExcerptRepo(db).GetCursor(conversation); });
    return c ? c->through_seq : 0;
  }

  testing::TestNamespace t_;
  testing::ScriptedModel model_;
  Config config_;
  int next_minute_ = 0;
  int next_hour_ = 0;
};

// `n` different messages, "<topic> 1: ...", "<topic> 2: ...".
std::vector<std::string> Lines(const std::string& topic, int n) {
  std::vector<std::string> out;
  for (int i = 1; i <= n; ++i) out.push_back(fmt::format("{} {}: we talked about it for a while, again.", topic, i));
  return out;
}

const std::vector<std::string> kTrip = {
    "We finally booked the trip: two weeks in Lisbon in September.",
    "That sounds wonderful! Are you taking the train from Madrid?",
    "No, we fly. My sister Ana lives  in Porto, so we visit her on the way back.",
    "Lovely. Say hi to Ana.",
    "I will. Also, I stopped drinking coffee last month; green tea only now.",
};

TEST_F(ExtractionTest, KeepsItemsWhoseQuoteIsInAMessageAndDropsInventedOrParaphrasedOnes) {
  const int64_t conv = Say("trip", kTrip);
  model_.Then(Items({Item("Lena's sister Ana lives in Porto.", "My sister Ana lives in\nPorto"),  // whitespace differs
                     Item("Lena is afraid of flying.", "I am afraid of flying"),                 // invented
                     Item("Lena quit coffee.", "I quit coffee last month"),                      // paraphrased
                     Item("Lena flies.", "we fly"),                                              // too short
                     Item("Lena drinks only green tea.", "green tea only now", 0.95, "drink", "preference")}));
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.batches_ok, 1);
  EXPECT_EQ(out.items_dropped, 3);
  EXPECT_EQ(out.items_added, 2);
  EXPECT_EQ(out.model_calls, 1);
  EXPECT_GT(out.tokens_in, 0);
  EXPECT_GT(out.tokens_out, 0);
  EXPECT_EQ(Cursor(conv), 5);

  auto excerpts = Excerpts();
  ASSERT_EQ(excerpts.size(), 2u);
  const store::ExcerptRecord& ana = excerpts[1];
  EXPECT_EQ(ana.content, "Lena's sister Ana lives in Porto.");
  EXPECT_EQ(ana.quote, "My sister Ana lives  in Porto") << "the message's own words, not the model's";
  EXPECT_EQ(ana.author, Author::kExtractor);
  EXPECT_EQ(ana.source.span_start, 12);
  EXPECT_EQ(excerpts[0].fact_key, "drink");
  EXPECT_EQ(excerpts[0].type, "preference");
}

TEST_F(ExtractionTest, TheRequestPutsInstructionsFirstAndTheMessagesLastWithHeadersOutsideTheText) {
  Say("trip", kTrip);
  Extract();
  ASSERT_EQ(model_.requests().size(), 1u);
  const json request = model_.requests()[0];
  EXPECT_EQ(request["model"], "cheap");
  ASSERT_EQ(request["messages"].size(), 2u);
  EXPECT_EQ(request["messages"][0]["role"], "system");
  EXPECT_THAT(request["messages"][0]["content"].get<std::string>(), HasSubstr("at most 5"));
  EXPECT_THAT(request["messages"][0]["content"].get<std::string>(), HasSubstr("{\"items\": ["));
  const std::string user = model_.UserText(0);
  EXPECT_THAT(user, HasSubstr("Conversation: trip"));
  EXPECT_THAT(user, HasSubstr("· Lena]\nWe finally booked the trip: two weeks in Lisbon in September.\n"));
  EXPECT_THAT(user, HasSubstr("· Assistant]\nThat sounds wonderful!"));
  EXPECT_THAT(user, HasSubstr("My sister Ana lives  in Porto")) << "text as it was";
}

TEST_F(ExtractionTest, TheModelSeesTheOwnersWordsNotTheClientsHarnessText) {
  Say("cc", {"<system-reminder>\nAttribution for git commits and pull requests you create.\n</system-reminder>\n"
             "My sister Ana lives in Porto.",
             "Nice!", "<environment_context>\n  <cwd>/tmp/codex</cwd>\n</environment_context>",
             "Noted.", "I stopped drinking coffee last month."});
  model_.Then(Items({Item("Lena's sister Ana lives in Porto.", "My sister Ana lives in Porto.")}));
  const ExtractionOutcome out = Extract();
  ASSERT_EQ(model_.requests().size(), 1u);
  const std::string user = model_.UserText(0);
  EXPECT_THAT(user, Not(HasSubstr("Attribution")));
  EXPECT_THAT(user, Not(HasSubstr("system-reminder")));
  EXPECT_THAT(user, Not(HasSubstr("/tmp/codex"))) << "a message that is only harness text is not listed";
  EXPECT_THAT(user, HasSubstr("· Lena]\nMy sister Ana lives in Porto.\n"));
  EXPECT_THAT(user, HasSubstr("I stopped drinking coffee last month."));
  EXPECT_EQ(out.items_added, 1);
  ASSERT_EQ(Excerpts().size(), 1u);
  EXPECT_EQ(Excerpts()[0].source.span_start, 95) << "the quote's span is in the stored message, block and all";
}

TEST_F(ExtractionTest, ToolCallsAndResultsAreNotListedAndABatchOfOnlyThemIsNotSent) {
  ingest::IngestConversation c;
  c.conversation_id = "tools";
  auto add = [&](std::string role, json content) {
    c.messages.push_back({"", std::move(role), "", std::move(content), 1'779'900'000'000 + next_minute_++ * 60'000});
  };
  add("user", "My sister Ana lives in Porto.");
  add("assistant", json::array({ingest::ToolCallPart("c1", "search", R"({"q":"Porto"})")}));
  add("tool", json::array({ingest::ToolResultPart("c1", "Porto is a city in Portugal.", false)}));
  add("assistant", "Porto is lovely.");
  add("user", "I stopped drinking coffee last month.");
  auto stored = Archive(t_.ns()).StoreAndIndex(c);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  const int64_t conv = stored->conversation_row;
  model_.Then(Items({Item("Lena's sister Ana lives in Porto.", "My sister Ana lives in Porto.")}));
  Extract();
  ASSERT_EQ(model_.requests().size(), 1u);
  EXPECT_THAT(model_.UserText(0), Not(HasSubstr("Portugal")));
  EXPECT_THAT(model_.UserText(0), HasSubstr("Porto is lovely."));

  // A tool loop with no words since: read past, nothing sent.
  c.messages.clear();
  for (int i = 2; i < 4; ++i) {
    const std::string id = "c" + std::to_string(i);
    add("assistant", json::array({ingest::ToolCallPart(id, "search", "{}")}));
    add("tool", json::array({ingest::ToolResultPart(id, "nothing found", false)}));
  }
  ASSERT_TRUE(Archive(t_.ns()).StoreAndIndex(c).ok());
  const ExtractionEstimate estimate = Estimate();
  EXPECT_EQ(estimate.messages, 4);
  EXPECT_EQ(estimate.batches, 0) << "the estimate is what the run sends";
  EXPECT_EQ(estimate.prompt_tokens, 0);
  t_.clock().Advance(int64_t{config_.extraction.idle_minutes} * 60'000 + 1'779'900'000'000 - t_.clock().Now() +
                     next_minute_ * 60'000);
  Extract();
  EXPECT_EQ(model_.requests().size(), 1u);
  EXPECT_EQ(Cursor(conv), 9);
}

TEST_F(ExtractionTest, AQuoteThatHarnessTextHoldsTooIsPlacedWhereTheOwnerSaidIt) {
  Say("cc", {"<system-reminder>Earlier: My sister Ana lives in Porto.</system-reminder> My sister Ana lives in Porto.",
             "Nice!", "Anything else?", "No."});
  model_.Then(Items({Item("Lena's sister Ana lives in Porto.", "My sister Ana lives in Porto")}));
  ASSERT_EQ(Extract().items_added, 1);
  ASSERT_EQ(Excerpts().size(), 1u);
  EXPECT_EQ(Excerpts()[0].source.span_start, 74);
  EXPECT_EQ(Excerpts()[0].quote, "My sister Ana lives in Porto");
}

TEST_F(ExtractionTest, FewerThanTheMinimumWaitUntilTheConversationIsIdle) {
  const int64_t conv = Say("short", {"I adopted a cat called Miso today.", "Congratulations!", "She is tiny and grey."});
  t_.clock().Advance(-t_.clock().Now() + 1'779'900'000'000 + 5 * 60'000);  // five minutes after the chat
  Extract();
  EXPECT_TRUE(model_.requests().empty());
  t_.clock().Advance(int64_t{config_.extraction.idle_minutes} * 60'000);
  model_.Then(Items({Item("Lena adopted a grey cat called Miso.", "I adopted a cat called Miso today.")}));
  EXPECT_EQ(Extract().items_added, 1);
  EXPECT_EQ(Cursor(conv), 3);
  Extract();
  EXPECT_EQ(model_.requests().size(), 1u) << "the tail is extracted once";
}

TEST_F(ExtractionTest, BrokenJsonIsRetriedAtOnceWithHalfTheBatch) {
  const int64_t conv = Say("trip", kTrip);
  model_.Then("Sure! Here are the items: {\"items\": [ {\"content\": ");
  model_.Then("```json\n" + Items({Item("Lena booked two weeks in Lisbon in September.", "two weeks in Lisbon in September")}) + "\n```");
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.batches_ok, 2) << "the half, then the rest";
  EXPECT_EQ(out.items_added, 1);
  ASSERT_EQ(model_.requests().size(), 3u);
  EXPECT_THAT(model_.UserText(1), HasSubstr("Lisbon"));
  EXPECT_THAT(model_.UserText(1), HasSubstr("My sister Ana"));
  EXPECT_THAT(model_.UserText(1), Not(HasSubstr("Say hi to Ana"))) << "three of five";
  EXPECT_THAT(model_.UserText(2), HasSubstr("Lena] (context)\nNo, we fly. My sister Ana")) << "the overlap is context";
  EXPECT_EQ(Cursor(conv), 5);
}

TEST_F(ExtractionTest, ABatchThatKeepsFailingHoldsTheCursorThenIsMarkedFailedAfterThreeRuns) {
  const int64_t conv = Say("trip", kTrip);
  model_.SetScript([](const json&) { return std::string("I cannot help with that."); });
  for (int run = 1; run <= 2; ++run) {
    const ExtractionOutcome out = Extract();
    EXPECT_EQ(out.batches_failed, 1);
    EXPECT_EQ(out.model_calls, 2) << "the batch and its half";
    ASSERT_EQ(out.errors.size(), 1u);
    EXPECT_THAT(out.errors[0], HasSubstr("tried again next run"));
    EXPECT_EQ(Cursor(conv), 0) << "run " << run;
  }
  const ExtractionOutcome third = Extract();
  EXPECT_EQ(third.batches_skipped, 1);
  ASSERT_EQ(third.errors.size(), 1u);
  EXPECT_THAT(third.errors[0], HasSubstr("marked failed and skipped"));
  EXPECT_EQ(Cursor(conv), 5);
  auto batches = *t_.ns().store().Read([](store::Database& db) { return store::ExcerptRepo(db).AllBatches(); });
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].status, store::BatchStatus::kFailed);
  EXPECT_EQ(batches[0].attempts, 3);
}

TEST_F(ExtractionTest, AnUnreachableModelStopsTheRunWithoutCountingAgainstTheBatch) {
  const int64_t conv = Say("trip", kTrip);
  model_.ThenFail(400);
  const ExtractionOutcome out = Extract();
  EXPECT_THAT(out.upstream_error, HasSubstr("scripted failure"));
  EXPECT_EQ(Cursor(conv), 0);
  auto batches = *t_.ns().store().Read([](store::Database& db) { return store::ExcerptRepo(db).AllBatches(); });
  EXPECT_TRUE(batches.empty());
  model_.Then(Items({Item("Lena booked two weeks in Lisbon.", "two weeks in Lisbon in September")}));
  EXPECT_EQ(Extract().items_added, 1);
  EXPECT_EQ(Cursor(conv), 5);
}

TEST_F(ExtractionTest, ASucceededBatchIsNeverSentAgain) {
  const int64_t conv = Say("trip", kTrip);
  Extract();
  ASSERT_TRUE(t_.ns().store().Write([&](store::Database& db) {
    return store::ExcerptRepo(db).PutCursor({conv, 0, 0});
  }).ok());
  const ExtractionOutcome again = Extract();
  EXPECT_EQ(again.batches_cached, 1);
  EXPECT_EQ(again.model_calls, 0);
  EXPECT_EQ(Cursor(conv), 5);
}

TEST_F(ExtractionTest, AContradictionSupersedesTheOldExcerptReversibly) {
  Say("home", {"I live in Chengdu, near the university.", "Nice city!", "The hotpot here is the best.", "Agreed."});
  model_.Then(Items({Item("Lena lives in Chengdu.", "I live in Chengdu, near the university.", 0.9, "home_city")}));
  Extract();
  const int64_t old_id = Excerpts().front().id;
  Say("home", {"Big news: I moved from Chengdu to Beijing last week.", "Wow, how is Beijing?", "Cold, but I like it.",
               "Glad to hear."});
  model_.Then(Items({Item("Lena moved to Beijing.", "I moved from Chengdu to Beijing last week.", 0.9, "home_city")}));
  model_.Then(Judge(1, ExcerptPublicId(old_id), "update"));
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.items_added, 1);
  EXPECT_EQ(out.items_superseded, 1);
  EXPECT_EQ(out.model_calls, 2);
  EXPECT_THAT(model_.UserText(2), HasSubstr(ExcerptPublicId(old_id) + ": Lena lives in Chengdu."));

  auto active = Excerpts(ExcerptStatus::kActive);
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].content, "Lena moved to Beijing.");
  auto old = *memory::Excerpts(t_.ns()).Get(old_id);
  EXPECT_EQ(old->status, ExcerptStatus::kSuperseded);
  EXPECT_EQ(old->superseded_by, active[0].id);

  auto revived = memory::Excerpts(t_.ns()).Revive(old_id, Author::kOwner);
  ASSERT_TRUE(revived.ok());
  EXPECT_EQ(revived->status, ExcerptStatus::kActive);
  EXPECT_FALSE(revived->superseded_by);
  auto history = *memory::Excerpts(t_.ns()).History(old_id);
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[1].action, "supersede");
  EXPECT_EQ(history[1].who, Author::kExtractor);
  EXPECT_EQ(json::parse(*history[1].old_values)["status"], "active");
  EXPECT_EQ(history[2].action, "revive");
  EXPECT_EQ(json::parse(*history[2].new_values)["status"], "active");
}

TEST_F(ExtractionTest, TheSameFactAgainIsSeenAgainNotStoredTwice) {
  config_.extraction.similarity_threshold = 0.3;
  Say("tea", {"I only drink green tea these days.", "Good choice.", "Sencha mostly.", "Nice."});
  model_.Then(Items({Item("Lena drinks only green tea.", "I only drink green tea these days.")}));
  Extract();
  Say("tea", {"As I said, I only drink green tea now.", "I remember.", "Even at work.", "Consistent!"});
  // Same content: mechanically the same, no judge call.
  model_.Then(Items({Item("Lena drinks only green tea.", "I only drink green tea now.")}));
  ExtractionOutcome out = Extract();
  EXPECT_EQ(out.items_seen, 1);
  EXPECT_EQ(out.model_calls, 1);
  Say("tea", {"Green tea is the only tea for me, honestly.", "Ha.", "Really.", "OK."});
  model_.Then(Items({Item("Green tea is the only tea Lena drinks.", "Green tea is the only tea for me")}));
  model_.Then(Judge(1, "x_1", "same"));
  out = Extract();
  EXPECT_EQ(out.items_seen, 1) << "the model judged a rewording the same";
  auto excerpts = Excerpts();
  ASSERT_EQ(excerpts.size(), 1u);
  EXPECT_EQ(excerpts[0].seen_count, 3);
}

TEST_F(ExtractionTest, APinnedExcerptIsNeverSupersededAutomatically) {
  Say("job", {"I work as a nurse at the city hospital.", "Hard work!", "Night shifts too.", "Respect."});
  model_.Then(Items({Item("Lena is a nurse.", "I work as a nurse at the city hospital.", 0.9, "job")}));
  Extract();
  const int64_t old_id = Excerpts().front().id;
  ASSERT_TRUE(memory::Excerpts(t_.ns()).SetPinned(old_id, true, Author::kOwner).ok());
  Say("job", {"Maybe one day I will become a teacher instead.", "You'd be great.", "We'll see.", "Sure."});
  model_.Then(Items({Item("Lena works as a teacher.", "I will become a teacher instead", 0.9, "job")}));
  model_.Then(Judge(1, ExcerptPublicId(old_id), "update"));
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.items_superseded, 0);
  EXPECT_EQ(out.items_candidates, 1);
  EXPECT_EQ((*memory::Excerpts(t_.ns()).Get(old_id))->status, ExcerptStatus::kActive);
  auto candidates = Candidates();
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].reason, "protected_target");
  EXPECT_EQ(candidates[0].target_id, old_id);
}

TEST_F(ExtractionTest, LowConfidenceGoesToTheCandidatesQueue) {
  Say("trip", kTrip);
  model_.Then(Items({Item("Lena might visit Porto.", "so we visit her on the way back", 0.5),
                     Item("Lena's sister is Ana.", "My sister Ana lives  in Porto", 0.76)}));
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.items_candidates, 1);
  EXPECT_EQ(out.items_added, 1) << "0.76 is not below the threshold";
  auto candidates = Candidates();
  ASSERT_EQ(candidates.size(), 1u);
  EXPECT_EQ(candidates[0].reason, "low_confidence");
  EXPECT_EQ(candidates[0].quote, "so we visit her on the way back");
}

TEST_F(ExtractionTest, AChineseChatGivesChineseExcerptsQuotingTheMessages) {
  Say("zh", {"我上周从成都搬到北京了，住在海淀区。", "北京冷不冷？", "还好，就是风很大。我每天早上跑步五公里。", "真厉害！"});
  model_.SetScript([](const json& request) {
    const std::string system = request["messages"][0]["content"];
    EXPECT_THAT(system, HasSubstr("The conversation is in Chinese: write it in Chinese."));
    return Items({Item("她搬到了北京海淀区。", "我上周从成都搬到北京了，住在海淀区", 0.9, "home_city"),
                  Item("她每天早上跑步五公里。", "我每天早上跑步五公里。", 0.9, nullptr, "event"),
                  Item("她喜欢北京的风。", "我喜欢北京的风", 0.9)});
  });
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.items_added, 2);
  EXPECT_EQ(out.items_dropped, 1);
  auto messages = *t_.ns().store().Read([](store::Database& db) {
    store::MessageRepo repo(db);
    return repo.MessagesFrom(repo.FindConversation("zh").value()->id, 0);
  });
  for (const auto& e : Excerpts()) {
    EXPECT_EQ(DominantLanguage({{&messages[0], false}}), "Chinese");
    const auto& source = *std::find_if(messages.begin(), messages.end(), [&](const auto& m) { return m.id == e.source.message_id; });
    EXPECT_NE(source.text.find(e.quote), std::string::npos) << e.quote;
    EXPECT_EQ(e.quote, text::SubstrCodePoints(source.text, e.source.span_start, e.source.span_end - e.source.span_start));
  }
}

TEST(ParseExtractionReply, ToleratesFencesKeepsFiveAndMapsUnknownTypes) {
  json items = json::array();
  for (int i = 0; i < 7; ++i) items.push_back(Item("c" + std::to_string(i), "quote number " + std::to_string(i)));
  items[0]["type"] = "hobby";
  items[1].erase("confidence");
  items[2]["fact_key"] = "  ";
  auto parsed = ParseExtractionReply("```json\n" + json{{"items", items}}.dump() + "\n```", 5);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 5u);
  EXPECT_EQ((*parsed)[0].type, "other");
  EXPECT_EQ((*parsed)[1].confidence, 0.5);
  EXPECT_FALSE((*parsed)[2].fact_key);
  EXPECT_EQ((*parsed)[4].content, "c4");
}

TEST(ParseExtractionReply, ARepyWithoutTheItemsObjectFails) {
  EXPECT_FALSE(ParseExtractionReply("", 5).ok());
  EXPECT_FALSE(ParseExtractionReply("[{\"content\": \"x\"}]", 5).ok());
  EXPECT_FALSE(ParseExtractionReply("{\"memories\": []}", 5).ok());
  EXPECT_FALSE(ParseExtractionReply("{\"items\": [", 5).ok());
  auto empty = ParseExtractionReply("{\"items\": []}", 5);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(ParseExtractionReply, ItemsWithoutContentOrQuoteAreLeftOut) {
  auto parsed = ParseExtractionReply(R"({"items": [{"content": "x"}, {"quote": "yyyyyyyyyy"}, 3, {"content": "🌸 ok", "quote": "🌸🌸🌸🌸🌸🌸🌸🌸"}]})", 5);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  EXPECT_EQ((*parsed)[0].content, "🌸 ok");
}

// What it costs: the limits a run keeps to, and imported history.

TEST_F(ExtractionTest, ARunSendsAtMostMaxBatchesPerRunAndTheNextRunGoesOnFromThere) {
  config_.extraction.batch_size = 5;
  config_.extraction.overlap = 1;
  config_.extraction.max_batches_per_run = 2;
  const int64_t conv = Say("long", Lines("garden", 20));  // batches of 5, 4, 4, 4 and 3 new messages
  const ExtractionOutcome first = Extract();
  EXPECT_EQ(first.model_calls, 2);
  EXPECT_EQ(first.stopped, "max_batches_per_run");
  EXPECT_EQ(first.resumes, "next run");
  EXPECT_EQ(first.ToJson()["stopped"], "max_batches_per_run");
  EXPECT_EQ(Cursor(conv), 9) << "the cursor stays where the run stopped";
  EXPECT_EQ(Extract().model_calls, 2);
  EXPECT_EQ(Cursor(conv), 17);
  const ExtractionOutcome last = Extract();
  EXPECT_EQ(last.model_calls, 1);
  EXPECT_EQ(last.stopped, "");
  EXPECT_EQ(last.ToJson()["stopped"], nullptr);
  EXPECT_EQ(Cursor(conv), 20);
}

TEST_F(ExtractionTest, ABatchWhosePromptWouldPassTheDailyBudgetWaitsForTheNextLocalDay) {
  const int64_t conv = Say("trip", kTrip);
  const int64_t prompt = Estimate().prompt_tokens;
  ASSERT_GT(prompt, 100);
  config_.extraction.daily_token_budget = static_cast<int>(prompt + 50);
  ExtractionRunOptions spent;
  spent.spent_today = 100;  // earlier runs of the day
  const ExtractionOutcome stopped = Extract(spent);
  EXPECT_EQ(stopped.model_calls, 0);
  EXPECT_EQ(stopped.stopped, "daily_token_budget");
  const CivilDate today = t_.ns().tz().LocalDate(t_.clock().Now());
  EXPECT_EQ(stopped.resumes, AddDays(today, 1).ToString());
  const json detail = stopped.ToJson();
  EXPECT_EQ(detail["budget"]["daily_tokens"], prompt + 50);
  EXPECT_EQ(detail["budget"]["spent_today"], 100);
  EXPECT_EQ(detail["budget"]["remaining"], prompt - 50);
  EXPECT_EQ(Cursor(conv), 0);

  const ExtractionOutcome fresh_day = Extract();  // nothing spent yet on this day
  EXPECT_EQ(fresh_day.model_calls, 1);
  EXPECT_EQ(fresh_day.stopped, "");
  EXPECT_EQ(fresh_day.spent_today, fresh_day.tokens_in + fresh_day.tokens_out);
  EXPECT_EQ(Cursor(conv), 5);
}

TEST_F(ExtractionTest, WithoutABudgetOnlyTheBatchLimitBounds) {
  config_.extraction.daily_token_budget = 0;
  Say("trip", kTrip);
  ExtractionRunOptions spent;
  spent.spent_today = 1'000'000'000;
  const ExtractionOutcome out = Extract(spent);
  EXPECT_EQ(out.model_calls, 1);
  EXPECT_EQ(out.ToJson()["budget"], nullptr);
}

TEST_F(ExtractionTest, ImportedHistoryWaitsUntilTheOwnerAsksForItAndLiveMessagesDoNot) {
  const int64_t live = Say("live", kTrip);
  const int64_t old = Imported("old", Lines("school", 6));
  const ExtractionOutcome first = Extract();
  EXPECT_EQ(first.model_calls, 1) << "the live conversation only";
  EXPECT_EQ(Cursor(live), 5);
  EXPECT_EQ(Cursor(old), 0);
  EXPECT_EQ(first.waiting_conversations, 1);
  EXPECT_EQ(first.waiting_messages, 6);
  EXPECT_EQ(first.ToJson()["waiting_for_backfill"]["messages"], 6);
  EXPECT_EQ(Extract().model_calls, 0) << "it keeps waiting";

  ExtractionRunOptions backfill;
  backfill.backfill = true;
  const ExtractionOutcome asked = Extract(backfill);
  EXPECT_EQ(asked.model_calls, 1);
  EXPECT_TRUE(asked.backfill);
  EXPECT_EQ(asked.waiting_messages, 0);
  EXPECT_EQ(Cursor(old), 6);

  // The owner's word covered what was stored then; a later import waits for its own.
  const int64_t later = Imported("later", Lines("work", 4));
  const int64_t more = Imported("old", Lines("school again", 4));
  EXPECT_EQ(Extract().model_calls, 0);
  EXPECT_EQ(Cursor(later), 0);
  EXPECT_EQ(Cursor(more), 6);
  config_.extraction.backfill = true;  // extraction.backfill: imported history is extracted like live messages
  EXPECT_EQ(Extract().model_calls, 2);
  EXPECT_EQ(Cursor(later), 4);
  EXPECT_EQ(Cursor(old), 10);
}

TEST_F(ExtractionTest, ABatchNeverMixesLiveMessagesWithImportedHistoryThatWaits) {
  const int64_t conv = Say("mixed", {"I planted tomatoes on the balcony today.", "Nice!", "They need sun.", "Yes."});
  Imported("mixed", {"An old message about the winter trip to Harbin.", "It was freezing there.",
                     "We saw the ice sculptures.", "Beautiful."});
  const ExtractionOutcome out = Extract();
  ASSERT_EQ(model_.requests().size(), 1u);
  EXPECT_THAT(model_.UserText(0), HasSubstr("tomatoes"));
  EXPECT_THAT(model_.UserText(0), Not(HasSubstr("Harbin")));
  EXPECT_EQ(Cursor(conv), 4);
  EXPECT_EQ(out.waiting_conversations, 1);
  EXPECT_EQ(out.waiting_messages, 4);
}

TEST_F(ExtractionTest, ProgressCountsTheMessagesDoneOfThoseToExtractAndTheTokensAndEachBatchIsCheckpointed) {
  config_.extraction.batch_size = 5;
  config_.extraction.overlap = 1;
  Say("a", Lines("cooking", 12));  // batches of 5, 4 and 3 new messages
  Imported("b", Lines("school", 4));  // waits: not counted
  WorkProgress progress;
  std::vector<int> checkpoints;  // model calls at each checkpoint
  ExtractionRunOptions options;
  options.progress = &progress;
  options.checkpoint = [&checkpoints](const ExtractionOutcome& o) { checkpoints.push_back(o.model_calls); };
  const ExtractionOutcome out = Extract(options);
  const WorkProgress::Snapshot p = progress.Read();
  EXPECT_EQ(p.total, 12);
  EXPECT_EQ(p.done, 12);
  EXPECT_EQ(p.unit, "messages");
  EXPECT_EQ(p.tokens, out.tokens_in + out.tokens_out);
  EXPECT_EQ(checkpoints, (std::vector<int>{1, 2, 3}));
}

TEST_F(ExtractionTest, TheEstimateIsTheBatchesAndPromptsTheJobThenSends) {
  config_.extraction.batch_size = 5;
  config_.extraction.overlap = 1;
  Say("a", Lines("cooking", 12));
  const int64_t imported = Imported("b", Lines("school", 7));
  const ExtractionEstimate before = Estimate();
  EXPECT_EQ(before.messages, 19);
  EXPECT_EQ(before.batches, 5) << "5+4+3 new messages, then 5+2";
  EXPECT_EQ(before.waiting_messages, 7);
  EXPECT_EQ(before.waiting_batches, 2);
  EXPECT_GT(before.waiting_prompt_tokens, 0);
  const json shown = before.ToJson(config_.extraction);
  EXPECT_EQ(shown["automatic"], false);
  EXPECT_EQ(shown["estimated_prompt_tokens"], before.prompt_tokens);
  EXPECT_EQ(shown["days_at_budget"], 1);
  EXPECT_EQ(Estimate(std::vector<int64_t>{imported}).messages, 7) << "only the conversations asked about";

  config_.extraction.backfill = true;
  const ExtractionOutcome out = Extract();
  EXPECT_EQ(out.model_calls, 5);
  int64_t sent = 0;
  for (const json& request : model_.requests()) sent += EstimateRequestTokens(request);
  EXPECT_EQ(sent, before.prompt_tokens) << "the same requests";
  EXPECT_EQ(Estimate().batches, 0) << "nothing left";
  EXPECT_EQ(Estimate().ToJson(config_.extraction)["automatic"], true);
}

TEST(EstimateRequestTokensTest, CountsEachMessagesTextAndAFewTokensForItsRole) {
  const json request = {{"messages", json::array({{{"role", "system"}, {"content", "abcdefgh"}},
                                                  {{"role", "user"}, {"content", "你好"}}})}};
  EXPECT_EQ(EstimateRequestTokens(request), (2 + 4) + (2 + 4));
  EXPECT_EQ(EstimateRequestTokens(json::object()), 0);
}

}  // namespace
}  // namespace cilia::memory
