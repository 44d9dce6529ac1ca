#include "store/migrations.h"

#include <gtest/gtest.h>

#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/window_repo.h"
#include "testing/temp_dir.h"

namespace cilia::store {
namespace {

int UserVersion(Database& db) {
  auto s = db.Prepare("PRAGMA user_version");
  EXPECT_TRUE((*s)->Step());
  int v = static_cast<int>((*s)->Int(0));
  (*s)->Reset();
  return v;
}

TEST(Migrations, AreNumberedFromOneWithoutGaps) {
  ASSERT_GT(kMigrationCount, 0);
  for (int i = 0; i < kMigrationCount; ++i) EXPECT_EQ(kMigrations[i].version, i + 1) << kMigrations[i].name;
}

TEST(Migrations, ApplyOnceAndAreIdempotent) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Sub("m.db"), {});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_EQ(UserVersion(**db), LatestSchemaVersion());
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_TRUE((*db)->Exec("SELECT count(*) FROM messages; SELECT count(*) FROM windows_trigram").ok());
}

TEST(Migrations, JobRunsKeepTheirRowsAndTakeThePartialOutcomeFromVersion7On) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Sub("m.db"), {});
  ASSERT_TRUE(db.ok());
  for (int i = 0; i < kMigrationCount && kMigrations[i].version <= 6; ++i) {
    ASSERT_TRUE((*db)->Exec(kMigrations[i].sql).ok()) << kMigrations[i].name;
  }
  ASSERT_TRUE((*db)->Exec("PRAGMA user_version=6").ok());
  ASSERT_TRUE((*db)->Exec("INSERT INTO job_runs(job, namespace, started_by, started_at, outcome, items, detail) "
                          "VALUES ('nightly', 'default', 'schedule', 1, 'ok', 3, '{\"days\": 1}')").ok());
  EXPECT_FALSE((*db)->Exec("INSERT INTO job_runs(job, namespace, started_by, started_at, outcome) "
                           "VALUES ('nightly', 'default', 'schedule', 2, 'partial')").ok());
  ASSERT_TRUE(Migrate(**db).ok());
  auto kept = (*db)->Prepare("SELECT job, items, detail FROM job_runs");
  ASSERT_TRUE((*kept)->Step());
  EXPECT_EQ((*kept)->Text(0), "nightly");
  EXPECT_EQ((*kept)->Int(1), 3);
  EXPECT_EQ((*kept)->Text(2), "{\"days\": 1}");
  (*kept)->Reset();
  EXPECT_TRUE((*db)->Exec("INSERT INTO job_runs(job, namespace, started_by, started_at, outcome) "
                          "VALUES ('nightly', 'default', 'schedule', 2, 'partial')").ok());
  EXPECT_FALSE((*db)->Exec("INSERT INTO job_runs(job, namespace, started_by, started_at, outcome) "
                           "VALUES ('nightly', 'default', 'schedule', 3, 'great')").ok());
}

TEST(Migrations, Version9StoresTheTextOfPlainMessagesOnceAndTheyReadBackAsBefore) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Sub("m.db"), {});
  ASSERT_TRUE(db.ok());
  for (int i = 0; i < kMigrationCount && kMigrations[i].version <= 8; ++i) {
    ASSERT_TRUE((*db)->Exec(kMigrations[i].sql).ok()) << kMigrations[i].name;
  }
  ASSERT_TRUE((*db)->Exec("PRAGMA user_version=8").ok());
  ASSERT_TRUE(
      (*db)->Exec("INSERT INTO conversations(id, external_id, created_at, updated_at) VALUES (1, 'c', 0, 0)").ok());
  // Rows of the old shape: content always the verbatim JSON, as cilia wrote it (nlohmann dumps).
  const std::vector<std::pair<std::string, std::string>> rows = {
      {R"("hello")", "hello"},
      {"\"\u4f60\u597d\"", "\u4f60\u597d"},
      {R"("line\nnext\t\"q\" b\\s \u0001 \b\f\r \u001f /")", "line\nnext\t\"q\" b\\s \x01 \b\f\r \x1f /"},
      {R"("")", ""},
      {"\"\x7f \xf0\x9f\x98\x80 \u2028\"", "\x7f \xf0\x9f\x98\x80 \u2028"},
      {R"("\u4f60")", "\u4f60"},
      {R"([{"text":"hi","type":"text"}])", "hi"},
      {"null", ""},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    auto insert = (*db)->Prepare(
        "INSERT INTO messages(conversation_id, seq, role, content, text, content_hash, "
        "created_at, stored_at, source) VALUES (1, ?, 'user', ?, ?, 'h', 0, 0, 'api')");
    (*insert)->Bind(1, static_cast<int64_t>(i)).Bind(2, rows[i].first).Bind(3, rows[i].second);
    ASSERT_TRUE((*insert)->Run().ok());
  }
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_EQ(UserVersion(**db), LatestSchemaVersion());
  auto stored = (*db)->Prepare("SELECT content FROM messages ORDER BY seq");
  std::vector<std::string> on_disk;
  while ((*stored)->Step()) on_disk.push_back((*stored)->Text(0));
  (*stored)->Reset();
  const std::vector<std::string> expected = {"", "", "", "", "", R"("\u4f60")", rows[6].first, "null"};
  EXPECT_EQ(on_disk, expected);
  MessageRepo repo(**db);
  auto back = repo.MessagesFrom(1, 0);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ((*back)[i].content, rows[i].first) << i;
    EXPECT_EQ((*back)[i].text, rows[i].second) << i;
  }
}

