#include "store/message_repo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migrated_db.h"
#include "testing/temp_dir.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

class MessageRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
  }
  MessageRecord Message(int64_t conv, int64_t seq, std::optional<std::string> caller, std::string text) {
    MessageRecord m;
    m.conversation_row = conv;
    m.seq = seq;
    m.caller_id = std::move(caller);
    m.role = "user";
    m.content = "\"" + text + "\"";
    m.text = text;
    m.content_hash = "h" + text;
    m.created_at = 1000 + seq;
    m.stored_at = 5000;
    m.source = "api";
    return m;
  }
};

TEST_P(MessageRepoTest, ConversationsAreFoundByTheirExternalId) {
  MessageRepo repo(*db_);
  auto c = repo.CreateConversation("trip-2023", "Trip", 100);
  ASSERT_TRUE(c.ok());
  auto found = repo.FindConversation("trip-2023");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, c->id);
  EXPECT_EQ((*found)->title, "Trip");
  EXPECT_FALSE(repo.FindConversation("other")->has_value());
}

TEST_P(MessageRepoTest, CallerIdsAreUniquePerConversation) {
  MessageRepo repo(*db_);
  auto a = *repo.CreateConversation("a", "", 0);
  auto b = *repo.CreateConversation("b", "", 0);
  MessageRecord m1 = Message(a.id, 0, "D1:1", "hello");
  ASSERT_TRUE(repo.Insert(m1).ok());
  MessageRecord same_id_other_conv = Message(b.id, 0, "D1:1", "hello");
  EXPECT_TRUE(repo.Insert(same_id_other_conv).ok());
  MessageRecord clash = Message(a.id, 1, "D1:1", "other");
  EXPECT_EQ(repo.Insert(clash).code(), Code::kConflict);
  MessageRecord no_id_1 = Message(a.id, 2, std::nullopt, "x");
  MessageRecord no_id_2 = Message(a.id, 3, std::nullopt, "y");
  EXPECT_TRUE(repo.Insert(no_id_1).ok());
  EXPECT_TRUE(repo.Insert(no_id_2).ok());
  auto found = repo.FindByCallerId(a.id, "D1:1");
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->text, "hello");
}

TEST_P(MessageRepoTest, LastSystemMessageIsTheNewestOfItsConversationThroughItsIndex) {
  MessageRepo repo(*db_);
  auto a = *repo.CreateConversation("a", "", 0);
  auto b = *repo.CreateConversation("b", "", 0);
  EXPECT_FALSE(repo.LastSystemMessage(a.id)->has_value());
  for (int seq = 0; seq < 4; ++seq) {
    MessageRecord m = Message(a.id, seq, std::nullopt, "prompt " + std::to_string(seq));
    if (seq % 2 == 0) m.role = "system";
    ASSERT_TRUE(repo.Insert(m).ok());
  }
  MessageRecord other = Message(b.id, 9, std::nullopt, "other prompt");
  other.role = "system";
  ASSERT_TRUE(repo.Insert(other).ok());
  auto last = repo.LastSystemMessage(a.id);
  ASSERT_TRUE(last.ok() && last->has_value());
  EXPECT_EQ((*last)->text, "prompt 2");

  if (OnPostgres()) return;  // the plan below is SQLite's
  auto plan = db_->Prepare(
      "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE conversation_id = 1 AND role = 'system' "
      "ORDER BY seq DESC LIMIT 1");
  ASSERT_TRUE(plan.ok());
  std::string steps;
  ASSERT_TRUE((*plan)->Each([&](const Statement& r) { steps += r.Text(3) + "\n"; }).ok());
  EXPECT_NE(steps.find("messages_system"), std::string::npos) << steps;
}

TEST_P(MessageRepoTest, MessagesFromReturnsTheTailInOrder) {
  MessageRepo repo(*db_);
  auto c = *repo.CreateConversation("c", "", 0);
  for (int i = 0; i < 5; ++i) {
    MessageRecord m = Message(c.id, i, std::nullopt, "m" + std::to_string(i));
    ASSERT_TRUE(repo.Insert(m).ok());
  }
  auto tail = repo.MessagesFrom(c.id, 3);
  ASSERT_EQ(tail->size(), 2u);
  EXPECT_EQ((*tail)[0].text, "m3");
  EXPECT_EQ((*tail)[1].text, "m4");
  EXPECT_EQ(repo.MessagesFrom(c.id, 0, 2)->size(), 2u);
  EXPECT_EQ(*repo.CountMessages(), 5);
  EXPECT_EQ(*repo.CountConversations(), 1);
}

