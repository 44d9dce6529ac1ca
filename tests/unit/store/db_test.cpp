#include "store/db.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"

namespace cilia::store {
namespace {

class DbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Open(dir_.Sub("t.db"), {});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT UNIQUE, score REAL)").ok());
  }
  testing::TempDir dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(DbTest, PreparedStatementsAreCachedAndReset) {
  auto ins = db_->Prepare("INSERT INTO t(name, score) VALUES (?, ?)");
  ASSERT_TRUE(ins.ok());
  ASSERT_TRUE((*ins)->Bind(1, "a").Bind(2, 1.5).Run().ok());
  auto again = db_->Prepare("INSERT INTO t(name, score) VALUES (?, ?)");
  EXPECT_EQ(*ins, *again);
  ASSERT_TRUE((*again)->Bind(1, "b").Bind(2, 2.5).Run().ok());
  auto sel = db_->Prepare("SELECT name, score FROM t ORDER BY id");
  std::vector<std::string> names;
  while ((*sel)->Step()) names.push_back((*sel)->Text(0));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b"}));
}

TEST_F(DbTest, ConstraintViolationIsAConflict) {
  ASSERT_TRUE(db_->Exec("INSERT INTO t(name) VALUES ('x')").ok());
  auto ins = db_->Prepare("INSERT INTO t(name) VALUES (?)");
  Status st = (*ins)->Bind(1, "x").Run();
  EXPECT_EQ(st.code(), Code::kConflict);
}

TEST_F(DbTest, TransactionRollsBackUnlessCommitted) {
  {
    Transaction tx(*db_);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE(db_->Exec("INSERT INTO t(name) VALUES ('gone')").ok());
  }
  auto count = db_->Prepare("SELECT count(*) FROM t");
  ASSERT_TRUE((*count)->Step());
  EXPECT_EQ((*count)->Int(0), 0);
  (*count)->Reset();
  {
    Transaction tx(*db_);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE(db_->Exec("INSERT INTO t(name) VALUES ('kept')").ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  ASSERT_TRUE((*count)->Step());
  EXPECT_EQ((*count)->Int(0), 1);
}

TEST_F(DbTest, BadSqlNamesTheStatement) {
  Status st = db_->Exec("SELEC nonsense");
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("SELEC nonsense"), std::string::npos);
}

TEST(DbOpen, MissingFolderIsAnIOError) {
  auto db = Database::Open("/nonexistent-dir-cilia/x.db", {});
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), Code::kIOError);
}

}  // namespace
}  // namespace cilia::store
