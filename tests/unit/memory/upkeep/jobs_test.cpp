#include "memory/upkeep/jobs.h"

#include <gmock/gmock.h>
#include <fmt/format.h>  // defines formatter<string_view>::format, which the enums' formatter calls
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "memory/excerpts/extraction.h"
#include "store/job_claim_repo.h"

#include "testing/scripted_model.h"
#include "testing/temp_dir.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const TimeZone kShanghai = *TimeZone::Load("Asia/Shanghai");

UnixMs At(const std::string& day, int hour, int minute = 0) {
  return kShanghai.StartOfDay(*ParseDate(day)) + (hour * 60 + minute) * kMsPerMinute;
}

store::JobRun RunAt(UnixMs at, store::JobOutcome outcome = store::JobOutcome::kOk) {
  store::JobRun run;
  run.started_at = at;
  run.outcome = outcome;
  return run;
}

TEST(IsDueTest, ADailyJobRunsOncePerSlotAndCatchesUpAfterDowntime) {
  const Schedule nightly{Schedule::Kind::kDailyAt, 0, 4 * 60 + 10};
  EXPECT_TRUE(IsDue(nightly, At("2026-05-29", 9), kShanghai, std::nullopt)) << "never ran: at once";
  EXPECT_FALSE(IsDue(nightly, At("2026-05-29", 4, 9), kShanghai, RunAt(At("2026-05-28", 4, 10))));
  EXPECT_TRUE(IsDue(nightly, At("2026-05-29", 4, 10), kShanghai, RunAt(At("2026-05-28", 4, 10))));
  EXPECT_TRUE(IsDue(nightly, At("2026-05-31", 13), kShanghai, RunAt(At("2026-05-28", 4, 10))))
      << "the process was down at 04:10: the next check runs it";
  EXPECT_FALSE(IsDue(nightly, At("2026-05-29", 23), kShanghai, RunAt(At("2026-05-29", 4, 10))));
}

TEST(IsDueTest, AFailedRunIsRetriedAfterAnHour) {
  const Schedule nightly{Schedule::Kind::kDailyAt, 0, 4 * 60 + 10};
  const auto failed = RunAt(At("2026-05-29", 4, 10), store::JobOutcome::kFailed);
  EXPECT_FALSE(IsDue(nightly, At("2026-05-29", 5, 9), kShanghai, failed));
  EXPECT_TRUE(IsDue(nightly, At("2026-05-29", 5, 10), kShanghai, failed));
}

TEST(IsDueTest, IntervalsAndManualJobs) {
  const Schedule every{Schedule::Kind::kEvery, 10 * kMsPerMinute, 0};
  EXPECT_TRUE(IsDue(every, 0, kShanghai, std::nullopt));
  EXPECT_FALSE(IsDue(every, 9 * kMsPerMinute, kShanghai, RunAt(0)));
  EXPECT_TRUE(IsDue(every, 10 * kMsPerMinute, kShanghai, RunAt(0)));
  EXPECT_FALSE(IsDue(Schedule{}, 0, kShanghai, std::nullopt)) << "manual jobs never run by themselves";
}

TEST(StandardJobsTest, SwitchesAndSettingsShapeTheSchedules) {
  Config config;
  config.extraction.interval_minutes = 15;
  config.jobs.nightly_at = "03:30";
  config.jobs.retention_enabled = false;
  auto jobs = StandardJobs(config);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].name, "extract");
  EXPECT_EQ(jobs[0].schedule.every_ms, 15 * kMsPerMinute);
  EXPECT_EQ(jobs[1].schedule.kind, Schedule::Kind::kDailyAt);
  EXPECT_EQ(jobs[1].schedule.minute_of_day, 210);
  EXPECT_EQ(jobs[2].schedule.kind, Schedule::Kind::kManual);
  EXPECT_EQ(jobs[3].name, "reindex");
  EXPECT_EQ(jobs[3].schedule.kind, Schedule::Kind::kManual);
  EXPECT_EQ(FindJob(config, "dream").status().code(), Code::kNotFound);
  EXPECT_THAT(FindJob(config, "dream").status().message(), HasSubstr("extract, nightly, retention, reindex"));
}