TEST_P(MessageRepoTest, CountsTheMessagesFromASeqAndKnowsTheLastId) {
  MessageRepo repo(*db_);
  EXPECT_EQ(*repo.LastMessageId(), 0) << "none yet";
  auto c = *repo.CreateConversation("c", "", 0);
  auto d = *repo.CreateConversation("d", "", 0);
  int64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    MessageRecord m = Message(i < 4 ? c.id : d.id, i, std::nullopt, "m" + std::to_string(i));
    ASSERT_TRUE(repo.Insert(m).ok());
    last = m.id;
  }
  EXPECT_EQ(*repo.CountMessagesFrom(c.id, 1), 3);
  EXPECT_EQ(*repo.CountMessagesFrom(c.id, 9), 0);
  EXPECT_EQ(*repo.CountMessagesFrom(d.id, 0), 1);
  EXPECT_EQ(*repo.LastMessageId(), last);
}

TEST_P(MessageRepoTest, NewestStoredAtIsTheLastStoredMessagesTime) {
  MessageRepo repo(*db_);
  EXPECT_EQ(*repo.NewestStoredAt(), std::nullopt) << "none yet";
  auto c = *repo.CreateConversation("c", "", 0);
  for (int64_t stored_at : {7000, 6000}) {  // by when stored (the row order), not by the largest value
    MessageRecord m = Message(c.id, stored_at, std::nullopt, "m" + std::to_string(stored_at));
    m.stored_at = stored_at;
    ASSERT_TRUE(repo.Insert(m).ok());
  }
  EXPECT_EQ(*repo.NewestStoredAt(), std::optional<int64_t>(6000));
}

TEST_P(MessageRepoTest, MessagesBeforeReturnsTheLastOnesBeforeASeqInOrder) {
  MessageRepo repo(*db_);
  auto c = *repo.CreateConversation("c", "", 0);
  for (int i = 0; i < 5; ++i) {
    MessageRecord m = Message(c.id, i, std::nullopt, "m" + std::to_string(i));
    ASSERT_TRUE(repo.Insert(m).ok());
  }
  auto page = repo.MessagesBefore(c.id, 4, 2);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].text, "m2");
  EXPECT_EQ((*page)[1].text, "m3");
  EXPECT_EQ(repo.MessagesBefore(c.id, INT64_MAX, 10)->size(), 5u);
  EXPECT_EQ(repo.MessagesBefore(c.id, INT64_MAX, 1)->front().text, "m4");
  EXPECT_TRUE(repo.MessagesBefore(c.id, 0, 10)->empty());
}

TEST_P(MessageRepoTest, CountsPerQuarterHourAndConversationsBetweenTwoTimes) {
  MessageRepo repo(*db_);
  auto a = *repo.CreateConversation("a", "", 0);
  auto b = *repo.CreateConversation("b", "", 0);
  const int64_t quarter = 15 * 60 * 1000;
  int seq = 0;
  for (auto [conv, at] : {std::pair{a.id, 10 * quarter + 5}, {a.id, 10 * quarter + 900}, {b.id, 11 * quarter},
                          {a.id, 40 * quarter}}) {
    MessageRecord m = Message(conv, seq++, std::nullopt, "x");
    m.created_at = at;
    ASSERT_TRUE(repo.Insert(m).ok());
  }
  auto counts = repo.CountsPerQuarterHour();
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_THAT(*counts, ::testing::ElementsAre(std::pair<int64_t, int64_t>{10 * quarter, 2},
                                              std::pair<int64_t, int64_t>{11 * quarter, 1},
                                              std::pair<int64_t, int64_t>{40 * quarter, 1}));
  auto spans = repo.ConversationsBetween(10 * quarter, 12 * quarter);
  ASSERT_TRUE(spans.ok()) << spans.status().ToString();
  ASSERT_EQ(spans->size(), 2u);
  EXPECT_EQ((*spans)[0].conversation_row, a.id);
  EXPECT_EQ((*spans)[0].messages, 2);
  EXPECT_EQ((*spans)[0].first_seq, 0);
  EXPECT_EQ((*spans)[1].conversation_row, b.id);
  EXPECT_TRUE(repo.ConversationsBetween(0, quarter)->empty());
}

