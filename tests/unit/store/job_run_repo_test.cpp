#include "store/job_run_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using JobRunRepoTest = testing::BackendTest;

TEST_P(JobRunRepoTest, ARunIsStartedFinishedAndListedNewestFirst) {
  JobRunRepo repo(db());
  auto a = repo.Start("nightly", "default", "schedule", 100);
  auto b = repo.Start("extract", "default", "manual", 200);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(repo.Finish(*a, JobOutcome::kFailed, "model down", 3, {{"days", 1}}, 150).ok());
  auto all = repo.List(std::nullopt, std::nullopt, 10);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].job, "extract");
  EXPECT_EQ((*all)[0].outcome, JobOutcome::kRunning);
  EXPECT_FALSE((*all)[0].ended_at.has_value());
  const JobRun& nightly = (*all)[1];
  EXPECT_EQ(nightly.outcome, JobOutcome::kFailed);
  EXPECT_EQ(nightly.error, "model down");
  EXPECT_EQ(nightly.items, 3);
  EXPECT_EQ(nightly.detail["days"], 1);
  EXPECT_EQ(nightly.ended_at, 150);
  EXPECT_EQ(repo.List("nightly", std::nullopt, 10)->size(), 1u);
  EXPECT_EQ(repo.List(std::nullopt, *b, 10)->front().id, *a) << "a page continues below before_id";
  EXPECT_EQ((*repo.Latest("extract"))->id, *b);
  EXPECT_FALSE(repo.Latest("reindex")->has_value());
  EXPECT_EQ(repo.Finish(999, JobOutcome::kOk, "", 0, {}, 1).code(), Code::kNotFound);
}

TEST_P(JobRunRepoTest, InterruptedRunsFailAndRetentionKeepsRunningOnes) {
  JobRunRepo repo(db());
  ASSERT_TRUE(repo.Start("nightly", "default", "schedule", 100).ok());
  auto done = repo.Start("extract", "default", "schedule", 100);
  ASSERT_TRUE(repo.Finish(*done, JobOutcome::kOk, "", 0, {}, 101).ok());
  EXPECT_EQ(*repo.DeleteBefore(1000), 1) << "the running one stays";
  EXPECT_EQ(*repo.MarkInterrupted(500, "this-process"), 1);
  auto left = repo.List(std::nullopt, std::nullopt, 10);
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ((*left)[0].outcome, JobOutcome::kFailed);
  EXPECT_THAT((*left)[0].error, ::testing::HasSubstr("interrupted"));
}

TEST_P(JobRunRepoTest, ARunInProgressRecordsWhatItDidAndItsTokensCountToTheDayItStarted) {
  JobRunRepo repo(db());
  auto early = repo.Start("extract", "default", "schedule", 50);
  auto running = repo.Start("extract", "default", "schedule", 100);
  auto nightly = repo.Start("nightly", "default", "schedule", 120);
  ASSERT_TRUE(repo.Finish(*early, JobOutcome::kOk, "", 1, {{"tokens_in", 9000}, {"tokens_out", 900}}, 60).ok());
  ASSERT_TRUE(repo.Checkpoint(*running, 2, {{"tokens_in", 300}, {"tokens_out", 20}}).ok());
  ASSERT_TRUE(repo.Finish(*nightly, JobOutcome::kPartial, "1 item(s) failed", 0, {{"tokens_in", 77}}, 130).ok());
  auto latest = repo.Latest("extract");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->outcome, JobOutcome::kRunning) << "a checkpoint does not end the run";
  EXPECT_EQ((*latest)->items, 2);
  EXPECT_EQ((*latest)->detail["tokens_in"], 300);
  EXPECT_EQ(*repo.TokensSince("extract", 100), 320) << "the run in progress counts; the earlier one not";
  EXPECT_EQ(*repo.TokensSince("extract", 0), 10220);
  EXPECT_EQ(*repo.TokensSince("nightly", 0), 77);
  EXPECT_EQ(*repo.TokensSince("reindex", 0), 0);
  EXPECT_EQ((*repo.Latest("nightly"))->outcome, JobOutcome::kPartial);
  ASSERT_TRUE(repo.Checkpoint(*nightly, 5, {{"tokens_in", 1}}).ok());
  EXPECT_EQ((*repo.Latest("nightly"))->items, 0) << "a finished run is not written again";
}

CILIA_ON_EACH_BACKEND(JobRunRepoTest);

}  // namespace
}  // namespace cilia::store
