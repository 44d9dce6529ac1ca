#include "memory/upkeep/retention.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testing/test_namespace.h"
#include "memory/upkeep/precious.h"
#include "store/digest_repo.h"
#include "store/glossary_repo.h"
#include "store/job_run_repo.h"
#include "store/message_repo.h"
#include "store/profile_repo.h"
#include "store/turn_repo.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

int64_t Count(Namespace& ns, const std::string& table) {
  return *ns.store().Read([&](store::Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare("SELECT count(*) FROM " + table));
    s->Step();
    int64_t n = s->Int(0);
    s->Reset();
    return n;
  });
}

TEST(RetentionTest, DropsOldOperationalDataAndNothingElse) {
  testing::TestNamespace t;
  Namespace& ns = t.ns();
  const UnixMs now = t.clock().Now();
  const UnixMs ancient = now - 400 * kMsPerDay;
  testing::Store(ns, "chat", {{"D1:1", "user", "a very old message that must stay", ancient}});
  ASSERT_TRUE(Pin(ns, {"chat", {"D1:1"}, "", store::Author::kOwner}, ancient).ok());
  ASSERT_TRUE(ns.store().Write([&](store::Database& db) -> Status {
    CILIA_RETURN_IF_ERROR(store::ProfileRepo(db).Put("user", "old profile", ancient));
    CILIA_RETURN_IF_ERROR(store::GlossaryRepo(db).Put({"term", {}, "old", 0, 0}, ancient).status());
    CILIA_RETURN_IF_ERROR(store::DigestRepo(db).PutLog({"2025-01-01", "", {{"x", {{"chat", "D1:1"}}}}, 1, "m", ancient, ancient}));
    CILIA_RETURN_IF_ERROR(store::DigestRepo(db).AddDigest({0, "2025-01-01", "d", "m", ancient}).status());
    for (UnixMs at : {ancient, now}) {
      store::TurnRecord turn;
      turn.started_at = at;
      turn.local_day = "2025-01-01";
      turn.endpoint = "chat.completions";
      CILIA_RETURN_IF_ERROR(store::TurnRepo(db).Append(turn).status());
      CILIA_ASSIGN_OR_RETURN(int64_t run, store::JobRunRepo(db).Start("nightly", "default", "schedule", at));
      CILIA_RETURN_IF_ERROR(store::JobRunRepo(db).Finish(run, store::JobOutcome::kOk, "", 0, {}, at));
      CILIA_RETURN_IF_ERROR(db.Exec(fmt::format("INSERT INTO recall_log(at, query, layer, item_id, score) VALUES ({}, 'q', 'archive', 1, 1)", at)));
      CILIA_RETURN_IF_ERROR(store::DigestRepo(db).PutPack(ns.tz().LocalDate(at).ToString(), "p", at, true));
    }
    return Status::Ok();
  }).ok());

  auto out = RunRetention(ns, JobsConfig{}, now);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->turns, 1);
  EXPECT_EQ(out->job_runs, 1);
  EXPECT_EQ(out->recall_log, 1);
  EXPECT_EQ(out->daily_packs, 1);
  EXPECT_EQ(out->Total(), 4);
  for (const char* kept : {"messages", "precious", "profile_documents", "glossary", "daily_logs", "digests"}) {
    EXPECT_EQ(Count(ns, kept), 1) << kept << " never expire";
  }
  EXPECT_EQ(Count(ns, "turns"), 1);
}

TEST(RetentionTest, ZeroDaysKeepsAKindForEver) {
  testing::TestNamespace t;
  ASSERT_TRUE(t.ns().store().Write([&](store::Database& db) {
    return store::JobRunRepo(db).Start("extract", "default", "manual", 0).status();
  }).ok());
  ASSERT_TRUE(t.ns().store().Write([&](store::Database& db) {
    return store::JobRunRepo(db).Finish(1, store::JobOutcome::kOk, "", 0, {}, 1);
  }).ok());
  JobsConfig keep;
  keep.job_runs_days = 0;
  EXPECT_EQ(RunRetention(t.ns(), keep, t.clock().Now())->job_runs, 0);
  EXPECT_EQ(RunRetention(t.ns(), JobsConfig{}, t.clock().Now())->job_runs, 1);
}

}  // namespace
}  // namespace cilia::memory
