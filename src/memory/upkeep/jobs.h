// The background jobs (DESIGN.md §7, docs/upkeep.md) and the scheduler that
// runs them inside `cilia serve`. A job is a registered function over one
// namespace; every run, scheduled or by hand, is recorded in job_runs with
// its start, end, outcome, error, items and the job's own detail.
//
// Jobs: "extract" (L1 excerpts, every extraction.interval_minutes),
// "nightly" (logs, digest, rollups; daily at jobs.nightly_at in the owner's
// zone, caught up at the next check when the process was down at that time),
// "retention" (every jobs.retention_interval_hours), and "reindex" (by hand
// only: rebuilds derived data from the archive).
//
// Several gateways may share one store (docs/scaling.md): a run starts only
// under its job's claim (store/job_claim_repo.h), which this process extends
// while the run lives, so that the gateways share the work and none runs a
// batch another has taken or just finished.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/executor.h"
#include "core/status.h"
#include "core/work_progress.h"
#include "memory/namespace.h"
#include "memory/registry.h"
#include "store/digest_repo.h"
#include "store/job_run_repo.h"

namespace cilia::memory {

// What a job reports of one run. A run whose function returns an error is
// recorded as failed with that error.
struct JobResult {
  store::JobOutcome outcome = store::JobOutcome::kOk;  // ok, partial, skipped or failed
  std::string error;                                   // why it failed, or what failed in a partial run
  int64_t items = 0;
  nlohmann::json detail = nlohmann::json::object();
};

// How long a run's claim lasts unless extended; the process extends it every
// third of that while the run lives. What it bounds: how long the job of a
// gateway killed in its run waits before another takes it (and marks the
// run interrupted). It must outlast one write of the store and the clock
// skew between gateways, which a few minutes does; no setting, since
// nothing else depends on it.
inline constexpr int64_t kJobClaimTtlMs = 5 * kMsPerMinute;

// How a run was asked for.
struct JobRunOptions {
  // extract only: take imported history too (docs/upkeep.md "Imported
  // history"); InvalidArgument for the other jobs.
  bool backfill = false;
  // The life of the run's claim (tests shorten it).
  int64_t claim_ttl_ms = kJobClaimTtlMs;
};

// What a job's function is given besides the namespace, config and clock.
struct JobContext {
  int64_t run_id = 0;
  JobRunOptions options;
  // How far the run is; GET /v1/jobs shows it while the run lasts.
  WorkProgress& progress;
  // Writes the run's items and detail so far into its job_runs row (a
  // failure to is logged, not the run's): what a process that dies in the
  // run leaves recorded, such as the tokens the daily budget counts.
  std::function<void(int64_t items, const nlohmann::json& detail)> checkpoint;
};

using JobFunction = std::function<Result<JobResult>(Namespace&, const Config&, const Clock&, JobContext&)>;

struct Schedule {
  enum class Kind { kManual, kEvery, kDailyAt };
  Kind kind = Kind::kManual;
  int64_t every_ms = 0;   // kEvery
  int minute_of_day = 0;  // kDailyAt, local time
};

struct JobSpec {
  std::string name;
  Schedule schedule;
  JobFunction run;
  bool takes_backfill = false;  // JobRunOptions::backfill means something to it
  // Works on messages stored since its last run began: in a namespace that
  // is not loaded and has none, the scheduler does not load it for this job.
  bool reads_new_messages = false;
};

// After a failed scheduled run a job is tried again this much later (or at
// its next slot, whichever comes first).
inline constexpr int64_t kJobRetryMs = 60 * kMsPerMinute;

// extract, nightly, retention, reindex, scheduled as `config` says (a job
// whose switch is off is kManual).
std::vector<JobSpec> StandardJobs(const Config& config);
// The job of that name among StandardJobs, or NotFound naming the jobs.
Result<JobSpec> FindJob(const Config& config, std::string_view name);

// Runs the job on the namespace now and records the run; returns the record.
// `started_by` is "schedule" or "manual". Busy when the same job is running
// in that namespace already, in this process or under another's live claim
// (one run at a time). A failure of the job itself is a recorded run with
// outcome failed, not an error; an error is returned only when the run could
// not be claimed or recorded (or `options` do not fit the job).
Result<store::JobRun> RunJob(const JobSpec& job, Namespace& ns, const Config& config, const Clock& clock,
                             std::string_view started_by, const JobRunOptions& options = {});
// What the scheduler runs: RunJob started by "schedule", but only when the
// job is still due once claimed (IsDue on its newest run, read under the
// claim), so that a gateway whose check saw the job due does not run again
// what another has just finished. nullopt, quietly, when it is not due or
// runs already.
Result<std::optional<store::JobRun>> RunJobIfDue(const JobSpec& job, Namespace& ns, const Config& config,
                                                 const Clock& clock, const JobRunOptions& options = {});

// A run in progress, as GET /v1/jobs shows it.
struct RunningJob {
  int64_t run_id = 0;
  std::string job;
  UnixMs started_at = 0;
  WorkProgress::Snapshot progress;
};
// The runs in progress in the namespace now, by job name.
std::vector<RunningJob> RunningJobsIn(const Namespace& ns);

// The model tokens the extract job spent on the local day of `now` (in the
// namespace's zone), from the runs recorded in job_runs: what
// extraction.daily_token_budget counts. A run counts to the day it started.
Result<int64_t> ExtractionTokensToday(Namespace& ns, UnixMs now);

// Whether a job of `schedule` whose newest run is `last` is due at `now`.
bool IsDue(const Schedule& schedule, UnixMs now, const TimeZone& tz, const std::optional<store::JobRun>& last);

// Runs due jobs of every namespace on a background thread, one job at a
// time, checking every kSchedulerTickMs.
class Scheduler {
 public:
  static constexpr int64_t kSchedulerTickMs = 30'000;

  Scheduler(Registry& registry, const Clock& clock = Clock::System());
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Starts the loop on one of `executor`'s workers, which it holds until
  // Stop(). Does nothing when jobs.enabled is false.
  Status Start(Executor& executor);
  // Stops after the job in progress (if any) ends; waits for it.
  void Stop();

  // One check, in every namespace on disk: marks the runs no live claim
  // names (a process ended in them: this one's predecessor or another
  // gateway) interrupted, then runs every job that is due and that no other
  // gateway holds. The thread calls this; tests call it with a fake clock.
  // Returns the runs.
  std::vector<store::JobRun> RunDue();

 private:
  void Loop();

  Registry& registry_;
  const Clock& clock_;
  std::vector<JobSpec> jobs_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::optional<Executor::Joined<std::function<void()>>> loop_;
};

// The runs of `job` (all jobs when nullopt), newest first, before run
// `before_id`; and the nightly items that keep failing, at most `limit`.
struct JobHistory {
  std::vector<store::JobRun> runs;
  std::vector<store::NightlyItem> failed_items;
};
Result<JobHistory> ListJobRuns(Namespace& ns, std::optional<std::string> job, std::optional<int64_t> before_id,
                               int limit, int failed_limit);

}  // namespace cilia::memory
