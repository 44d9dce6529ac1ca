#include "memory/recall/recall_stages.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "core/executor.h"
#include "ingest/ingest_request.h"
#include "memory/archive/archive.h"
#include "testing/spoken_conversation.h"
#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

UnixMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

using Msg = testing::SpokenMessage;

class RecallStagesTest : public ::testing::Test {
 protected:
  RecallStagesTest() : t_(At("2026-06-20T12:00:00+08:00")) {}

  void Ingest(const std::string& conv, const std::vector<Msg>& msgs, const std::string& title = "") {
    const Status stored = testing::StoreSpoken(t_.ns(), conv, title, msgs);
    ASSERT_TRUE(stored.ok()) << stored.ToString();
  }

  RecallPlan Plan(const std::string& query, const std::string& now = "2026-06-20T12:00:00+08:00") {
    RecallRequest req;
    req.query = query;
    return PlanRecall(req, At(now.c_str()), t_.ns().tz());
  }

  AllowedWindows Allowed(const RecallPlan& plan) {
    auto allowed = FindAllowed(t_.ns(), plan);
    EXPECT_TRUE(allowed.ok()) << allowed.status().ToString();
    return std::move(*allowed);
  }

  LaneHits Lanes(const RecallPlan& plan, const AllowedWindows& allowed) {
    auto lanes = RunLanes(t_.ns(), plan, allowed);
    EXPECT_TRUE(lanes.ok()) << lanes.status().ToString();
    return std::move(*lanes);
  }

  Selection Select(const RecallPlan& plan, const AllowedWindows& allowed) {
    LaneHits lanes = Lanes(plan, allowed);
    auto ranked = RankHits(plan, lanes, t_.ns().options().ranking, [&](int64_t id) { return t_.ns().GetWindowMeta(id); });
    auto selection = SelectGroups(t_.ns(), plan, allowed, ranked);
    EXPECT_TRUE(selection.ok()) << selection.status().ToString();
    return std::move(*selection);
  }

  std::string ConversationOf(int64_t window_id) {
    auto meta = t_.ns().GetWindowMeta(window_id);
    if (!meta) return "";
    auto conv = t_.ns().store().Read([&](store::Database& db) { return store::MessageRepo(db).GetConversation(meta->conversation_row); });
    return conv.ok() && *conv ? (*conv)->external_id : "";
  }

  testing::TestNamespace t_;
};

// ---- plan ------------------------------------------------------------------

TEST_F(RecallStagesTest, PlanTurnsTimeWordsIntoBoundsThatReachTheTellingDays) {
  RecallPlan plan = Plan("6月10日跑了多少公里");
  EXPECT_EQ(plan.lexical_text, "跑了多少公里");
  EXPECT_FALSE(plan.span_only);
  ASSERT_TRUE(plan.filter.from_ms && plan.filter.to_ms);
  EXPECT_EQ(*plan.filter.from_ms, At("2026-06-10T00:00:00+08:00"));
  EXPECT_EQ(*plan.filter.to_ms, At("2026-06-11T00:00:00+08:00") + kTellingLagDays * kMsPerDay);
  EXPECT_EQ(plan.fetch, 30);
  // The lag never reaches past now.
  RecallPlan yesterday = Plan("昨天跑了多少公里");
  EXPECT_EQ(*yesterday.filter.to_ms, At("2026-06-20T12:00:00+08:00") + 1);
}

TEST_F(RecallStagesTest, PlanOfAnExactQueryReadsNoTimeWords) {
  RecallRequest req;
  req.query = "昨天";
  req.exact = true;
  req.limit = 20;
  req.after = At("2026-06-01T00:00:00+08:00");
  req.before = At("2026-06-02T23:59:59.999+08:00");
  RecallPlan plan = PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz());
  EXPECT_EQ(plan.lexical_text, "昨天");
  EXPECT_TRUE(plan.hint.phrases.empty());
  EXPECT_EQ(*plan.filter.from_ms, *req.after);
  EXPECT_EQ(*plan.filter.to_ms, *req.before + 1);
  EXPECT_EQ(plan.fetch, 60);
}

TEST_F(RecallStagesTest, PlanKeepsTheNarrowerOfTheCallersBoundsAndTheTimeWords) {
  RecallRequest req;
  req.query = "what happened last week";
  req.after = At("2026-06-12T00:00:00+08:00");
  RecallPlan plan = PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz());
  EXPECT_EQ(*plan.filter.from_ms, At("2026-06-12T00:00:00+08:00"));  // later than last Monday, 06-08
}