TEST_P(MessageRepoTest, ListConversationsPagesByMostRecent) {
  MessageRepo repo(*db_);
  for (int i = 0; i < 3; ++i) {
    auto c = *repo.CreateConversation("c" + std::to_string(i), "", i);
    c.updated_at = 100 * i;
    ASSERT_TRUE(repo.SaveConversation(c).ok());
  }
  auto first = *repo.ListConversations(2, std::nullopt);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].external_id, "c2");
  auto rest = *repo.ListConversations(2, std::make_pair(first[1].updated_at, first[1].id));
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].external_id, "c0");
}

// What the content column holds on disk for a message id.
std::string StoredContent(Database& db, int64_t id) {
  auto s = db.Prepare("SELECT content FROM messages WHERE id = ?");
  (*s)->Bind(1, id);
  EXPECT_TRUE((*s)->Step());
  std::string c = (*s)->Text(0);
  (*s)->Reset();
  return c;
}

TEST_P(MessageRepoTest, AContentThatIsTheJsonStringOfItsTextIsStoredOnceAndComesBackByteForByte) {
  MessageRepo repo(*db_);
  auto conv = *repo.CreateConversation("c", "", 0);
  struct Case {
    std::string content, text;
    bool kept_whole;  // stored verbatim rather than rebuilt from text
  };
  const std::vector<Case> cases = {
      {R"("hello")", "hello", false},
      {"\"\u4f60\u597d\"", "\u4f60\u597d", false},  // UTF-8 as dump() writes it
      {R"("line\nnext\t\"quoted\" back\\slash \u0001 \u001f /")", "line\nnext\t\"quoted\" back\\slash \x01 \x1f /",
       false},
      {R"("")", "", false},
      {"\"\x7f \xf0\x9f\x98\x80\"", "\x7f \xf0\x9f\x98\x80", false},
      {R"("\u4f60")", "\u4f60", true},                   // escaped unicode, as sent
      {R"("\/")", "/", true},                            // an escape dump() would not write
      {R"("A")", "a", true},                             // a text that is not the content's
      {R"([{"type":"text","text":"hi"}])", "hi", true},  // parts
      {R"([{"text":"hi","type":"text"},{"image_url":{"url":"cilia-file:ab"},"type":"image_url"}])", "hi", true},
      {"null", "", true},
      {R"("x" )", "x", true},  // not what dump() writes
  };
  int64_t seq = 0;
  for (const Case& c : cases) {
    MessageRecord m = Message(conv.id, seq++, std::nullopt, c.text);
    m.content = c.content;
    m.text = c.text;
    ASSERT_TRUE(repo.Insert(m).ok()) << c.content;
    EXPECT_EQ(StoredContent(*db_, m.id), c.kept_whole ? c.content : "") << c.content;
    auto back = repo.GetMessage(m.id);
    ASSERT_TRUE(back.ok() && back->has_value());
    EXPECT_EQ((*back)->content, c.content);
    EXPECT_EQ((*back)->text, c.text);
  }
  auto all = repo.MessagesFrom(conv.id, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ((*all)[i].content, cases[i].content);
}

TEST_P(MessageRepoTest, AFileNamedOnlyInAPlainTextStillCountsAsReferenced) {
  MessageRepo repo(*db_);
  auto conv = *repo.CreateConversation("c", "", 0);
  ASSERT_TRUE(repo.PutFile("abc", "image/png", 3, 0).ok());
  ASSERT_TRUE(repo.PutFile("def", "image/png", 3, 0).ok());
  MessageRecord m = Message(conv.id, 0, std::nullopt, "see cilia-file:abc");
  ASSERT_TRUE(repo.Insert(m).ok());
  ASSERT_EQ(StoredContent(*db_, m.id), "");
  EXPECT_FALSE(*repo.DropFileUnlessReferenced("abc"));  // as when the content held the text
  EXPECT_TRUE(*repo.DropFileUnlessReferenced("def"));
}

CILIA_ON_EACH_BACKEND(MessageRepoTest);

}  // namespace
}  // namespace cilia::store