TEST(Migrations, Version10IndexesTheHanNgramsOfOldWindowsFromTheirBodies) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Sub("m.db"), {});
  ASSERT_TRUE(db.ok());
  for (int i = 0; i < kMigrationCount && kMigrations[i].version <= 9; ++i) {
    ASSERT_TRUE((*db)->Exec(kMigrations[i].sql).ok()) << kMigrations[i].name;
  }
  ASSERT_TRUE((*db)->Exec("PRAGMA user_version=9").ok());
  // Windows of the old shape, their tokens in the cjk column (as ShortCjkTokens wrote them).
  ASSERT_TRUE((*db)->Exec(R"(
    INSERT INTO conversations(id, external_id, created_at, updated_at) VALUES (1, 'c', 0, 0);
    INSERT INTO windows(id, conversation_id, first_seq, first_segment, last_seq, created_at, ended_at, spans, body,
                        words, cjk)
    VALUES (1, 1, 0, 0, 0, 0, 0, '[]', '和小林去Chengdu', '和 小林 去 chengdu', '和 和小 小 小林 林 林去 去'),
           (2, 1, 1, 0, 1, 0, 0, '[]', '小，林', '小 林', '小 林');)")
                  .ok());
  ASSERT_TRUE(Migrate(**db).ok());
  EXPECT_EQ(UserVersion(**db), LatestSchemaVersion());
  auto columns = (*db)->Prepare("SELECT count(*) FROM pragma_table_info('windows') WHERE name = 'cjk'");
  EXPECT_EQ(*(*columns)->OneInt(), 0);
  WindowRepo repo(**db);
  auto ids = [&](const char* match) { return testing::CjkIds(repo, match); };
  EXPECT_EQ(ids("\"小林\""), std::vector<int64_t>{1});
  EXPECT_EQ(ids("\"林\""), (std::vector<int64_t>{1, 2}));
  // The triggers were made again: new windows and deletions reach both tables.
  ASSERT_TRUE((*db)->Exec("INSERT INTO windows(id, conversation_id, first_seq, first_segment, last_seq, created_at, "
                          "ended_at, spans, body, words) VALUES (3, 1, 2, 0, 2, 0, 0, '[]', '小林跑步', '小林 跑步')")
                  .ok());
  EXPECT_EQ(ids("\"小林\""), (std::vector<int64_t>{1, 3}));
  ASSERT_TRUE((*db)->Exec("DELETE FROM windows WHERE id = 1").ok());
  EXPECT_EQ(ids("\"小林\""), std::vector<int64_t>{3});
  EXPECT_EQ(repo.SearchTrigram("\"eng\"", {}, 10)->size(), 0u);
  EXPECT_EQ(repo.SearchTrigram("\"林跑步\"", {}, 10)->size(), 1u);
}

TEST(Migrations, RefuseADatabaseFromANewerCilia) {
  testing::TempDir dir;
  auto db = Database::Open(dir.Sub("m.db"), {});
  ASSERT_TRUE((*db)->Exec("PRAGMA user_version=9999").ok());
  Status st = Migrate(**db);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("newer"), std::string::npos);
}

}  // namespace
}  // namespace cilia::store