// ---- allowed ---------------------------------------------------------------

TEST_F(RecallStagesTest, AllowedIsEverythingWithoutAFilter) {
  Ingest("a", {{"a1", "阿杰", "kiwi note", "2026-06-18T12:00:00+08:00"}});
  AllowedWindows allowed = Allowed(Plan("kiwi"));
  EXPECT_FALSE(allowed.filtered());
  EXPECT_FALSE(allowed.none());
  EXPECT_FALSE(allowed.Test());
  EXPECT_TRUE(allowed.Allows(1));
}

TEST_F(RecallStagesTest, AllowedListsANarrowSpanAndTestsABroadOne) {
  for (int d = 1; d <= 40; ++d) {
    const std::string day = d <= 30 ? fmt::format("2026-04-{:02}", d) : fmt::format("2026-05-{:02}", d - 30);
    Ingest("day-" + day, {{"k" + day, "阿杰", "kiwi note of " + day, day + "T12:00:00+08:00"}});
  }
  RecallRequest req;
  req.query = "kiwi";
  req.after = At("2026-04-10T00:00:00+08:00");
  req.before = At("2026-04-10T23:59:59.999+08:00");
  AllowedWindows day = Allowed(PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz()));
  ASSERT_TRUE(day.listed());
  ASSERT_EQ(day.ids().size(), 1u);
  EXPECT_EQ(ConversationOf(day.ids()[0]), "day-2026-04-10");
  EXPECT_TRUE(day.Allows(day.ids()[0]));
  EXPECT_FALSE(day.Allows(day.ids()[0] + 1));

  req.after = At("2026-04-01T00:00:00+08:00");
  req.before = At("2026-04-20T23:59:59.999+08:00");
  AllowedWindows month = Allowed(PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz()));
  EXPECT_FALSE(month.listed());
  int allowed = 0;
  for (int64_t id = 1; id <= 40; ++id) allowed += month.Allows(id);
  EXPECT_EQ(allowed, 20);
}

TEST_F(RecallStagesTest, AllowedIsNoneForADayWithoutChatOrAnUnknownConversation) {
  Ingest("a", {{"a1", "阿杰", "kiwi note", "2026-06-18T12:00:00+08:00"}});
  RecallRequest req;
  req.query = "kiwi";
  req.after = At("2026-05-01T00:00:00+08:00");
  req.before = At("2026-05-01T23:59:59.999+08:00");
  EXPECT_TRUE(Allowed(PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz())).none());
  RecallRequest other;
  other.query = "kiwi";
  other.conversation_id = "no-such";
  AllowedWindows unknown = Allowed(PlanRecall(other, At("2026-06-20T12:00:00+08:00"), t_.ns().tz()));
  EXPECT_TRUE(unknown.none());
  EXPECT_FALSE(unknown.Allows(1));
}

// ---- lanes -----------------------------------------------------------------

TEST_F(RecallStagesTest, LanesFindByWordsAndByVector) {
  Ingest("a", {{"a1", "阿杰", "marmalade on toast this morning", "2026-06-18T12:00:00+08:00"}});
  Ingest("b", {{"b1", "阿杰", "the train was late again", "2026-06-18T13:00:00+08:00"}});
  RecallPlan plan = Plan("marmalade");
  AllowedWindows allowed = Allowed(plan);
  LaneHits lanes = Lanes(plan, allowed);
  ASSERT_EQ(lanes.lexical_ids.size(), 1u);
  EXPECT_EQ(ConversationOf(lanes.lexical_ids[0]), "a");
  ASSERT_TRUE(lanes.query_vector.has_value());
  EXPECT_FALSE(lanes.vector_ids.empty());
  EXPECT_EQ(lanes.similarity.size(), lanes.vector_ids.size());
}

TEST_F(RecallStagesTest, LanesOfAnExactQueryHaveNoVector) {
  Ingest("a", {{"a1", "阿杰", "wifi 密码 Kiwi-2048", "2026-06-18T12:00:00+08:00"}});
  RecallRequest req;
  req.query = "Kiwi-2048";
  req.exact = true;
  RecallPlan plan = PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz());
  LaneHits lanes = Lanes(plan, Allowed(plan));
  EXPECT_FALSE(lanes.query_vector.has_value());
  EXPECT_TRUE(lanes.vector_ids.empty());
  EXPECT_EQ(lanes.lexical_ids.size(), 1u);
}

