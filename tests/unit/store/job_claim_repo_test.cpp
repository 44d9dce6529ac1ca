#include "store/job_claim_repo.h"

#include <gmock/gmock.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kTtl = 300;

JobClaimRequest Ask(std::string_view holder, UnixMs now, std::string_view job = "nightly") {
  return JobClaimRequest{job, "default", "schedule", holder, now, kTtl};
}

// A manual run: wanted whatever ran before.
bool Always(const std::optional<JobRun>&) { return true; }

// A job run once per period of 1000 ms: wanted unless a run started in the
// period of `now` already.
StillWanted OncePerPeriod(UnixMs now) {
  return [now](const std::optional<JobRun>& latest) { return !latest || latest->started_at / 1000 < now / 1000; };
}

class JobClaimRepoTest : public testing::BackendTest {
 protected:
  // Another connection to the same database (and namespace): a second gateway.
  std::unique_ptr<Database> Connect() {
    if (!OnPostgres()) return std::move(*Database::Open(dir_.Sub("t.db"), {}));
    auto db = PostgresDatabase::Open(testing::EnvOr("CILIA_TEST_PG_URL"), ns_);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::unique_ptr<Database>(std::move(*db)) : nullptr;
  }
  // Ends run `id` ok and lets go of its claim, as RunJob does.
  void FinishAndRelease(Database& db, std::string_view holder, int64_t id, UnixMs now, std::string_view job = "nightly") {
    ASSERT_TRUE(JobRunRepo(db).Finish(id, JobOutcome::kOk, "", 1, {}, now).ok());
    ASSERT_TRUE(JobClaimRepo(db).Release(job, holder, id).ok());
  }
  JobRun Run(int64_t id) {
    auto runs = JobRunRepo(db()).List(std::nullopt, id + 1, 1);
    EXPECT_TRUE(runs.ok() && !runs->empty() && runs->front().id == id);
    return runs.ok() && !runs->empty() ? runs->front() : JobRun{};
  }
};

// Two gateways' claims, as the next tests have them, are PostgreSQL's: in
// SQLite only one process runs a data dir's jobs (serve.lock), so another
// holder's claim is a killed process's (InSqliteAnotherProcesssClaimIsDead).
constexpr char kOneProcessInSqlite[] = "SQLite: one process holds the data dir, another holder is a killed one";

TEST_P(JobClaimRepoTest, OfTwoClaimantsOneWinsAndAfterItFinishesTheOtherDoesNotRunItAgain) {
  if (Skipped()) return;
  if (!OnPostgres()) GTEST_SKIP() << kOneProcessInSqlite;
  auto other = Connect();
  ASSERT_TRUE(other);
  JobClaimRepo a(db()), b(*other);
  auto won = a.Claim(Ask("a", 1000), OncePerPeriod(1000));
  ASSERT_TRUE(won.ok()) << won.status().ToString();
  ASSERT_TRUE(won->has_value()) << "the job's first claim";
  EXPECT_EQ(Run(**won).outcome, JobOutcome::kRunning) << "the run is recorded with the claim";
  EXPECT_EQ(Run(**won).started_by, "schedule");
  auto lost = b.Claim(Ask("b", 1000), OncePerPeriod(1000));
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  EXPECT_FALSE(lost->has_value()) << "a's claim is live";
  EXPECT_FALSE(b.Claim(Ask("b", 1000), Always)->has_value()) << "not even by hand";

  FinishAndRelease(db(), "a", **won, 1100);
  auto after = b.Claim(Ask("b", 1200), OncePerPeriod(1200));
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_FALSE(after->has_value()) << "b saw the job due before a ran it; under the claim it is not";
  EXPECT_EQ(JobRunRepo(db()).List("nightly", std::nullopt, 10)->size(), 1u) << "one run, and nothing left claimed";
  auto next = b.Claim(Ask("b", 2000), OncePerPeriod(2000));
  ASSERT_TRUE(next.ok() && next->has_value()) << "the next period is b's to take";
}