class SchedulerTest : public ::testing::Test {
 protected:
  SchedulerTest()
      : model_([this](const json& r) { return Answer(r); }), clock_(At("2026-05-29", 4, 30)) {
    Reopen();
  }
  // Opens the data dir (again), as a (re)start of the process would.
  void Reopen() {
    registry_.reset();
    Config config = model_.MakeConfig();
    config.server.data_dir = dir_.path();
    config.server.time_zone = "Asia/Shanghai";
    config.store.unload_idle_s = unload_idle_s_;
    registry_ = std::move(*Registry::Open(config, clock_));
  }
  // Runs on the fake model's thread, under its lock: a test that holds a call
  // there reads nothing of the model until it lets go.
  std::string Answer(const json& r) {
    if (fail_) return "HTTP 400";
    if (++calls_ == hold_at_) {
      while (hold_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (testing::ScriptedModel::Instructions(r).find("day's log") != std::string::npos) {
      in_log_ = true;
      while (hold_logs_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (testing::ScriptedModel::Input(r).find("broken") != std::string::npos) return "no log today";
      return R"({"entries": [{"text": "hello happened", "messages": [1]}]})";
    }
    return R"({"digest": "d", "items": []})";
  }
  Namespace& ns() { return **registry_->Get("default"); }
  // Five messages of a conversation, a minute apart from `at`.
  void Chat(const std::string& conversation, UnixMs at) {
    std::vector<testing::Said> said;
    for (int i = 0; i < 5; ++i) {
      said.push_back({fmt::format("{}-{}", conversation, i), i % 2 == 0 ? "user" : "assistant",
                      fmt::format("Message {} of {}: we planned the garden and the trip again.", i, conversation),
                      at + i * kMsPerMinute});
    }
    testing::Store(ns(), conversation, said);
  }

  // The jobs of `runs`, in the order they ran.
  static std::vector<std::string> Jobs(const std::vector<store::JobRun>& runs) {
    std::vector<std::string> names;
    for (const auto& run : runs) names.push_back(run.job);
    return names;
  }
  int64_t RunsOf(const std::string& job) {
    auto runs = ns().store().Read([&](store::Database& db) { return store::JobRunRepo(db).List(job, std::nullopt, 100); });
    return runs.ok() ? static_cast<int64_t>(runs->size()) : -1;
  }
  store::JobRun RunById(int64_t id) {
    auto runs = ns().store().Read([&](store::Database& db) { return store::JobRunRepo(db).List(std::nullopt, id + 1, 1); });
    return runs.ok() && !runs->empty() ? runs->front() : store::JobRun{};
  }
  // What a process killed in a run left behind: its claim, taken under
  // another holder, and the run it names (returned).
  std::optional<int64_t> ClaimElsewhere(const std::string& job) {
    auto claimed = ns().store().Write([&](store::Database& db) {
      return store::JobClaimRepo(db).Claim({job, "default", "schedule", "elsewhere:1:0", clock_.Now(), kJobClaimTtlMs},
                                           [](const std::optional<store::JobRun>&) { return true; });
    });
    EXPECT_TRUE(claimed.ok()) << claimed.status().ToString();
    return claimed.ok() ? *claimed : std::nullopt;
  }
  // The claim's holder and expiry, read from the table.
  std::pair<std::optional<std::string>, std::optional<int64_t>> Claim(const std::string& job) {
    auto row = ns().store().Read([&](store::Database& db) -> Result<std::pair<std::optional<std::string>, std::optional<int64_t>>> {
      CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare("SELECT holder, expires_at FROM job_claims WHERE job = ?"));
      s->Bind(1, job);
      CILIA_ASSIGN_OR_RETURN(auto one, s->One([](const store::Statement& r) {
        return std::make_pair(r.OptionalText(0), r.OptionalInt(1));
      }));
      return one.value_or(std::make_pair(std::optional<std::string>(), std::optional<int64_t>()));
    });
    EXPECT_TRUE(row.ok()) << row.status().ToString();
    return row.ok() ? *row : std::make_pair(std::optional<std::string>(), std::optional<int64_t>());
  }

  bool fail_ = false;
  std::atomic<bool> hold_logs_{false};  // a day's log call waits while set
  std::atomic<bool> in_log_{false};     // a day's log call has come
  std::atomic<int> calls_{0};
  int hold_at_ = 0;  // the call (1-based) that waits while hold_
  std::atomic<bool> hold_{false};
  testing::TempDir dir_;
  testing::ScriptedModel model_;
  FakeClock clock_;
  int unload_idle_s_ = 1800;  // [store] unload_idle_s of the next Reopen
  std::unique_ptr<Registry> registry_;
};

TEST_F(SchedulerTest, RunsDueJobsOnceAndRecordsEveryRun) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-28", 12)}});
  Scheduler scheduler(*registry_, clock_);
  auto first = scheduler.RunDue();
  std::vector<std::string> names;
  for (const auto& run : first) names.push_back(fmt::format("{}:{}", run.job, run.outcome));
  EXPECT_EQ(names, (std::vector<std::string>{"extract:ok", "nightly:ok", "retention:ok"}));
  EXPECT_EQ(first[1].items, 2);
  EXPECT_EQ(first[1].detail["days_logged"], json::array({"2026-05-28"}));
  EXPECT_EQ(first[1].started_by, "schedule");
  EXPECT_TRUE(first[1].ended_at.has_value());
  EXPECT_TRUE(scheduler.RunDue().empty()) << "nothing is due right after";
  clock_.Advance(10 * kMsPerMinute);
  auto later = scheduler.RunDue();
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].job, "extract");
}

