#include "memory/recall/menu.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"
#include "text/tokens.h"
#include "text/utf8.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "store/window_repo.h"

namespace cilia::memory {
namespace {

UnixMs At(const char* rfc3339) { return *ParseRfc3339(rfc3339); }

class MenuTest : public ::testing::Test {
 protected:
  MenuTest() : t_(At("2026-05-28T12:00:00+08:00")) {}

  // Stores and indexes one conversation of (role, text, time) messages;
  // returns its row.
  int64_t Ingest(const std::string& id, std::vector<std::tuple<std::string, std::string, std::string>> messages) {
    ingest::IngestConversation c;
    c.conversation_id = id;
    for (size_t i = 0; i < messages.size(); ++i) {
      auto& [role, text, at] = messages[i];
      c.messages.push_back({id + "-" + std::to_string(i), role, "", text, At(at.c_str())});
    }
    Archive archive(t_.ns());
    auto out = archive.Store(c);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(archive.IndexConversation(out->conversation_row).ok());
    return out->conversation_row;
  }

  Menu Build(MenuRequest request) {
    auto menu = BuildMenu(t_.ns(), request);
    EXPECT_TRUE(menu.ok()) << menu.status().ToString();
    return menu.ok() ? *menu : Menu{};
  }
  Menu Ask(std::string user_text) {
    MenuRequest r;
    r.user_texts = {std::move(user_text)};
    return Build(r);
  }

  static std::vector<std::string> Texts(const Menu& menu) {
    std::vector<std::string> out;
    for (const auto& line : menu.lines) out.push_back(line.text);
    return out;
  }
  static const MenuLine* LineOf(const Menu& menu, const std::string& conversation_id) {
    for (const auto& line : menu.lines) {
      if (line.conversation_id == conversation_id) return &line;
    }
    return nullptr;
  }

  testing::TestNamespace t_;
};

TEST_F(MenuTest, ALineIsTheWindowsSentenceSharingTheMostQueryTerms) {
  Ingest("hike", {{"user", "We went hiking on Sunday. The weather was perfect. Lena brought her new camera.",
                   "2026-05-20T10:00:00+08:00"},
                  {"assistant", "Sounds lovely! Did she take photos of the lake?", "2026-05-20T10:01:00+08:00"}});
  Menu menu = Ask("which camera did Lena bring");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].text, "05-20 Lena brought her new camera.");
  EXPECT_EQ(menu.lines[0].conversation_id, "hike");
  EXPECT_EQ(menu.lines[0].message_ids, (std::vector<std::string>{"hike-0", "hike-1"}));
  EXPECT_EQ(menu.lines[0].created_at, At("2026-05-20T10:00:00+08:00"));
  EXPECT_EQ(Texts(Ask("photos of the lake")), (std::vector<std::string>{"05-20 Did she take photos of the lake?"}));
}

TEST_F(MenuTest, ALineIsTheOwnersSentenceNeverTheClientsHarnessText) {
  // As Claude Code sends a turn: its reminder first, the owner's fact after it.
  Ingest("cc", {{"user",
                 "<system-reminder>\nAttribution for git commits and pull requests you create.\n"
                 "Lena commits often.\n</system-reminder>\nMy sister Lena moved to Lisbon last spring.",
                 "2026-05-20T10:00:00+08:00"}});
  Menu menu = Ask("did Lena move, and what about the git commits and pull requests");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].text, "05-20 My sister Lena moved to Lisbon last spring.");
  EXPECT_TRUE(Ask("attribution for pull requests").lines.empty()) << "the boilerplate is no memory";
}

TEST_F(MenuTest, DatesAreMonthAndDayInTheOwnersZoneAndFullInAnotherYear) {
  // 17:30 UTC is already the next day in Shanghai; New Year's Eve in UTC is 2026 there.
  Ingest("late", {{"user", "The kiwi tree finally flowered.", "2026-05-20T17:30:00Z"}});
  Ingest("newyear", {{"user", "We planted a kiwi tree today.", "2025-12-31T18:00:00Z"}});
  Ingest("old", {{"user", "Kiwi seedlings are on sale.", "2025-11-03T09:00:00+08:00"}});
  Menu menu = Ask("kiwi");
  ASSERT_NE(LineOf(menu, "late"), nullptr);
  ASSERT_NE(LineOf(menu, "newyear"), nullptr);
  ASSERT_NE(LineOf(menu, "old"), nullptr);
  EXPECT_EQ(LineOf(menu, "late")->text, "05-21 The kiwi tree finally flowered.");
  EXPECT_EQ(LineOf(menu, "newyear")->text, "01-01 We planted a kiwi tree today.");
  EXPECT_EQ(LineOf(menu, "old")->text, "2025-11-03 Kiwi seedlings are on sale.");
}

