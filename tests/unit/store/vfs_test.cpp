#include "store/vfs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/db.h"
#include "testing/fault_env.h"
#include "testing/temp_dir.h"

namespace cilia::store {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// A database on the seam with one committed row, "kept".
class VfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(dir_.Sub("cilia.db"), {.read_only = false, .full_sync = true});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(text TEXT NOT NULL)").ok());
    ASSERT_TRUE(Insert({"kept"}).ok());
  }

  // The rows in one transaction: all or nothing.
  Status Insert(std::vector<std::string> rows) {
    Transaction tx(*db_);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    for (const std::string& text : rows) {
      CILIA_ASSIGN_OR_RETURN(Statement * s, db_->Prepare("INSERT INTO t(text) VALUES (?)"));
      CILIA_RETURN_IF_ERROR(s->Bind(1, text).Run());
    }
    return tx.Commit();
  }

  std::vector<std::string> Rows(Database& db) {
    auto s = db.Prepare("SELECT text FROM t ORDER BY rowid");
    EXPECT_TRUE(s.ok());
    auto rows = (*s)->All([](const Statement& r) { return r.Text(0); });
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? *rows : std::vector<std::string>{};
  }

  // What a restart would see: a new connection on the same files.
  std::vector<std::string> RowsAfterReopen() {
    db_.reset();
    auto db = Database::Open(dir_.Sub("cilia.db"), {});
    EXPECT_TRUE(db.ok());
    return Rows(**db);
  }

  testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(VfsTest, AFullDiskFailsTheCommitAsDiskFullAndKeepsNothingOfIt) {
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kWrite, "cilia.db", Status::DiskFull("full"));
  Status st = Insert({std::string(20000, 'a'), "b"});
  EXPECT_EQ(st.code(), Code::kDiskFull) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("free some space"));
  EXPECT_THAT(disk.reported(), Contains(Code::kDiskFull)) << "a metric";
  EXPECT_GT(disk.failures(), 0);
  disk.Heal();
  EXPECT_EQ(Rows(*db_), std::vector<std::string>{"kept"});
  ASSERT_TRUE(Insert({"after"}).ok()) << "the connection works again once there is room";
  EXPECT_EQ(RowsAfterReopen(), (std::vector<std::string>{"kept", "after"}));
}

TEST_F(VfsTest, AFailedFsyncIsAnIOErrorAndTheRowIsNotAcknowledged) {
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kSync, "cilia.db", Status::IOError("fsync"));
  Status st = Insert({"unsynced"});
  EXPECT_EQ(st.code(), Code::kIOError) << st.ToString();
  disk.Heal();
  // SQLite keeps a commit whose WAL frames are written even when the fsync
  // failed; what matters is that the caller was told it failed, and that
  // the acknowledged row is there.
  const auto rows = RowsAfterReopen();
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front(), "kept");
}

TEST_F(VfsTest, ABusyLockIsRetriedAndThenSucceeds) {
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kLock, "cilia.db", Status::Busy("locked"), 3);
  EXPECT_TRUE(Insert({"eventually"}).ok());
  EXPECT_EQ(disk.failures(), 3);
}

TEST_F(VfsTest, ALockThatStaysBusyIsBusy) {
  ASSERT_TRUE(db_->Exec("PRAGMA busy_timeout = 50").ok());
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kLock, "cilia.db", Status::Busy("locked"));
  Status st = Insert({"never"});
  EXPECT_EQ(st.code(), Code::kBusy) << st.ToString();
  EXPECT_THAT(disk.reported(), Contains(Code::kBusy));
  disk.Heal();
  EXPECT_EQ(RowsAfterReopen(), std::vector<std::string>{"kept"});
}

TEST_F(VfsTest, ASlowDiskIsSlowButLosesNothing) {
  testing::FaultEnv disk;
  disk.Slow(DiskOp::kSync, "", std::chrono::milliseconds(20));
  ASSERT_TRUE(Insert({"slow"}).ok());
  EXPECT_EQ(RowsAfterReopen(), (std::vector<std::string>{"kept", "slow"}));
}

}  // namespace
}  // namespace cilia::store