TEST_F(SchedulerTest, AnUnloadedNamespaceIsLoadedOnlyWhenAJobIsDueInIt) {
  unload_idle_s_ = 60;
  Reopen();
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-28", 12)}});
  Scheduler scheduler(*registry_, clock_);
  ASSERT_EQ(scheduler.RunDue().size(), 3u);
  clock_.Advance(60'000);
  ASSERT_EQ(registry_->UnloadIdle(), std::vector<std::string>{"default"});
  for (const auto& run : scheduler.RunDue()) ADD_FAILURE() << run.job << " ran: " << run.error;
  EXPECT_TRUE(registry_->LoadedNames().empty()) << "nothing due: looked at through its store only";

  clock_.Advance(10 * kMsPerMinute);  // the extract job's period
  EXPECT_TRUE(scheduler.RunDue().empty());
  EXPECT_TRUE(registry_->LoadedNames().empty()) << "extract is due, but no message came since its last run";

  testing::Store(ns(), "chat", {{"b", "user", "again", At("2026-05-29", 4, 45)}});
  clock_.Advance(60'000);
  ASSERT_EQ(registry_->UnloadIdle(), std::vector<std::string>{"default"});
  auto due = scheduler.RunDue();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].job, "extract");
  EXPECT_EQ(registry_->LoadedNames(), std::vector<std::string>{"default"}) << "loaded to run it";
}

TEST_F(SchedulerTest, AFailedRunIsRecordedWithItsError) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-28", 12)}});
  fail_ = true;
  auto job = FindJob(registry_->config(), "nightly");
  auto run = RunJob(*job, ns(), registry_->config(), clock_, "manual");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->outcome, store::JobOutcome::kFailed);
  EXPECT_THAT(run->error, HasSubstr("could not be reached"));
  EXPECT_EQ(run->started_by, "manual");
  auto runs = ns().store().Read([](store::Database& db) { return store::JobRunRepo(db).List(std::nullopt, std::nullopt, 10); });
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].outcome, store::JobOutcome::kFailed);
}

TEST_F(SchedulerTest, AJobWithoutAModelFailsVisibly) {
  Config config;
  auto job = FindJob(config, "nightly");
  auto run = RunJob(*job, ns(), config, clock_, "manual");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->outcome, store::JobOutcome::kFailed);
  EXPECT_THAT(run->error, HasSubstr("models.extract"));
}