TEST_P(JobClaimRepoTest, EachJobHasAClaimOfItsOwn) {
  if (Skipped()) return;
  JobClaimRepo repo(db());
  ASSERT_TRUE(repo.Claim(Ask("a", 1000, "nightly"), Always)->has_value());
  auto extract = repo.Claim(Ask("b", 1000, "extract"), Always);
  ASSERT_TRUE(extract.ok()) << extract.status().ToString();
  EXPECT_TRUE(extract->has_value());
}

TEST_P(JobClaimRepoTest, AnExpiredClaimIsTakenOverAndItsRunMarkedInterruptedButALiveOnesRunIsNot) {
  if (Skipped()) return;
  if (!OnPostgres()) GTEST_SKIP() << kOneProcessInSqlite;
  auto other = Connect();
  ASSERT_TRUE(other);
  JobClaimRepo a(db()), b(*other);
  const int64_t died = **a.Claim(Ask("a", 1000), Always);  // expires at 1300 unless extended
  EXPECT_EQ(*JobRunRepo(*other).MarkInterrupted(1200, "b"), 0) << "its claim is live";
  EXPECT_EQ(Run(died).outcome, JobOutcome::kRunning);
  ASSERT_TRUE(*a.Extend("nightly", "a", died, 1500)) << "a extends it while the run lives";
  EXPECT_FALSE(b.Claim(Ask("b", 1400), Always)->has_value()) << "extended past 1400";
  EXPECT_EQ(*JobRunRepo(*other).MarkInterrupted(1400, "b"), 0);

  // a stops extending (its process was killed); past 1500 the claim is b's.
  auto taken = b.Claim(Ask("b", 1600), Always);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE(taken->has_value());
  const JobRun interrupted = Run(died);
  EXPECT_EQ(interrupted.outcome, JobOutcome::kFailed);
  EXPECT_THAT(interrupted.error, HasSubstr("interrupted"));
  EXPECT_EQ(interrupted.ended_at, 1600);
  EXPECT_EQ(Run(**taken).outcome, JobOutcome::kRunning);
  EXPECT_FALSE(*a.Extend("nightly", "a", died, 1900)) << "a, come back, learns it lost the claim";
  ASSERT_TRUE(a.Release("nightly", "a", died).ok());
  EXPECT_FALSE(a.Claim(Ask("a", 1700), Always)->has_value()) << "a's release did not free b's claim";
  EXPECT_EQ(*JobRunRepo(db()).MarkInterrupted(1700, "a"), 0) << "b's run is alive";
}

// A gateway killed mid-run and started again: in SQLite the new process is
// the only one that can hold the data dir, so the old one's claim is dead at
// once, not after it expires; in PostgreSQL it may be another gateway's, live
// until it expires. A process's own live claim holds in both.
TEST_P(JobClaimRepoTest, InSqliteAnotherProcesssClaimIsDead) {
  if (Skipped()) return;
  JobClaimRepo repo(db());
  const int64_t killed = **repo.Claim(Ask("old-pid", 1000), Always);
  EXPECT_FALSE(repo.Claim(Ask("old-pid", 1100), Always)->has_value()) << "its own live claim holds";
  EXPECT_EQ(*JobRunRepo(db()).MarkInterrupted(1100, "old-pid"), 0);
  if (OnPostgres()) {
    EXPECT_EQ(*JobRunRepo(db()).MarkInterrupted(1100, "new-pid"), 0) << "another gateway's live run";
    EXPECT_FALSE(repo.Claim(Ask("new-pid", 1100), Always)->has_value());
    return;
  }
  EXPECT_EQ(*JobRunRepo(db()).MarkInterrupted(1100, "new-pid"), 1) << "long before the claim expires at 1300";
  EXPECT_EQ(Run(killed).outcome, JobOutcome::kFailed);
  EXPECT_THAT(Run(killed).error, HasSubstr("interrupted"));
  auto taken = repo.Claim(Ask("new-pid", 1100), Always);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE(taken->has_value()) << "the new process runs the job at once";
  EXPECT_EQ(Run(**taken).outcome, JobOutcome::kRunning);
  EXPECT_EQ(*JobRunRepo(db()).MarkInterrupted(1200, "new-pid"), 0) << "its own run is alive";
}