TEST_F(MenuTest, LongSentencesAreCutAtASpaceWithAnEllipsis) {
  Ingest("en", {{"user", "My neighbour told me the longest story about her parrot escaping through the kitchen window.",
                 "2026-05-10T09:00:00+08:00"}});
  Menu menu = Ask("parrot");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].text, "05-10 My neighbour told me the longest story about her…");
  EXPECT_LE(text::CodePointCount(menu.lines[0].text), 60u);
}

TEST_F(MenuTest, ChineseIsCutAtTheLimitAndEmojiSequencesStayWhole) {
  std::string park;
  for (int i = 0; i < 6; ++i) park += "今天全家去人民公园玩";                           // 60 Han characters
  std::string family = park.substr(0, 5 * std::string("今天全家去人民公园玩").size());  // 50
  for (int i = 0; i < 3; ++i) family += "👨‍👩‍👧‍👦";
  Ingest("zh", {{"user", park, "2026-05-27T09:00:00+08:00"}});
  Ingest("emoji", {{"user", family, "2026-05-26T09:00:00+08:00"}});
  Menu menu = Ask("人民公园");
  ASSERT_NE(LineOf(menu, "zh"), nullptr);
  ASSERT_NE(LineOf(menu, "emoji"), nullptr);
  // 53 of the 60 characters and "…": 60 code points with the date.
  EXPECT_EQ(LineOf(menu, "zh")->text, "05-27 " + text::SubstrCodePoints(park, 0, 53) + "…");
  // The cut at 53 falls inside the first family, which is left out whole.
  EXPECT_EQ(LineOf(menu, "emoji")->text, "05-26 " + text::SubstrCodePoints(park, 0, 50) + "…");
}

TEST_F(MenuTest, WhitespaceInsideASentenceIsCollapsed) {
  Ingest("ws", {{"user", "The  kiwi\tjam   needs lime.", "2026-05-20T09:00:00+08:00"}});
  EXPECT_EQ(Texts(Ask("kiwi jam")), (std::vector<std::string>{"05-20 The kiwi jam needs lime."}));
}

TEST_F(MenuTest, LinesStopAtTheTokenBudgetAndTheLineCount) {
  for (int i = 0; i < 8; ++i) {
    Ingest("k" + std::to_string(i),
           {{"user", "Kiwi note " + std::to_string(i) + ": the vines on the south fence need water.",
             "2026-05-1" + std::to_string(i) + "T09:00:00+08:00"}});
  }
  MenuRequest r;
  r.user_texts = {"kiwi vines"};
  r.token_budget = 40;
  Menu budgeted = Build(r);
  int tokens = 0;
  for (const auto& line : budgeted.lines) tokens += text::EstimateTokens(line.text);
  EXPECT_GE(budgeted.lines.size(), 2u);
  EXPECT_LE(tokens, 40);

  r.token_budget = 150;
  EXPECT_EQ(Build(r).lines.size(), 6u);
  r.max_lines = 2;
  EXPECT_EQ(Build(r).lines.size(), 2u);
  r.max_lines = 0;
  EXPECT_TRUE(Build(r).lines.empty());
}

TEST_F(MenuTest, WindowsTheClientAlreadySendsAreLeftOut) {
  const int64_t chat = Ingest("chat", {{"user", "The kiwi jam recipe needs lime.", "2026-05-20T09:00:00+08:00"},
                                       {"assistant", "Noted: lime in the kiwi jam.", "2026-05-20T09:01:00+08:00"}});
  Ingest("other", {{"user", "Kiwi jam was on sale at the market.", "2026-05-21T09:00:00+08:00"}});
  MenuRequest r;
  r.user_texts = {"kiwi jam"};
  r.conversation_row = chat;
  r.visible_from_seq = 0;  // the client sends the whole conversation
  Menu menu = Build(r);
  EXPECT_EQ(LineOf(menu, "chat"), nullptr);
  EXPECT_NE(LineOf(menu, "other"), nullptr);
  r.visible_from_seq = 1;  // the window reaches into what the client sends: its line may be that part
  EXPECT_EQ(LineOf(Build(r), "chat"), nullptr);
  r.visible_from_seq = 2;  // the client sends none of it
  EXPECT_NE(LineOf(Build(r), "chat"), nullptr);
  r.conversation_row.reset();
  r.visible_from_seq = 0;
  EXPECT_NE(LineOf(Build(r), "chat"), nullptr);
}