TEST_F(SchedulerTest, TheDailyBudgetCountsRecordedUsageAcrossRunsAndRestartsAndResumesOnTheNextLocalDay) {
  Chat("a", At("2026-05-28", 12));
  Chat("b", At("2026-05-28", 13));
  Config config = registry_->config();
  auto estimate = EstimateExtraction(ns(), config, std::nullopt);
  ASSERT_TRUE(estimate.ok());
  ASSERT_EQ(estimate->batches, 2);
  // One batch fits, the second not after it.
  config.extraction.daily_token_budget = static_cast<int>(estimate->prompt_tokens * 3 / 4);
  const JobSpec job = *FindJob(config, "extract");

  auto first = RunJob(job, ns(), config, clock_, "schedule");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->outcome, store::JobOutcome::kOk) << "stopping at the budget is no failure";
  EXPECT_EQ(first->detail["batches_ok"], 1);
  EXPECT_EQ(first->detail["stopped"], "daily_token_budget");
  EXPECT_EQ(first->detail["resumes"], "2026-05-30");
  const int64_t spent = first->detail["tokens_in"].get<int64_t>() + first->detail["tokens_out"].get<int64_t>();
  EXPECT_EQ(first->detail["budget"]["spent_today"], spent);
  EXPECT_EQ(*ExtractionTokensToday(ns(), clock_.Now()), spent);

  Reopen();  // the count is read from job_runs: a restart forgets nothing
  clock_.Advance(10 * kMsPerMinute);
  auto second = RunJob(job, ns(), config, clock_, "schedule");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->detail["model_calls"], 0);
  EXPECT_EQ(second->detail["stopped"], "daily_token_budget");
  EXPECT_EQ(second->detail["budget"]["spent_today"], spent);

  clock_.Set(At("2026-05-30", 0, 5));  // the next local day in the owner's zone
  EXPECT_EQ(*ExtractionTokensToday(ns(), clock_.Now()), 0);
  auto third = RunJob(job, ns(), config, clock_, "schedule");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->detail["batches_ok"], 1);
  EXPECT_EQ(third->detail["stopped"], nullptr);
}

TEST_F(SchedulerTest, ARunThatDiedInTheMiddleStillCountsTheTokensItRecorded) {
  ASSERT_TRUE(ns().store().Write([&](store::Database& db) -> Status {
    store::JobRunRepo runs(db);
    CILIA_ASSIGN_OR_RETURN(int64_t yesterday, runs.Start("extract", "default", "schedule", At("2026-05-28", 23)));
    CILIA_RETURN_IF_ERROR(runs.Checkpoint(yesterday, 0, {{"tokens_in", 5000}, {"tokens_out", 500}}));
    CILIA_ASSIGN_OR_RETURN(int64_t died, runs.Start("extract", "default", "schedule", At("2026-05-29", 1)));
    CILIA_RETURN_IF_ERROR(runs.Checkpoint(died, 0, {{"tokens_in", 1200}, {"tokens_out", 34}}));
    return runs.MarkInterrupted(At("2026-05-29", 2), "this-process").status();
  }).ok());
  EXPECT_EQ(*ExtractionTokensToday(ns(), clock_.Now()), 1234) << "today's run only, though it never finished";
}

TEST_F(SchedulerTest, ARunningExtractionShowsHowFarItIs) {
  Chat("a", At("2026-05-28", 12));
  Chat("b", At("2026-05-28", 13));
  hold_at_ = 2;  // the second batch waits
  hold_ = true;
  const JobSpec job = *FindJob(registry_->config(), "extract");
  Result<store::JobRun> run = Status::Internal("not run");
  std::thread runner([&] { run = RunJob(job, ns(), registry_->config(), clock_, "manual"); });
  std::vector<RunningJob> running;
  for (int i = 0; i < 5000; ++i) {
    running = RunningJobsIn(ns());
    if (!running.empty() && running[0].progress.done == 5) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const std::vector<RunningJob> seen = running;
  hold_ = false;
  runner.join();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].job, "extract");
  EXPECT_EQ(seen[0].started_at, clock_.Now());
  EXPECT_EQ(seen[0].progress.total, 10);
  EXPECT_EQ(seen[0].progress.done, 5) << "the first batch's messages";
  EXPECT_EQ(seen[0].progress.unit, "messages");
  EXPECT_GT(seen[0].progress.tokens, 0);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(seen[0].run_id, run->id);
  EXPECT_TRUE(RunningJobsIn(ns()).empty()) << "a finished run is no longer listed";
}