TEST_F(RecallStagesTest, LanesOnTheNamespacesExecutorFindWhatTheyFindWithout) {
  Ingest("a", {{"a1", "阿杰", "marmalade on toast this morning", "2026-06-18T12:00:00+08:00"}});
  Ingest("b", {{"b1", "阿杰", "marmalade again, with tea", "2026-06-19T13:00:00+08:00"}});
  RecallPlan plan = Plan("marmalade toast");
  LaneHits alone = Lanes(plan, Allowed(plan));

  Executor executor(2, 8);
  t_.Reopen(50000, embed::HashEmbedder::kDefaultDimension, &executor);
  ASSERT_EQ(t_.ns().executor(), &executor);
  LaneHits beside = Lanes(plan, Allowed(plan));
  EXPECT_EQ(beside.lexical_ids, alone.lexical_ids);
  EXPECT_EQ(beside.vector_ids, alone.vector_ids);
  EXPECT_EQ(beside.query_vector, alone.query_vector);
  t_.Reopen();  // before the executor goes
}

// ---- rank ------------------------------------------------------------------

TEST(RankHits, DropsFarVectorOnlyHitsAndUnknownWindowsAndWeighsTellingDaysDown) {
  RecallPlan plan;
  plan.now = At("2026-06-20T12:00:00+08:00");
  plan.hint.to = At("2026-06-19T00:00:00+08:00");
  LaneHits lanes;
  lanes.lexical_ids = {1, 2};
  lanes.vector_ids = {3, 4, 1};
  lanes.similarity = {{3, 0.5f}, {4, 0.05f}, {1, 0.5f}};
  index::RankingOptions ranking;
  ranking.relative_floor = 0;
  auto meta = [&](int64_t id) -> std::optional<WindowMeta> {
    if (id == 2) return std::nullopt;  // not in the catalogue (rebuilt since)
    WindowMeta m;
    m.created_at = id == 3 ? At("2026-06-19T09:00:00+08:00") : At("2026-06-18T09:00:00+08:00");
    return m;
  };
  std::vector<index::FusedHit> ranked = RankHits(plan, lanes, ranking, meta);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].id, 1);  // both lanes
  EXPECT_EQ(ranked[1].id, 3);
  // Window 3 is after the named time: it keeps kTellingLagWeight of its score.
  const double rrf1 = ranking.vector_weight * (ranking.rrf_k + 1) / (ranking.rrf_k + 1);
  const double age = static_cast<double>(plan.now - At("2026-06-19T09:00:00+08:00")) / kMsPerDay;
  EXPECT_NEAR(ranked[1].score, rrf1 * index::RecencyMultiplier(age, ranking) * kTellingLagWeight, 1e-9);
}

TEST(RankHits, TheRelativeFloorDropsWeakHitsExceptForAnExactQuery) {
  RecallPlan plan;
  plan.now = At("2026-06-20T12:00:00+08:00");
  LaneHits lanes;
  for (int64_t id = 1; id <= 200; ++id) lanes.lexical_ids.push_back(id);
  index::RankingOptions ranking;
  ranking.relative_floor = 0.5;
  auto meta = [&](int64_t) -> std::optional<WindowMeta> {
    WindowMeta m;
    m.created_at = plan.now;
    return m;
  };
  const size_t floored = RankHits(plan, lanes, ranking, meta).size();
  EXPECT_LT(floored, 200u);
  EXPECT_GT(floored, 1u);
  plan.exact = true;
  EXPECT_EQ(RankHits(plan, lanes, ranking, meta).size(), 200u);
}

// ---- select and render -----------------------------------------------------