TEST_F(MenuTest, BuildingTheMenuCountsNoAccess) {
  const int64_t row = Ingest("hike", {{"user", "Lena brought her new camera.", "2026-05-20T10:00:00+08:00"}});
  ASSERT_EQ(Ask("Lena camera").lines.size(), 1u);
  auto windows = *t_.ns().store().Read([&](store::Database& db) { return store::WindowRepo(db).ForConversation(row); });
  ASSERT_FALSE(windows.empty());
  for (const auto& w : windows) {
    EXPECT_EQ(w.access_count, 0);
    EXPECT_EQ(t_.ns().GetWindowMeta(w.id)->access_count, 0);
  }
  auto logged = *t_.ns().store().Read([](store::Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare("SELECT count(*) FROM recall_log"));
    const int64_t n = s->Step() ? s->Int(0) : -1;
    s->Reset();
    return n;
  });
  EXPECT_EQ(logged, 0);
}

TEST_F(MenuTest, AnEmptyStoreOrAnEmptyQueryGivesNoMenu) {
  EXPECT_TRUE(Ask("what did Lena bring").lines.empty());
  Ingest("hike", {{"user", "Lena brought her new camera.", "2026-05-20T10:00:00+08:00"}});
  EXPECT_TRUE(Ask("").lines.empty());
  EXPECT_TRUE(Ask(" \n\t\u3000").lines.empty());
  EXPECT_TRUE(Build(MenuRequest{}).lines.empty());
  EXPECT_EQ(RenderMenu(Menu{}), "");
}

TEST_F(MenuTest, TimeWordsRaiseTheirSpanAndFilterNothing) {
  Ingest("recent", {{"user", "Picked the first kiwi of the year.", "2026-05-27T18:00:00+08:00"}});
  Ingest("earlier", {{"user", "The kiwi flowers are out.", "2026-05-10T18:00:00+08:00"}});
  Menu yesterday = Ask("the kiwi yesterday");
  ASSERT_EQ(yesterday.lines.size(), 2u);
  EXPECT_EQ(yesterday.lines[0].conversation_id, "recent");
  EXPECT_NE(LineOf(yesterday, "earlier"), nullptr);
  Menu may10 = Ask("the kiwi on May 10");
  ASSERT_EQ(may10.lines.size(), 2u);
  EXPECT_EQ(may10.lines[0].conversation_id, "earlier");

  MenuRequest r;
  r.user_texts = {"kiwi"};
  r.previous_assistant = "As you told me yesterday, the harvest looks good.";
  Menu echo = Build(r);
  EXPECT_NE(LineOf(echo, "recent"), nullptr);
  EXPECT_NE(LineOf(echo, "earlier"), nullptr);
}

TEST_F(MenuTest, AFutureSpanIsAPlanNotAPlaceToLook) {
  Ingest("race", {{"user", "报上了！6月14号那个天府锦江半马。", "2026-05-01T23:38:00+08:00"}});
  Menu menu = Ask("下周想再报一个半马");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].conversation_id, "race");
}

TEST_F(MenuTest, NothingThatReallyMatchesGivesFewerLinesNotNoise) {
  Ingest("cat", {{"user", "我家的猫叫糯米，三岁了。", "2026-05-20T10:00:00+08:00"}});
  for (int i = 0; i < 8; ++i) {
    Ingest("noise" + std::to_string(i), {{"user", "今天午饭吃了面条，第" + std::to_string(i) + "次去那家店。",
                                          "2026-05-1" + std::to_string(i) + "T12:00:00+08:00"}});
  }
  Menu menu = Ask("我家猫叫什么");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].conversation_id, "cat");
  EXPECT_TRUE(Ask("明天要下雨吗").lines.empty());
}

TEST_F(MenuTest, AQuestionsWordsTheArchiveLacksStillWeighInTheFloor) {
  // No cat anywhere: the one window sharing 我家 must not pass for an answer.
  Ingest("hotpot", {{"user", "我说我家炒的锅底更香，但新家厨房太小，还是去店里吧", "2026-05-20T20:00:00+08:00"}});
  for (int i = 0; i < 8; ++i) {
    Ingest("noise" + std::to_string(i), {{"user", "今天午饭吃了面条，第" + std::to_string(i) + "次去那家店。",
                                          "2026-05-1" + std::to_string(i) + "T12:00:00+08:00"}});
  }
  EXPECT_TRUE(Ask("我家猫叫什么来着").lines.empty()) << Texts(Ask("我家猫叫什么来着"))[0];
  // Once the archive holds the cat, the same question finds it, and only it.
  Ingest("cat", {{"user", "我家的猫叫糯米，三岁了。", "2026-05-21T10:00:00+08:00"}});
  Menu menu = Ask("我家猫叫什么来着");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].conversation_id, "cat");
}

