#include "memory/upkeep/jobs.h"

#include <gmock/gmock.h>
#include <fmt/format.h>  // defines formatter<string_view>::format, which the enums' formatter calls
#include <gtest/gtest.h>

#include <algorithm>

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
    Config config = model_.MakeConfig();
    config.server.data_dir = dir_.path();
    config.server.time_zone = "Asia/Shanghai";
    registry_ = std::move(*Registry::Open(config, clock_));
  }
  std::string Answer(const json& r) {
    if (fail_) return "HTTP 400";
    if (testing::ScriptedModel::Instructions(r).find("day's log") != std::string::npos) {
      return R"({"entries": [{"text": "hello happened", "messages": [1]}]})";
    }
    return R"({"digest": "d", "items": []})";
  }
  Namespace& ns() { return **registry_->Get("default"); }

  bool fail_ = false;
  testing::TempDir dir_;
  testing::ScriptedModel model_;
  FakeClock clock_;
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

TEST_F(SchedulerTest, StartMarksRunsAnEarlierProcessLeftRunning) {
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

}  // namespace
}  // namespace cilia::memory