TEST_F(RecallStagesTest, SelectCapsAConversationDayAndRenderShowsHeaderAndSpeakers) {
  std::vector<Msg> msgs;
  for (int i = 0; i < 6; ++i) {
    msgs.emplace_back("k" + std::to_string(i), i % 2 ? "AI" : "阿杰",
                      "kiwi note " + std::to_string(i) + ": " + std::string(400, 'a' + i) + ".",
                      "2026-06-19T1" + std::to_string(i) + ":00:00+08:00");
  }
  Ingest("kiwis", msgs, "猕猴桃");
  RecallPlan plan = Plan("kiwi");
  plan.limit = 10;
  AllowedWindows allowed = Allowed(plan);
  Selection selection = Select(plan, allowed);
  ASSERT_EQ(selection.groups.size(), 2u);
  EXPECT_EQ(selection.conversations.size(), 1u);
  std::vector<RecallResult> results = RenderSelection(selection, t_.ns().tz());
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].id, selection.groups[0].public_id());
  EXPECT_EQ(results[0].conversation_id, "kiwis");
  EXPECT_EQ(results[0].text.rfind("[2026-06-19 · 猕猴桃]\n", 0), 0u);
  EXPECT_NE(results[0].text.find("\n阿杰: kiwi note"), std::string::npos);
  EXPECT_GE(results[0].score, results[1].score);

  RecallRequest one;
  one.query = "kiwi";
  one.conversation_id = "kiwis";
  RecallPlan one_plan = PlanRecall(one, plan.now, t_.ns().tz());
  AllowedWindows one_allowed = Allowed(one_plan);
  EXPECT_GT(Select(one_plan, one_allowed).groups.size(), 2u);
}

TEST_F(RecallStagesTest, SelectMergesOverlappingWindows) {
  // ~340, ~100 and ~300 characters: two windows sharing the middle message,
  // 840 characters together, under max_merged_chars.
  Ingest("merge", {{"a", "A", "first marmalade part " + std::string(318, 'z') + ".", "2026-06-19T10:00:00+08:00"},
                   {"b", "B", "middle marmalade part " + std::string(77, 'z') + ".", "2026-06-19T10:01:00+08:00"},
                   {"c", "A", "last marmalade part " + std::string(280, 'z') + ".", "2026-06-19T10:02:00+08:00"}});
  RecallPlan plan = Plan("marmalade");
  AllowedWindows allowed = Allowed(plan);
  Selection selection = Select(plan, allowed);
  ASSERT_EQ(selection.groups.size(), 1u);
  EXPECT_EQ(selection.groups[0].windows.size(), 2u);
  EXPECT_EQ(selection.messages.size(), 3u);
  std::vector<RecallResult> results = RenderSelection(selection, t_.ns().tz());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].message_ids, (std::vector<std::string>{"a", "b", "c"}));
}

TEST_F(RecallStagesTest, SelectVerifiesExactHits) {
  Ingest("a", {{"a1", "阿杰", "wifi password Kiwi-2048", "2026-06-18T12:00:00+08:00"}});
  Ingest("b", {{"b1", "阿杰", "kiwi costs 2048 yuan", "2026-06-18T13:00:00+08:00"}});
  RecallRequest req;
  req.query = "Kiwi-2048";
  req.exact = true;
  RecallPlan plan = PlanRecall(req, At("2026-06-20T12:00:00+08:00"), t_.ns().tz());
  AllowedWindows allowed = Allowed(plan);
  Selection selection = Select(plan, allowed);
  ASSERT_EQ(selection.groups.size(), 1u);
  EXPECT_EQ(ConversationOf(selection.groups[0].windows[0].id), "a");
}

// ---- weigh -----------------------------------------------------------------

// The same fact told once and asked about later: the later window holds the
// question's words twice over (the question, and the reply saying them back)
// and is the newer, so it ranks first until the weighing. The assistant is
// the model, stored without a name as the gateway stores it.
class WeighAskedTest : public RecallStagesTest {
 protected:
  struct Row {
    std::string id, role, name, text, at;
  };
  void IngestChat(const std::string& conversation, const std::vector<Row>& rows) {
    ingest::IngestConversation c;
    c.conversation_id = conversation;
    for (const Row& r : rows) {
      ingest::IngestMessage m;
      m.id = r.id;
      m.role = r.role;
      m.name = r.name;
      m.content = r.text;
      m.created_at_ms = At(r.at.c_str());
      c.messages.push_back(std::move(m));
    }
    Archive archive(t_.ns());
    auto stored = archive.Store(c);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    ASSERT_TRUE(archive.IndexConversation(stored->conversation_row).ok());
  }
  void IngestToldThenAsked() {
    IngestChat("told", {{"t1", "user", "", "我家猫叫糯米，今年三岁了，特别黏人。", "2026-05-02T20:00:00+08:00"},
                        {"t2", "assistant", "", "糯米这个名字真可爱！", "2026-05-02T20:00:10+08:00"}});
    IngestChat("asked", {{"a1", "user", "", "我家猫叫什么来着？", "2026-06-19T21:00:00+08:00"},
                         {"a2", "assistant", "", "你家猫叫糯米呀，三岁的那只黏人小猫。", "2026-06-19T21:00:10+08:00"}});
  }
  Selection SelectWeighed(const std::string& query, int slack) {
    RecallPlan plan = Plan(query);
    AllowedWindows allowed = Allowed(plan);
    LaneHits lanes = Lanes(plan, allowed);
    auto ranked = RankHits(plan, lanes, t_.ns().options().ranking, [&](int64_t id) { return t_.ns().GetWindowMeta(id); });
    auto selection = SelectGroups(t_.ns(), plan, allowed, ranked, slack);
    EXPECT_TRUE(selection.ok()) << selection.status().ToString();
    return std::move(*selection);
  }
  // Whether each selected group's conversation is weighed down.
  std::map<std::string, bool> Asked(const std::string& query) {
    Selection selection = SelectWeighed(query, kAskedSlack);
    const auto terms = QueryTerms(t_.ns(), query);
    std::map<std::string, bool> out;
    for (const WindowGroup& g : selection.groups) {
      out[ConversationOf(g.windows[0].id)] = OnlyAsked(g, selection.messages, terms);
    }
    return out;
  }
};

