#include "store/conversation_match_repo.h"

#include <gtest/gtest.h>

#include "migrated_db.h"
#include "store/sqlite_db.h"
#include "testing/temp_dir.h"
#include "store/message_repo.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

TEST(TrimForMatch, DropsAsciiWhitespaceAtBothEndsOnly) {
  EXPECT_EQ(TrimForMatch("  hi there \t\r\n"), "hi there");
  EXPECT_EQ(TrimForMatch("\v\fx"), "x");
  EXPECT_EQ(TrimForMatch(" \n "), "");
  EXPECT_EQ(TrimForMatch(""), "");
  // Ideographic space is text, as the SQL trim sees it.
  EXPECT_EQ(TrimForMatch("\u3000你好 "), "\u3000你好");
}

class ConversationMatchRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
  }
  int64_t Conversation(const std::string& id, std::string_view client_user, int64_t updated_at = 100) {
    MessageRepo repo(*db_);
    ConversationRecord c = *repo.CreateConversation(id, "", updated_at);
    EXPECT_TRUE(ConversationMatchRepo(*db_).TagUser(c.id, client_user).ok());
    return c.id;
  }
  sqlite3* Raw() { return static_cast<SqliteDatabase&>(*db_).raw(); }
  int64_t Add(int64_t conversation, int64_t seq, std::string role, std::string text) {
    MessageRecord m;
    m.conversation_row = conversation;
    m.seq = seq;
    m.role = std::move(role);
    m.content = "\"\"";
    m.text = std::move(text);
    m.content_hash = "h";
    m.source = "gateway";
    EXPECT_TRUE(MessageRepo(*db_).Insert(m).ok());
    return m.id;
  }
  std::vector<MessageMatch> Find(std::string_view user, std::string_view role, std::string_view text, int limit = 10) {
    auto found = ConversationMatchRepo(*db_).FindMessages(user, role, text, limit);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? *found : std::vector<MessageMatch>{};
  }
};

TEST_P(ConversationMatchRepoTest, FindsTrimmedTextsOfTheUsersConversationsNewestFirst) {
  const int64_t a = Conversation("a", "alice", 500);
  const int64_t b = Conversation("b", "alice", 700);
  const int64_t c = Conversation("c", "bob");
  Add(a, 0, "user", "  hello\n");
  Add(b, 0, "user", "hello");
  Add(b, 1, "assistant", "hello");
  Add(c, 0, "user", "hello");
  auto found = Find("alice", "user", "hello");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].conversation_row, b);
  EXPECT_EQ(found[0].conversation_updated_at, 700);
  EXPECT_EQ(found[1].conversation_row, a);
  EXPECT_EQ(found[1].seq, 0);
  EXPECT_EQ(Find("alice", "user", "hello", 1).size(), 1u);
  EXPECT_EQ(Find("alice", "assistant", "hello").size(), 1u);
  EXPECT_TRUE(Find("", "user", "hello").empty());
  EXPECT_TRUE(Find("alice", "user", "hell").empty());
}

TEST_P(ConversationMatchRepoTest, ComparesWholeTextsBeyondTheIndexedOpening) {
  const int64_t a = Conversation("a", "alice");
  std::string opening;
  for (int i = 0; i < 70; ++i) opening += "猫";
  Add(a, 0, "user", opening + "🐈 one");
  Add(a, 1, "user", opening + "🐈 two");
  auto found = Find("alice", "user", opening + "🐈 two");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].seq, 1);
  EXPECT_TRUE(Find("alice", "user", opening).empty());
}

TEST_P(ConversationMatchRepoTest, LooksUpThroughTheIndexWithoutScanningOrSorting) {
  if (OnPostgres()) GTEST_SKIP() << "reads SQLite's statement counters";
  const int64_t a = Conversation("a", "alice");
  for (int i = 0; i < 200; ++i) Add(a, i, i % 2 ? "assistant" : "user", "message " + std::to_string(i));
  ASSERT_EQ(Find("alice", "user", "message 42").size(), 1u);
  // The lookup's statement, as the connection keeps it prepared.
  int statements = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(Raw(), nullptr); s; s = sqlite3_next_stmt(Raw(), s)) {
    if (std::string_view(sqlite3_sql(s)).find("conversation_users u") == std::string_view::npos) continue;
    ++statements;
    EXPECT_EQ(sqlite3_stmt_status(s, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0), 0);
    EXPECT_EQ(sqlite3_stmt_status(s, SQLITE_STMTSTATUS_SORT, 0), 0);
    EXPECT_EQ(sqlite3_stmt_status(s, SQLITE_STMTSTATUS_AUTOINDEX, 0), 0);
  }
  EXPECT_EQ(statements, 1);
}

TEST_P(ConversationMatchRepoTest, ATagIsReplacedAndGoesWithItsConversation) {
  const int64_t a = Conversation("a", "alice");
  const int64_t hello = Add(a, 0, "user", "hello");
  ASSERT_TRUE(ConversationMatchRepo(*db_).TagUser(a, "bob").ok());
  EXPECT_TRUE(Find("alice", "user", "hello").empty());
  EXPECT_EQ(Find("bob", "user", "hello").size(), 1u);
  ASSERT_TRUE(MessageRepo(*db_).DeleteMessage(hello).ok());
  ASSERT_TRUE(MessageRepo(*db_).DeleteConversation(a).ok());
  auto left = db_->Prepare("SELECT count(*) FROM conversation_users");
  ASSERT_TRUE((*left)->Step());
  EXPECT_EQ((*left)->Int(0), 0);
  (*left)->Reset();
}

CILIA_ON_EACH_BACKEND(ConversationMatchRepoTest);

}  // namespace
}  // namespace cilia::store