TEST_F(SchedulerTest, ANightlyRunInWhichADayFailedIsPartialNotOkAndIsTriedAgain) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-27", 12)}, {"b", "user", "broken", At("2026-05-28", 12)}});
  const JobSpec job = *FindJob(registry_->config(), "nightly");
  auto run = RunJob(job, ns(), registry_->config(), clock_, "schedule");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->outcome, store::JobOutcome::kPartial);
  EXPECT_THAT(run->error, HasSubstr("1 item(s) failed"));
  EXPECT_EQ(run->detail["days_logged"], json::array({"2026-05-27"}));
  EXPECT_EQ(fmt::format("{}", run->outcome), "partial");
  EXPECT_TRUE(IsDue(job.schedule, run->started_at + kJobRetryMs, kShanghai, *run)) << "tried again like a failed run";
  EXPECT_FALSE(IsDue(job.schedule, run->started_at + kJobRetryMs - 1, kShanghai, *run));
}

TEST_F(SchedulerTest, OnlyTheExtractJobTakesBackfill) {
  JobRunOptions backfill;
  backfill.backfill = true;
  const JobSpec nightly = *FindJob(registry_->config(), "nightly");
  auto refused = RunJob(nightly, ns(), registry_->config(), clock_, "manual", backfill);
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("only the extract job"));
  auto runs = ns().store().Read([](store::Database& db) { return store::JobRunRepo(db).List(std::nullopt, std::nullopt, 10); });
  EXPECT_TRUE(runs->empty()) << "nothing was run";
  const JobSpec extract = *FindJob(registry_->config(), "extract");
  auto run = RunJob(extract, ns(), registry_->config(), clock_, "manual", backfill);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->detail["backfill"], true);
}

TEST_F(SchedulerTest, TheFirstCheckAfterStartMarksRunsAnEarlierProcessLeftRunning) {
  auto left = ns().store().Write([&](store::Database& db) {
    return store::JobRunRepo(db).Start("nightly", "default", "schedule", 1);
  });
  ASSERT_TRUE(left.ok());
  Executor executor(1, 1);
  Scheduler scheduler(*registry_, clock_);
  ASSERT_TRUE(scheduler.Start(executor).ok());
  scheduler.Stop();
  // The scheduler's thread may have run jobs of its own by now: look at that run.
  auto runs = ns().store().Read([](store::Database& db) { return store::JobRunRepo(db).List("nightly", std::nullopt, 100); });
  ASSERT_TRUE(runs.ok());
  auto interrupted = std::find_if(runs->begin(), runs->end(), [&](const store::JobRun& r) { return r.id == *left; });
  ASSERT_NE(interrupted, runs->end());
  EXPECT_EQ(interrupted->outcome, store::JobOutcome::kFailed);
  EXPECT_THAT(interrupted->error, HasSubstr("interrupted"));
}

TEST_F(SchedulerTest, TwoSchedulersOverOneStoreRunEachDueJobOnce) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-28", 12)}});
  auto other = Registry::Open(registry_->config(), clock_);  // a second gateway over the same store
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  Scheduler a(*registry_, clock_), b(**other, clock_);
  hold_logs_ = true;
  std::vector<store::JobRun> ran_a;
  std::thread gateway_a([&] { ran_a = a.RunDue(); });
  for (int i = 0; i < 5000 && !in_log_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::vector<store::JobRun> ran_b = b.RunDue();  // while a's nightly run lives
  hold_logs_ = false;
  gateway_a.join();
  EXPECT_EQ(Jobs(ran_a), (std::vector<std::string>{"extract", "nightly"}));
  EXPECT_EQ(Jobs(ran_b), (std::vector<std::string>{"retention"})) << "b took what a had not reached yet";
  EXPECT_TRUE(a.RunDue().empty());
  EXPECT_TRUE(b.RunDue().empty());
  for (const char* job : {"extract", "nightly", "retention"}) EXPECT_EQ(RunsOf(job), 1) << job;
}