TEST_F(WeighAskedTest, TheStatementComesBeforeTheQuestionAndTheReplySayingItBack) {
  IngestToldThenAsked();
  Selection selection = SelectWeighed("我家猫叫什么", kAskedSlack);
  ASSERT_EQ(selection.groups.size(), 2u);
  ASSERT_EQ(ConversationOf(selection.groups[0].windows[0].id), "asked");  // before the weighing
  const auto terms = QueryTerms(t_.ns(), "我家猫叫什么");
  EXPECT_TRUE(OnlyAsked(selection.groups[0], selection.messages, terms));
  EXPECT_FALSE(OnlyAsked(selection.groups[1], selection.messages, terms));
  const double asked_score = selection.groups[0].score;
  WeighAsked(selection, terms, 1);
  ASSERT_EQ(selection.groups.size(), 1u);
  EXPECT_EQ(ConversationOf(selection.groups[0].windows[0].id), "told");

  // Through Recall as a whole.
  RecallRequest req;
  req.query = "我家猫叫什么";
  req.limit = 1;
  req.now = At("2026-06-20T12:00:00+08:00");
  auto reply = Recall(t_.ns(), req, false);
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  ASSERT_EQ(reply->results.size(), 1u);
  EXPECT_EQ(reply->results[0].conversation_id, "told");
  EXPECT_LT(reply->results[0].score, asked_score);
}

TEST_F(WeighAskedTest, AQuestionToTheAssistantIsWeighedDownEvenUnanswered) {
  IngestChat("forgot", {{"f1", "user", "", "你还记得我家猫叫什么吗？", "2026-06-19T21:00:00+08:00"},
                        {"f2", "assistant", "", "抱歉，我不记得了，可以再告诉我一次吗", "2026-06-19T21:00:10+08:00"}});
  IngestChat("said", {{"s1", "user", "", "我家猫叫糯米。", "2026-06-01T21:00:00+08:00"}});
  EXPECT_EQ(Asked("我家猫叫什么"), (std::map<std::string, bool>{{"forgot", true}, {"said", false}}));
}

TEST_F(WeighAskedTest, StatementsBesideAQuestionAndAnswersBetweenPeopleAreTakenAsSaid) {
  // The user's own statement of the same words beside the question.
  IngestChat("beside", {{"b1", "user", "", "周末我去了海边。你周末做了什么？", "2026-06-18T21:00:00+08:00"},
                        {"b2", "assistant", "", "我一直在这里陪你呀。", "2026-06-18T21:00:10+08:00"}});
  // Two people ingested as user and assistant, named: a question and its answer are what they said.
  IngestChat("people", {{"p1", "user", "阿杰", "你周末去哪儿了？", "2026-06-17T21:00:00+08:00"},
                        {"p2", "assistant", "小周", "周末在公司加班。", "2026-06-17T21:00:10+08:00"}});
  // The assistant's reply to a question put to it, holding the asked words: weighed down too
  // (whether the reply came from memory cannot be told from its text).
  IngestChat("answered", {{"q1", "user", "", "周末天气怎么样？", "2026-06-16T21:00:00+08:00"},
                          {"q2", "assistant", "", "周末有雨，记得带伞。", "2026-06-16T21:00:10+08:00"}});
  const auto asked = Asked("周末");
  EXPECT_EQ(asked.at("beside"), false);
  EXPECT_EQ(asked.at("people"), false);
  EXPECT_EQ(asked.at("answered"), true);
}

