// The change log's notifications (store/change_listener.h): a listener hears
// of a namespace's write at its commit, not before, and not of a write that
// was rolled back.
#include "store/change_listener.h"

#include <gtest/gtest.h>

#include <chrono>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/postgres_pool.h"

namespace cilia::store {
namespace {

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
  // Whether the listener hears of this test's namespace within `timeout`.
  // The channel is the whole database's: tests running beside this one
  // notify it of their own namespaces, which are not this test's business.
  bool Heard(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      auto heard = listener_->Wait(left);
      EXPECT_TRUE(heard.ok()) << heard.status().ToString();
      if (!heard.ok()) return false;
      if (heard->count(ns_)) return true;
    }
  }

  std::string url_, ns_;
  std::shared_ptr<PostgresPool> pool_;
  std::unique_ptr<ChangeListener> listener_;
  std::unique_ptr<PostgresDatabase> writer_;
};

TEST_F(ChangeListenerTest, HearsOfAWriteWithItsNamespaceAtTheCommitNotBefore) {
  ASSERT_TRUE(writer_->BeginWrite().ok());
  ASSERT_TRUE(MessageRepo(*writer_).CreateConversation("c", "a title", 0).ok());
  EXPECT_FALSE(Heard(std::chrono::milliseconds(200))) << "not before the commit";
  ASSERT_TRUE(writer_->Commit().ok());
  EXPECT_TRUE(Heard(std::chrono::seconds(5)));
}

TEST_F(ChangeListenerTest, HearsNothingOfAWriteRolledBack) {
  ASSERT_TRUE(writer_->BeginWrite().ok());
  ASSERT_TRUE(MessageRepo(*writer_).CreateConversation("c", "a title", 0).ok());
  ASSERT_TRUE(writer_->Exec("ROLLBACK").ok());
  EXPECT_FALSE(Heard(std::chrono::milliseconds(300)));
}

}  // namespace
}  // namespace cilia::store
