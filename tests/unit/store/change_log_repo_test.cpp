// The change log (PostgreSQL's migration 0013): what its triggers record of
// the writes other gateways must learn of, and what they leave out.
#include "store/change_log_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/vector_table.h"
#include "store/window_repo.h"

namespace cilia::store {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ChangeLogRepoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CILIA_REQUIRE_POSTGRES(url_, "CILIA_TEST_PG_URL");
    ns_ = testing::FreshNamespace();
    mine_ = Open("gateway-a");
    theirs_ = Open("gateway-b");
    ASSERT_TRUE(mine_ && theirs_);
    conversation_ = MessageRepo(*mine_).CreateConversation("c", "first title", 0)->id;
  }
  std::unique_ptr<PostgresDatabase> Open(const std::string& writer) {
    auto db = PostgresDatabase::Open(url_, ns_, {.writer = writer});
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return nullptr;
    Status migrated = Migrate(**db);
    EXPECT_TRUE(migrated.ok()) << migrated.ToString();
    return std::move(*db);
  }
  int64_t AddWindow(Database& db, std::string words) {
    WindowRecord w;
    w.conversation_row = conversation_;
    w.spans = "[]";
    w.body = words;
    w.words = std::move(words);
    EXPECT_TRUE(WindowRepo(db).Insert(w).ok());
    return w.id;
  }
  // What another writer than `writer` reads after `seq`, as (kind, row).
  std::vector<std::pair<ChangeKind, int64_t>> Read(int64_t seq, std::string_view reader = "gateway-z") {
    auto page = ChangeLogRepo(*theirs_).After(seq, reader, 100);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::pair<ChangeKind, int64_t>> out;
    if (page.ok()) {
      for (const Change& c : page->changes) out.emplace_back(c.kind, c.row);
    }
    return out;
  }
  int64_t Newest() { return *ChangeLogRepo(*theirs_).Newest(); }

  std::string url_, ns_;
  std::unique_ptr<PostgresDatabase> mine_, theirs_;
  int64_t conversation_ = 0;
};

TEST_F(ChangeLogRepoTest, TheIndexedTablesWritesAreLoggedInCommitOrder) {
  const int64_t start = Newest();
  const int64_t window = AddWindow(*mine_, "heron reeds");
  ASSERT_TRUE(VectorTable::Windows(*mine_).Put(window, "hash", std::vector<float>{1, 0}).ok());
  auto conversation = MessageRepo(*mine_).GetConversation(conversation_);
  ASSERT_TRUE(conversation.ok() && *conversation);
  (*conversation)->title = "a new title";
  ASSERT_TRUE(MessageRepo(*mine_).SaveConversation(**conversation).ok());
  ASSERT_TRUE(mine_->Exec("DELETE FROM windows WHERE id = " + std::to_string(window)).ok());

  auto changes = Read(start);
  ASSERT_EQ(changes.size(), 5u);
  EXPECT_THAT(std::vector(changes.begin(), changes.begin() + 3),
              ElementsAre(std::pair{ChangeKind::kWindow, window}, std::pair{ChangeKind::kWindowVector, window},
                          std::pair{ChangeKind::kConversation, conversation_}));
  // The delete, and its vector going with it.
  EXPECT_THAT(std::vector(changes.begin() + 3, changes.end()),
              ::testing::UnorderedElementsAre(std::pair{ChangeKind::kWindow, window},
                                              std::pair{ChangeKind::kWindowVector, window}));
}

TEST_F(ChangeLogRepoTest, ARecallsAccessCountAndASaveWithTheSameTitleAreNoChange) {
  const int64_t window = AddWindow(*mine_, "heron reeds");
  const int64_t start = Newest();
  ASSERT_TRUE(WindowRepo(*mine_).RecordRecall(window, 5, "heron", 1.0).ok());
  auto conversation = MessageRepo(*mine_).GetConversation(conversation_);
  ASSERT_TRUE(conversation.ok() && *conversation);
  (*conversation)->updated_at = 99;
  ASSERT_TRUE(MessageRepo(*mine_).SaveConversation(**conversation).ok());
  EXPECT_THAT(Read(start), IsEmpty());
}

TEST_F(ChangeLogRepoTest, AReaderSkipsItsOwnWritesButReadsPastThem) {
  const int64_t start = Newest();
  const int64_t mine = AddWindow(*mine_, "mine");
  const int64_t theirs = AddWindow(*theirs_, "theirs");
  EXPECT_THAT(Read(start, "gateway-a"), ElementsAre(std::pair{ChangeKind::kWindow, theirs}));
  EXPECT_THAT(Read(start, "gateway-b"), ElementsAre(std::pair{ChangeKind::kWindow, mine}));
  auto page = ChangeLogRepo(*theirs_).After(start, "gateway-b", 100);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->last_seq, Newest()) << "its own change is read past, not again next time";
}

TEST_F(ChangeLogRepoTest, APageEndsAtItsLimitAndSaysThereIsMore) {
  const int64_t start = Newest();
  for (int i = 0; i < 3; ++i) AddWindow(*mine_, "w" + std::to_string(i));
  auto first = ChangeLogRepo(*theirs_).After(start, "z", 2);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->changes.size(), 2u);
  EXPECT_TRUE(first->more);
  auto rest = ChangeLogRepo(*theirs_).After(first->last_seq, "z", 2);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->changes.size(), 1u);
  EXPECT_FALSE(rest->more);
}

TEST_F(ChangeLogRepoTest, ANamespaceSeesOnlyItsOwnChanges) {
  const int64_t start = Newest();
  auto other = PostgresDatabase::Open(url_, testing::FreshNamespace(), {.writer = "gateway-c"});
  ASSERT_TRUE(other.ok());
  auto conversation = MessageRepo(**other).CreateConversation("elsewhere", "t", 0);
  ASSERT_TRUE(conversation.ok()) << conversation.status().ToString();
  EXPECT_THAT(Read(start), IsEmpty());
}

TEST_F(ChangeLogRepoTest, TrimDropsChangesOlderThanTheCutOffOnly) {
  AddWindow(*mine_, "old");
  ASSERT_TRUE(mine_->Exec("UPDATE change_log SET at = 1000").ok());
  const int64_t start = Newest();
  const int64_t fresh = AddWindow(*mine_, "new");
  auto trimmed = ChangeLogRepo(*mine_).TrimBefore(2000);
  ASSERT_TRUE(trimmed.ok()) << trimmed.status().ToString();
  EXPECT_EQ(*trimmed, 2) << "the conversation's and the old window's";
  EXPECT_THAT(Read(0), ElementsAre(std::pair{ChangeKind::kWindow, fresh}));
  EXPECT_GT(Newest(), start);
}

}  // namespace
}  // namespace cilia::store