TEST_F(WeighAskedTest, SlackAddsGroupsButLeavesTheFirstOnesAsTheyWere) {
  std::vector<Msg> msgs;
  for (int i = 0; i < 8; ++i) {
    msgs.emplace_back("m" + std::to_string(i), i % 2 ? "AI" : "阿杰",
                      "marmalade note " + std::to_string(i) + " " + std::string(300, 'a' + i) + ".",
                      "2026-06-1" + std::to_string(i) + "T10:00:00+08:00");
  }
  Ingest("notes", msgs);
  RecallPlan plan = Plan("marmalade");
  plan.limit = 2;
  AllowedWindows allowed = Allowed(plan);
  LaneHits lanes = Lanes(plan, allowed);
  auto ranked = RankHits(plan, lanes, t_.ns().options().ranking, [&](int64_t id) { return t_.ns().GetWindowMeta(id); });
  auto without = SelectGroups(t_.ns(), plan, allowed, ranked, 0);
  auto with = SelectGroups(t_.ns(), plan, allowed, ranked, 3);
  ASSERT_TRUE(without.ok() && with.ok());
  ASSERT_EQ(without->groups.size(), 2u);
  ASSERT_GT(with->groups.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_EQ(with->groups[i].windows.size(), without->groups[i].windows.size());
    for (size_t k = 0; k < with->groups[i].windows.size(); ++k) {
      EXPECT_EQ(with->groups[i].windows[k].id, without->groups[i].windows[k].id);
    }
  }
}

// ---- join ------------------------------------------------------------------

TEST(JoinResults, MergesByScoreKeepingOrderOnTiesAndCutsToTheLimit) {
  auto result = [](std::string id, double score) {
    RecallResult r;
    r.id = std::move(id);
    r.score = score;
    return r;
  };
  std::vector<RecallResult> joined =
      JoinResults({result("w_1", 0.9), result("w_2", 0.5), result("w_3", 0.2)}, {result("x_1", 0.5), result("x_2", 0.7)}, 4);
  std::vector<std::string> ids;
  for (const auto& r : joined) ids.push_back(r.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"w_1", "x_2", "w_2", "x_1"}));
}

TEST_F(RecallStagesTest, TheExcerptQueryTakesTheLanesVectorAndTheAllowedBounds) {
  RecallPlan plan = Plan("最近跑步怎么样");
  ASSERT_TRUE(plan.hint.recent);
  AllowedWindows allowed = Allowed(plan);
  LaneHits lanes;
  lanes.query_vector = std::vector<float>{0.5f, 0.5f};
  ExcerptQuery q = ExcerptQueryFor(plan, allowed, lanes, t_.ns().options().ranking);
  EXPECT_EQ(q.query, "最近跑步怎么样");
  EXPECT_EQ(q.lexical_text, plan.lexical_text);
  EXPECT_EQ(q.query_vector, (std::vector<float>{0.5f, 0.5f}));
  EXPECT_FALSE(lanes.query_vector.has_value());
  EXPECT_EQ(q.recency_days, t_.ns().options().ranking.recency_days / 4);
  EXPECT_EQ(q.now, plan.now);
}

// ---- record ----------------------------------------------------------------

TEST_F(RecallStagesTest, RecordCountsOnlyTheGroupsThatMadeTheAnswer) {
  Ingest("a", {{"a1", "阿杰", "marmalade on toast", "2026-06-18T12:00:00+08:00"}});
  Ingest("b", {{"b1", "阿杰", "marmalade with tea", "2026-06-17T12:00:00+08:00"}});
  RecallPlan plan = Plan("marmalade");
  AllowedWindows allowed = Allowed(plan);
  Selection selection = Select(plan, allowed);
  ASSERT_EQ(selection.groups.size(), 2u);
  std::vector<RecallResult> results = RenderSelection(selection, t_.ns().tz());
  results.resize(1);
  ASSERT_TRUE(RecordRecall(t_.ns(), results, selection, "marmalade").ok());
  const int64_t kept = selection.groups[0].windows[0].id;
  const int64_t cut = selection.groups[1].windows[0].id;
  EXPECT_EQ(t_.ns().GetWindowMeta(kept)->access_count, 1);
  EXPECT_EQ(t_.ns().GetWindowMeta(cut)->access_count, 0);
}

}  // namespace
}  // namespace cilia::memory
