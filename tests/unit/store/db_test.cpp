#include "store/sqlite_db.h"

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

TEST_F(DbTest, AllOneEachOneIntAndExistsReadRowsAndResetTheStatement) {
  ASSERT_TRUE(db_->Exec("INSERT INTO t(name, score) VALUES ('a', 1), ('b', NULL)").ok());
  Statement* s = *db_->Prepare("SELECT name, score FROM t ORDER BY id");
  auto all = s->All([](const Statement& r) { return r.Text(0) + (r.IsNull(1) ? "-" : "+"); });
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::vector<std::string>{"a+", "b-"}));
  auto again = s->All([](const Statement& r) { return r.Text(0); });
  EXPECT_EQ(again->size(), 2u) << "reset: it reads from the start again";

  Statement* one = *db_->Prepare("SELECT name FROM t WHERE name = ?");
  EXPECT_EQ(**one->Bind(1, "b").One([](const Statement& r) { return r.Text(0); }), "b");
  EXPECT_FALSE(one->Bind(1, "zz").One([](const Statement& r) { return r.Text(0); })->has_value());
  EXPECT_TRUE(*one->Bind(1, "a").Exists());
  EXPECT_FALSE(*one->Bind(1, "zz").Exists());

  std::vector<std::string> seen;
  ASSERT_TRUE(s->Each([&](const Statement& r) { seen.push_back(r.Text(0)); }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b"}));

  Statement* count = *db_->Prepare("SELECT count(*) FROM t");
  EXPECT_EQ(*count->OneInt(), 2);
  Statement* none = *db_->Prepare("SELECT score FROM t WHERE name = 'b'");
  EXPECT_EQ(*none->OneInt(-7), -7) << "NULL";
  EXPECT_EQ(*(*db_->Prepare("SELECT id FROM t WHERE 0"))->OneInt(-1), -1) << "no row";
  // A statement left at its first row would hold the read lock: One resets.
  EXPECT_FALSE(sqlite3_stmt_busy(static_cast<SqliteStatement*>(one)->raw()));
}

TEST_F(DbTest, AFailedBindFailsTheStatementInsteadOfRunningWithoutIt) {
  Statement* ins = *db_->Prepare("INSERT INTO t(name) VALUES (?)");
  Status st = ins->Bind(1, "x").Bind(2, "no such parameter").Run();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("bind parameter 2"), std::string::npos) << st.message();
  auto rows = (*db_->Prepare("SELECT count(*) FROM t"))->OneInt();
  EXPECT_EQ(*rows, 0) << "nothing ran";
  auto read = (*db_->Prepare("SELECT name FROM t WHERE id = ?"))->Bind(3, int64_t{1}).One(FirstInt);
  EXPECT_FALSE(read.ok());
  EXPECT_TRUE((*db_->Prepare("INSERT INTO t(name) VALUES (?)"))->Bind(1, "y").Run().ok()) << "Prepare clears it";
}

TEST_F(DbTest, AReadSnapshotSeesNoWriteThatLandsDuringIt) {
  auto reader = Database::Open(dir_.Sub("t.db"), {});
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(db_->Exec("INSERT INTO t(name) VALUES ('before')").ok());
  Statement* count = *(*reader)->Prepare("SELECT count(*) FROM t");
  {
    ReadSnapshot snapshot(**reader);
    ASSERT_TRUE(snapshot.Begin().ok());
    EXPECT_EQ(*count->OneInt(), 1);
    ASSERT_TRUE(db_->Exec("INSERT INTO t(name) VALUES ('during')").ok());
    EXPECT_EQ(*count->OneInt(), 1) << "still the snapshot";
  }
  EXPECT_EQ(*count->OneInt(), 2) << "the snapshot ended with its scope";
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
