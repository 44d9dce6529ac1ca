#include "store/migrations.h"

#include <gtest/gtest.h>

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
