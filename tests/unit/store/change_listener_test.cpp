// The change log's notifications (store/change_listener.h): a listener hears
// of a namespace's write at its commit, not before, and not of a write that
// was rolled back.
#include "store/change_listener.h"

#include <gmock/gmock.h>

#include <chrono>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/postgres_pool.h"

namespace cilia::store {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class ChangeListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CILIA_REQUIRE_POSTGRES(url_, "CILIA_TEST_PG_URL");
    ns_ = testing::FreshNamespace();
    auto pool = PostgresPool::Open(url_, "test", {});
    ASSERT_TRUE(pool.ok()) << pool.status().ToString();
    pool_ = std::move(*pool);
    auto listener = pool_->OpenListener();
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = std::move(*listener);
    auto db = PostgresDatabase::Open(url_, ns_, {.writer = "someone"});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    writer_ = std::move(*db);
  }
  std::set<std::string> Wait(std::chrono::milliseconds timeout) {
    auto heard = listener_->Wait(timeout);
    EXPECT_TRUE(heard.ok()) << heard.status().ToString();
    return heard.ok() ? *heard : std::set<std::string>{};
  }

  std::string url_, ns_;
  std::shared_ptr<PostgresPool> pool_;
  std::unique_ptr<ChangeListener> listener_;
  std::unique_ptr<PostgresDatabase> writer_;
};

TEST_F(ChangeListenerTest, HearsOfAWriteWithItsNamespaceAtTheCommitNotBefore) {
  ASSERT_TRUE(writer_->BeginWrite().ok());
  ASSERT_TRUE(MessageRepo(*writer_).CreateConversation("c", "a title", 0).ok());
  EXPECT_THAT(Wait(std::chrono::milliseconds(200)), IsEmpty());
  ASSERT_TRUE(writer_->Commit().ok());
  EXPECT_THAT(Wait(std::chrono::seconds(5)), ElementsAre(ns_));
}

TEST_F(ChangeListenerTest, HearsNothingOfAWriteRolledBack) {
  ASSERT_TRUE(writer_->BeginWrite().ok());
  ASSERT_TRUE(MessageRepo(*writer_).CreateConversation("c", "a title", 0).ok());
  ASSERT_TRUE(writer_->Exec("ROLLBACK").ok());
  EXPECT_THAT(Wait(std::chrono::milliseconds(300)), IsEmpty());
}

}  // namespace
}  // namespace cilia::store
