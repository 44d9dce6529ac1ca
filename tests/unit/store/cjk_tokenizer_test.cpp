#include "store/cjk_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace cilia::store {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A bare SQLite connection: the tokenizer needs nothing of cilia's own.
class CjkTokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    ASSERT_EQ(RegisterCjkTokenizer(db_), SQLITE_OK);
    Exec("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='cilia_cjk', detail='none');"
         "CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');");
  }
  void TearDown() override { sqlite3_close(db_); }

  void Exec(const std::string& sql) {
    char* err = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  }
  // Inserts `body` as text of exactly its bytes (ill-formed ones included).
  int Insert(const std::string& body) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, "INSERT INTO t(body) VALUES (?)", -1, &s, nullptr), SQLITE_OK);
    sqlite3_bind_text(s, 1, body.data(), static_cast<int>(body.size()), SQLITE_TRANSIENT);
    const int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc;
  }
  std::vector<std::string> Column(const std::string& sql, const std::string& param = "", int* rc_out = nullptr) {
    sqlite3_stmt* s = nullptr;
    std::vector<std::string> out;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
    if (!param.empty()) sqlite3_bind_text(s, 1, param.data(), static_cast<int>(param.size()), SQLITE_TRANSIENT);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    }
    sqlite3_finalize(s);
    if (rc_out) *rc_out = rc;
    return out;
  }
  std::vector<std::string> Terms() { return Column("SELECT term FROM v ORDER BY term"); }
  std::vector<std::string> Rows(const std::string& match) {
    int rc = 0;
    auto rows = Column("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rowid", match, &rc);
    EXPECT_EQ(rc, SQLITE_DONE) << match << ": " << sqlite3_errmsg(db_);
    return rows;
  }

  sqlite3* db_ = nullptr;
};

TEST_F(CjkTokenizerTest, IndexesHanUnigramsAndBigramsOfTheNormalisedText) {
  ASSERT_EQ(Insert("去成都 run 10k！跑步"), SQLITE_DONE);
  EXPECT_THAT(Terms(), ElementsAre("去", "去成", "成", "成都", "步", "跑", "跑步", "都"));
}

TEST_F(CjkTokenizerTest, IndexesNothingButHan) {
  ASSERT_EQ(Insert("コーヒー hello 😎 안녕"), SQLITE_DONE);
  EXPECT_THAT(Terms(), IsEmpty());
}

TEST_F(CjkTokenizerTest, OneAndTwoCharacterQueriesFindTheRowsHoldingThem) {
  Insert("我去成都跑步");  // 1
  Insert("成，都");        // 2: the two characters, not adjacent
  Insert("Chengdu");       // 3
  EXPECT_THAT(Rows("\"成都\""), ElementsAre("1"));
  EXPECT_THAT(Rows("\"成\""), ElementsAre("1", "2"));
  EXPECT_THAT(Rows("\"都\""), ElementsAre("1", "2"));
  EXPECT_THAT(Rows("\"都成\""), IsEmpty());
  EXPECT_THAT(Rows("\"chengdu\""), IsEmpty());  // only Han is indexed
  EXPECT_THAT(Rows("\"\uF900\""), IsEmpty());
}

TEST_F(CjkTokenizerTest, QueriesAreNormalisedLikeTheBodies) {
  Insert("\uF900");  // 豈 compatibility ideograph, indexed as U+8C48
  EXPECT_THAT(Rows("\"\u8C48\""), ElementsAre("1"));
  EXPECT_THAT(Rows("\"\uF900\""), ElementsAre("1"));
}

TEST_F(CjkTokenizerTest, AQueryRunOfThreeOrMoreIsOneTokenNoRowHolds) {
  Insert("我去成都跑步");
  EXPECT_THAT(Rows("\"去成都\""), IsEmpty());  // as with unicode61 over the old column
  EXPECT_THAT(Rows("\"成\" AND \"跑步\""), ElementsAre("1"));
  EXPECT_THAT(Rows("\"成都!\""), ElementsAre("1"));  // what is not Han yields no token
}

TEST_F(CjkTokenizerTest, IllFormedUtf8IsReadAsReplacementCharacters) {
  ASSERT_EQ(Insert("成\xff都\xe6\x88"), SQLITE_DONE);
  EXPECT_THAT(Terms(), ElementsAre("成", "都"));
  EXPECT_THAT(Rows("\"成\xff\""), ElementsAre("1"));
}

TEST_F(CjkTokenizerTest, AnyBytesAreIndexedAndQueriedWithoutError) {
  std::mt19937 rng(16);
  const std::string pieces[] = {"成", "都", "\xff", "\xe6", "\x88", "a", " ", "\"", "\xf0\x9f", "\uF900", std::string(1, '\0')};
  for (int i = 0; i < 300; ++i) {
    std::string s;
    for (int k = rng() % 12; k > 0; --k) s += pieces[rng() % std::size(pieces)];
    ASSERT_EQ(Insert(s), SQLITE_DONE) << i;
    std::string phrase = "\"";
    for (char c : s) {
      if (c != '\0') phrase += c == '"' ? std::string("\"\"") : std::string(1, c);  // SQL text ends at a NUL
    }
    phrase += "\"";
    int rc = 0;
    Column("SELECT rowid FROM t WHERE t MATCH ?", phrase, &rc);
    // Two runs make a phrase of two tokens, which detail=none refuses cleanly.
    EXPECT_TRUE(rc == SQLITE_DONE || std::string(sqlite3_errmsg(db_)).find("not supported") != std::string::npos)
        << i << ": " << sqlite3_errmsg(db_);
  }
}

}  // namespace
}  // namespace cilia::store