// In SQLite one process at a time holds the data dir, so a claim of another
// process's is a killed one's: its run is marked interrupted at the first
// check, not five minutes later (the claims of live gateways sharing a
// PostgreSQL store: store/job_claim_repo_test.cpp).
TEST_F(SchedulerTest, AJobAKilledProcessHeldIsFreeAtTheFirstCheck) {
  testing::Store(ns(), "chat", {{"a", "user", "hello", At("2026-05-28", 12)}});
  const std::optional<int64_t> killed = ClaimElsewhere("nightly");
  ASSERT_TRUE(killed);
  Scheduler scheduler(*registry_, clock_);
  EXPECT_EQ(Jobs(scheduler.RunDue()), (std::vector<std::string>{"extract", "retention"}))
      << "an interrupted run is tried again like a failed one";
  const store::JobRun interrupted = RunById(*killed);
  EXPECT_EQ(interrupted.outcome, store::JobOutcome::kFailed);
  EXPECT_THAT(interrupted.error, HasSubstr("interrupted"));
  EXPECT_EQ(interrupted.ended_at, clock_.Now()) << "though its claim had five minutes to go";
  clock_.Advance(kJobRetryMs);
  const auto later = Jobs(scheduler.RunDue());
  EXPECT_NE(std::find(later.begin(), later.end(), "nightly"), later.end()) << "the claim is taken again";
  EXPECT_EQ(RunsOf("nightly"), 2);
}

TEST_F(SchedulerTest, AJobSeenDueIsNotRunAgainOnceAnotherHasJustRunIt) {
  const JobSpec nightly = *FindJob(registry_->config(), "nightly");
  ASSERT_TRUE(IsDue(nightly.schedule, clock_.Now(), ns().tz(), std::nullopt)) << "what a second gateway's check saw";
  auto first = RunJobIfDue(nightly, ns(), registry_->config(), clock_);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->started_by, "schedule");
  auto second = RunJobIfDue(nightly, ns(), registry_->config(), clock_);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->has_value()) << "under the claim the job is no longer due";
  EXPECT_EQ(RunsOf("nightly"), 1);
  EXPECT_TRUE(RunJob(nightly, ns(), registry_->config(), clock_, "manual").ok()) << "by hand it runs regardless";
}

TEST_F(SchedulerTest, ALongRunKeepsItsClaimAndLetsGoOfItAtTheEnd) {
  Chat("a", At("2026-05-28", 12));
  Chat("b", At("2026-05-28", 13));
  hold_at_ = 2;  // the second batch waits
  hold_ = true;
  JobRunOptions options;
  options.claim_ttl_ms = 300;  // extended every 100 ms
  const JobSpec job = *FindJob(registry_->config(), "extract");
  Result<store::JobRun> run = Status::Internal("not run");
  std::thread runner([&] { run = RunJob(job, ns(), registry_->config(), clock_, "manual", options); });
  for (int i = 0; i < 5000 && RunningJobsIn(ns()).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const UnixMs first_expiry = *Claim("extract").second;
  clock_.Advance(1000);  // past the claim's first expiry
  for (int i = 0; i < 5000 && Claim("extract").second < clock_.Now(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const auto kept = Claim("extract");
  const auto again = RunJob(job, ns(), registry_->config(), clock_, "manual", options);
  const int64_t marked = *ns().store().Write([&](store::Database& db) {
    return store::JobRunRepo(db).MarkInterrupted(clock_.Now(), kept.first.value_or(""));
  });
  hold_ = false;
  runner.join();
  EXPECT_EQ(first_expiry, At("2026-05-29", 4, 30) + 300);
  EXPECT_GE(kept.second, clock_.Now()) << "extended while the run lives";
  EXPECT_THAT(*kept.first, HasSubstr(":")) << "host:pid:random";
  EXPECT_EQ(again.status().code(), Code::kBusy) << "so it is not run twice";
  EXPECT_EQ(marked, 0) << "nor marks its run interrupted";
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->outcome, store::JobOutcome::kOk);
  EXPECT_FALSE(Claim("extract").first.has_value()) << "let go of at the end";
}

}  // namespace
}  // namespace cilia::memory