TEST_P(JobClaimRepoTest, AClaimNotWantedChangesNothing) {
  if (Skipped()) return;
  JobClaimRepo repo(db());
  auto none = repo.Claim(Ask("a", 1000), [](const std::optional<JobRun>&) { return false; });
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->has_value());
  EXPECT_TRUE(JobRunRepo(db()).List(std::nullopt, std::nullopt, 10)->empty()) << "no run recorded";
  EXPECT_TRUE(repo.Claim(Ask("b", 1000), Always)->has_value()) << "and the claim stayed free";
}

// A claimant that finds the row locked by another's claim in progress does
// not wait for it (SKIP LOCKED): the job is the other's.
TEST_P(JobClaimRepoTest, AClaimantDoesNotWaitForAnotherMidClaim) {
  if (Skipped()) return;
  if (!OnPostgres()) GTEST_SKIP() << "SQLite's one writer makes claimants take turns";
  JobClaimRepo repo(db());
  auto first = repo.Claim(Ask("a", 1000), Always);
  ASSERT_TRUE(first.ok() && first->has_value());
  FinishAndRelease(db(), "a", **first, 1100);
  auto other = Connect();
  ASSERT_TRUE(other);
  ASSERT_TRUE(other->Exec("BEGIN; SELECT 1 FROM job_claims WHERE job = 'nightly' FOR UPDATE").ok());
  const auto start = std::chrono::steady_clock::now();
  auto skipped = repo.Claim(Ask("b", 5000), Always);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(other->Exec("ROLLBACK").ok());
  ASSERT_TRUE(skipped.ok()) << skipped.status().ToString();
  EXPECT_FALSE(skipped->has_value()) << "the row is the other's while it is locked";
  EXPECT_LT(waited, std::chrono::seconds(2)) << "and the claimant did not wait for it";
  EXPECT_TRUE(repo.Claim(Ask("b", 5000), Always)->has_value()) << "free again once the other let go";
}

// N gateways, each with its own connection, race for the same job in each
// of 50 periods: each period's run happens exactly once.
TEST_P(JobClaimRepoTest, GatewaysRacingForAJobRunItOncePerPeriod) {
  if (Skipped()) return;
  if (!OnPostgres()) GTEST_SKIP() << "the race is PostgreSQL's (FOR UPDATE SKIP LOCKED)";
  constexpr int kGateways = 4;
  constexpr int kPeriods = 50;
  std::vector<std::unique_ptr<Database>> connections;
  for (int i = 0; i < kGateways; ++i) {
    connections.push_back(Connect());
    ASSERT_TRUE(connections.back());
  }
  std::vector<std::atomic<int>> wins(kPeriods);
  std::atomic<int> errors{0};
  std::barrier start_together(kGateways);
  std::vector<std::thread> gateways;
  for (int g = 0; g < kGateways; ++g) {
    gateways.emplace_back([&, g] {
      Database& db = *connections[static_cast<size_t>(g)];
      const std::string holder = "gateway" + std::to_string(g);
      for (int p = 0; p < kPeriods; ++p) {
        start_together.arrive_and_wait();
        const UnixMs now = (p + 1) * 1000;
        auto claimed = JobClaimRepo(db).Claim(Ask(holder, now), OncePerPeriod(now));
        if (!claimed.ok()) {
          ++errors;
          continue;
        }
        if (!*claimed) continue;
        ++wins[static_cast<size_t>(p)];
        if (!JobRunRepo(db).Finish(**claimed, JobOutcome::kOk, "", 1, {}, now + 1).ok()) ++errors;
        if (!JobClaimRepo(db).Release("nightly", holder, **claimed).ok()) ++errors;
      }
    });
  }
  for (std::thread& t : gateways) t.join();
  EXPECT_EQ(errors.load(), 0);
  for (int p = 0; p < kPeriods; ++p) EXPECT_EQ(wins[static_cast<size_t>(p)].load(), 1) << "period " << p;
  EXPECT_EQ(JobRunRepo(db()).List("nightly", std::nullopt, 1000)->size(), static_cast<size_t>(kPeriods));
}

CILIA_ON_EACH_BACKEND(JobClaimRepoTest);

}  // namespace
}  // namespace cilia::store