TEST_F(MenuTest, StatementsGoBeforeQuestions) {
  Ingest("asked", {{"user", "我家猫叫什么名字来着？", "2026-05-25T10:00:00+08:00"}});
  Ingest("asked2", {{"assistant", "你想好给猫起什么名字了吗？", "2026-05-24T10:00:00+08:00"}});
  Ingest("told", {{"user", "我家猫的名字叫糯米。", "2026-05-10T10:00:00+08:00"}});
  Menu menu = Ask("我家猫叫什么名字");
  ASSERT_FALSE(menu.lines.empty());
  EXPECT_EQ(menu.lines[0].conversation_id, "told");
}

TEST_F(MenuTest, AnExcerptAndTheWindowItQuotesAreOneLine) {
  Ingest("wifi", {{"user", "家里wifi密码是 Kiwi-2048，别告诉别人。", "2026-05-20T10:00:00+08:00"}});
  NewExcerpt item;
  item.content = "阿杰家的wifi密码是 Kiwi-2048";
  item.quote = "家里wifi密码是 Kiwi-2048";
  item.conversation_id = "wifi";
  item.message_id = "wifi-0";
  item.type = "fact";
  ASSERT_TRUE(Excerpts(t_.ns()).Create(item, Author::kOwner).ok());
  Menu menu = Ask("wifi密码是多少");
  ASSERT_EQ(menu.lines.size(), 1u);
  EXPECT_EQ(menu.lines[0].conversation_id, "wifi");
}

TEST_F(MenuTest, TheTurnsOwnWordsAreNoMemory) {
  // The user's message is stored (in another conversation, as a retried
  // turn would be) before the menu is built.
  Ingest("retry", {{"user", "kiwi jam needs lime", "2026-05-28T11:59:00+08:00"}});
  Ingest("other", {{"user", "Kiwi jam with lime was on sale at the market.", "2026-05-21T09:00:00+08:00"}});
  Menu menu = Ask("kiwi jam needs lime");
  EXPECT_EQ(LineOf(menu, "retry"), nullptr);
  EXPECT_NE(LineOf(menu, "other"), nullptr);
}

TEST_F(MenuTest, ALineThatOnlyRepeatsTheTurnIsNoMemory) {
  Ingest("night1", {{"assistant", "晚安～", "2026-05-20T23:00:00+08:00"}});
  Ingest("night2", {{"user", "好。", "2026-05-21T23:00:00+08:00"}});
  Ingest("night3", {{"user", "晚安，明天还要早起去跑步", "2026-05-22T23:00:00+08:00"}});
  EXPECT_EQ(Texts(Ask("晚安")), (std::vector<std::string>{"05-22 晚安，明天还要早起去跑步"}));
  EXPECT_TRUE(Ask("好").lines.empty());
}

TEST_F(MenuTest, TheEchoAndOlderUserTextsAddOnlyTheirEnds) {
  Ingest("mango", {{"user", "The mango tree got sunburnt.", "2026-05-20T09:00:00+08:00"}});
  Ingest("papaya", {{"user", "The papaya seeds sprouted.", "2026-05-21T09:00:00+08:00"}});
  Ingest("durian", {{"user", "Durian smells strong in the car.", "2026-05-22T09:00:00+08:00"}});
  std::string reply = "About the mango tree: ";
  for (int i = 0; i < 200; ++i) reply += "and so on ";
  reply += "and the papaya seeds.";
  MenuRequest r;
  r.user_texts = {"durian", "ok, go on"};
  r.previous_assistant = reply;
  Menu menu = Build(r);
  EXPECT_NE(LineOf(menu, "durian"), nullptr);
  EXPECT_NE(LineOf(menu, "papaya"), nullptr);
  EXPECT_EQ(LineOf(menu, "mango"), nullptr);
}

TEST_F(MenuTest, RenderedAsAHeaderAndOneDatedLineEach) {
  Menu menu;
  menu.lines.push_back({"05-20 Lena brought her new camera.", "hike", {"hike-0"}, 0});
  menu.lines.push_back({"2025-11-03 Kiwi seedlings are on sale.", "old", {"old-0"}, 0});
  EXPECT_EQ(RenderMenu(menu),
            "Possibly relevant memories (the `recall` tool returns their full text):\n"
            "- 05-20 Lena brought her new camera.\n"
            "- 2025-11-03 Kiwi seedlings are on sale.");
}

}  // namespace
}  // namespace cilia::memory
