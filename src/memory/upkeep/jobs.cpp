#include "memory/upkeep/jobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "core/log.h"
#include "core/metrics_sink.h"
#include "core/process_identity.h"
#include "memory/archive/archive.h"
#include "memory/upkeep/digests.h"
#include "memory/excerpts/extraction.h"
#include "memory/upkeep/retention.h"
#include "store/job_claim_repo.h"
#include "store/message_repo.h"

namespace cilia::memory {

namespace {

int64_t ExtractedItems(const ExtractionOutcome& o) {
  return o.items_added + o.items_seen + o.items_superseded + o.items_candidates;
}

// A run whose items partly failed did its work, but not all of it: partial,
// never ok, so that the owner (GET /v1/jobs, doctor, the metrics) sees it.
void FailedItems(const std::vector<std::string>& errors, JobResult& r) {
  if (errors.empty()) return;
  r.outcome = store::JobOutcome::kPartial;
  r.error = fmt::format("{} item(s) failed: {}", errors.size(), errors.front());
}

Result<JobResult> Extract(Namespace& ns, const Config& config, const Clock& clock, JobContext& context) {
  ExtractionRunOptions options;
  options.backfill = context.options.backfill;
  options.progress = &context.progress;
  CILIA_ASSIGN_OR_RETURN(options.spent_today, ExtractionTokensToday(ns, clock.Now()));
  options.checkpoint = [&context](const ExtractionOutcome& o) { context.checkpoint(ExtractedItems(o), o.ToJson()); };
  CILIA_ASSIGN_OR_RETURN(ExtractionOutcome o, RunExtraction(ns, config, clock, options));
  JobResult r;
  r.items = ExtractedItems(o);
  r.detail = o.ToJson();
  if (!o.upstream_error.empty()) {
    r.outcome = store::JobOutcome::kFailed;
    r.error = "the model could not be reached: " + o.upstream_error;
  } else {
    FailedItems(o.errors, r);
  }
  return r;
}

Result<JobResult> Nightly(Namespace& ns, const Config& config, const Clock& clock, JobContext&) {
  CILIA_ASSIGN_OR_RETURN(NightlyOutcome o, RunNightly(ns, config, clock));
  JobResult r;
  r.items = o.Items();
  r.detail = o.ToJson();
  if (!o.upstream_error.empty()) {
    r.outcome = store::JobOutcome::kFailed;
    r.error = "the model could not be reached: " + o.upstream_error;
  } else {
    FailedItems(o.errors, r);
  }
  return r;
}

Result<JobResult> Retention(Namespace& ns, const Config& config, const Clock& clock, JobContext&) {
  CILIA_ASSIGN_OR_RETURN(RetentionOutcome o, RunRetention(ns, config.jobs, clock.Now()));
  return JobResult{store::JobOutcome::kOk, "", o.Total(), o.ToJson()};
}

Result<JobResult> Reindex(Namespace& ns, const Config&, const Clock&, JobContext&) {
  CILIA_RETURN_IF_ERROR(Archive(ns).Reindex());
  // The excerpts' indexes are derived too; the excerpts themselves are curated and stay.
  CILIA_RETURN_IF_ERROR(ns.excerpts().Rebuild(ns.store(), ns.embedder(), ns.options().hnsw_threshold));
  const auto windows = static_cast<int64_t>(ns.WindowCount());
  return JobResult{store::JobOutcome::kOk, "", windows, {{"windows", windows}}};
}

// A run in progress, shared by the run and those who look at it.
struct RunInProgress {
  std::string job;
  int64_t run_id = 0;  // 0 until the run is recorded
  UnixMs started_at = 0;
  WorkProgress progress;
};

// One run of a job per namespace at a time, whoever starts it; and what
// each is doing, for GET /v1/jobs.
class RunningJobs {
 public:
  // nullptr when the job runs in the namespace (its dir) already.
  std::shared_ptr<RunInProgress> TryBegin(const std::string& dir, const std::string& job) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& slot = running_[{dir, job}];
    if (slot) return nullptr;
    slot = std::make_shared<RunInProgress>();
    slot->job = job;
    return slot;
  }
  void Recorded(const std::shared_ptr<RunInProgress>& run, int64_t id, UnixMs started_at) {
    std::lock_guard<std::mutex> lock(mu_);
    run->run_id = id;
    run->started_at = started_at;
  }
  void End(const std::string& dir, const std::string& job) {
    std::lock_guard<std::mutex> lock(mu_);
    running_.erase({dir, job});
  }
  std::vector<RunningJob> In(const std::string& dir) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<RunningJob> out;
    for (auto it = running_.lower_bound({dir, ""}); it != running_.end() && it->first.first == dir; ++it) {
      if (it->second->run_id == 0) continue;  // not recorded yet
      out.push_back({it->second->run_id, it->second->job, it->second->started_at, it->second->progress.Read()});
    }
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<RunInProgress>> running_;  // (dir, job)
};

RunningJobs& Running() {
  static auto* const running = new RunningJobs;
  return *running;
}

// Extends a run's claim every third of its life, on an executor's worker,
// until destroyed; so a long run keeps its claim, and a process that dies
// stops extending it.
class ClaimKeeper {
 public:
  ClaimKeeper(Namespace& ns, const std::string& job, int64_t run_id, const Clock& clock, int64_t ttl_ms)
      : ns_(ns), job_(job), run_id_(run_id), clock_(clock), ttl_ms_(ttl_ms) {
    Executor* executor = ns.executor();
    if (!executor) {  // a run outside `cilia serve` (the CLI's): a worker of its own
      own_ = std::make_unique<Executor>(1, 0);
      executor = own_.get();
    }
    auto started = executor->TryBeside(std::function<void()>([this] { Loop(); }));
    if (started) loop_.emplace(std::move(*started));
    else LogWarn("job {}: no worker free to extend its claim; a long run may lose it", job_);
  }
  ~ClaimKeeper() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    loop_.reset();  // waits for the loop
  }
  ClaimKeeper(const ClaimKeeper&) = delete;
  ClaimKeeper& operator=(const ClaimKeeper&) = delete;

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(1, ttl_ms_ / 3)),
                           [this] { return stopping_; })) {
      lock.unlock();
      auto kept = ns_.store().Write([&](store::Database& db) {
        return store::JobClaimRepo(db).Extend(job_, ProcessIdentity(), run_id_, clock_.Now() + ttl_ms_);
      });
      lock.lock();
      if (!kept.ok()) {
        LogWarn("job {} in namespace {}: extending its claim: {}", job_, ns_.name(), kept.status().ToString());
      } else if (!*kept) {
        LogWarn("job {} in namespace {}: its claim expired and another gateway took it; run {} goes on and may "
                "overlap that gateway's",
                job_, ns_.name(), run_id_);
        return;
      }
    }
  }

  Namespace& ns_;
  const std::string& job_;
  const int64_t run_id_;
  const Clock& clock_;
  const int64_t ttl_ms_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::unique_ptr<Executor> own_;  // declared before loop_, which must end first
  std::optional<Executor::Joined<std::function<void()>>> loop_;
};

// RunJob's body: nullopt when the job runs already (here or under another's
// live claim), or, with `only_if_due`, is no longer due once claimed.
Result<std::optional<store::JobRun>> RunClaimed(const JobSpec& job, Namespace& ns, const Config& config,
                                                const Clock& clock, std::string_view started_by,
                                                const JobRunOptions& options, bool only_if_due) {
  if (options.backfill && !job.takes_backfill) {
    return Status::InvalidArgument(fmt::format("backfill: only the extract job takes it, not {}", job.name));
  }
  const std::string& dir = ns.options().dir;
  std::shared_ptr<RunInProgress> running = Running().TryBegin(dir, job.name);
  if (!running) return std::optional<store::JobRun>();
  struct EndOnExit {
    const std::string& dir;
    const std::string& job;
    ~EndOnExit() { Running().End(dir, job); }
  } end_on_exit{dir, job.name};
  const UnixMs started_at = clock.Now();
  const store::JobClaimRequest request{job.name, ns.name(), started_by, ProcessIdentity(), started_at,
                                       options.claim_ttl_ms};
  const auto wanted = [&](const std::optional<store::JobRun>& latest) {
    return !only_if_due || IsDue(job.schedule, started_at, ns.tz(), latest);
  };
  CILIA_ASSIGN_OR_RETURN(const std::optional<int64_t> claimed, ns.store().Write([&](store::Database& db) {
    return store::JobClaimRepo(db).Claim(request, wanted);
  }));
  if (!claimed) return std::optional<store::JobRun>();
  const int64_t id = *claimed;
  // After the run is finished (or could not be), so that the next claimant
  // sees how it ended; a run left "running" here is marked interrupted by
  // the next check, as no claim names it then.
  struct ReleaseOnExit {
    Namespace& ns;
    const std::string& job;
    int64_t id;
    ~ReleaseOnExit() {
      Status released = ns.store().Write([&](store::Database& db) {
        return store::JobClaimRepo(db).Release(job, ProcessIdentity(), id);
      });
      if (!released.ok()) LogWarn("job {}: letting go of its claim: {}", job, released.ToString());
    }
  } release_on_exit{ns, job.name, id};
  Running().Recorded(running, id, started_at);
  const ClaimKeeper keeper(ns, job.name, id, clock, options.claim_ttl_ms);
  JobContext context{id, options, running->progress, [&ns, &job, id](int64_t items, const nlohmann::json& detail) {
                       Status written = ns.store().Write([&](store::Database& db) {
                         return store::JobRunRepo(db).Checkpoint(id, items, detail);
                       });
                       if (!written.ok()) LogWarn("job {}: recording its progress: {}", job.name, written.ToString());
                     }};
  Result<JobResult> result = job.run(ns, config, clock, context);
  JobResult r = result.ok() ? std::move(*result)
                            : JobResult{store::JobOutcome::kFailed, result.status().ToString(), 0, {}};
  if (r.outcome == store::JobOutcome::kFailed) {
    LogWarn("job {} in namespace {} failed: {}", job.name, ns.name(), r.error);
  }
  ReportJobRun(job.name, store::Name(r.outcome));
  CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) {
    return store::JobRunRepo(db).Finish(id, r.outcome, r.error, r.items, r.detail, clock.Now());
  }));
  return ns.store().Read([&](store::Database& db) -> Result<std::optional<store::JobRun>> {
    CILIA_ASSIGN_OR_RETURN(auto runs, store::JobRunRepo(db).List(job.name, id + 1, 1));
    if (runs.empty() || runs.front().id != id) return Status::Internal(fmt::format("job run {} vanished", id));
    return std::optional<store::JobRun>(std::move(runs.front()));
  });
}

Schedule Every(int64_t ms, bool enabled) {
  return enabled ? Schedule{Schedule::Kind::kEvery, ms, 0} : Schedule{};
}

// The latest instant at or before `now` that is `minute_of_day` local time.
UnixMs LatestSlot(UnixMs now, const TimeZone& tz, int minute_of_day) {
  const CivilDate today = tz.LocalDate(now);
  const UnixMs slot = tz.StartOfDay(today) + minute_of_day * kMsPerMinute;
  return slot <= now ? slot : tz.StartOfDay(AddDays(today, -1)) + minute_of_day * kMsPerMinute;
}

}  // namespace

std::vector<JobSpec> StandardJobs(const Config& config) {
  const JobsConfig& j = config.jobs;
  Schedule nightly;
  if (j.nightly_enabled) {
    // Validated with the config; a bad value there never gets this far.
    auto at = ParseTimeOfDay(j.nightly_at);
    nightly = Schedule{Schedule::Kind::kDailyAt, 0, at.ok() ? *at : 4 * 60 + 10};
  }
  return {
      {"extract", Every(config.extraction.interval_minutes * kMsPerMinute, j.extract_enabled), Extract, true, true},
      {"nightly", nightly, Nightly},
      {"retention", Every(j.retention_interval_hours * 60 * kMsPerMinute, j.retention_enabled), Retention},
      {"reindex", Schedule{}, Reindex},
  };
}

Result<JobSpec> FindJob(const Config& config, std::string_view name) {
  std::string names;
  for (JobSpec& job : StandardJobs(config)) {
    if (job.name == name) return std::move(job);
    names += (names.empty() ? "" : ", ") + job.name;
  }
  return Status::NotFound(fmt::format("no job \"{}\"; jobs: {}", name, names));
}

Result<store::JobRun> RunJob(const JobSpec& job, Namespace& ns, const Config& config, const Clock& clock,
                             std::string_view started_by, const JobRunOptions& options) {
  CILIA_ASSIGN_OR_RETURN(std::optional<store::JobRun> run,
                         RunClaimed(job, ns, config, clock, started_by, options, /*only_if_due=*/false));
  if (!run) return Status::Busy(fmt::format("job {} is running in namespace {} already", job.name, ns.name()));
  return std::move(*run);
}

Result<std::optional<store::JobRun>> RunJobIfDue(const JobSpec& job, Namespace& ns, const Config& config,
                                                 const Clock& clock, const JobRunOptions& options) {
  return RunClaimed(job, ns, config, clock, "schedule", options, /*only_if_due=*/true);
}

std::vector<RunningJob> RunningJobsIn(const Namespace& ns) { return Running().In(ns.options().dir); }

Result<int64_t> ExtractionTokensToday(Namespace& ns, UnixMs now) {
  const UnixMs day_start = ns.tz().StartOfDay(ns.tz().LocalDate(now));
  return ns.store().Read([&](store::Database& db) { return store::JobRunRepo(db).TokensSince("extract", day_start); });
}

bool IsDue(const Schedule& schedule, UnixMs now, const TimeZone& tz, const std::optional<store::JobRun>& last) {
  // A partial run is tried again like a failed one: its failed items may go through now.
  const bool retry = last &&
                     (last->outcome == store::JobOutcome::kFailed || last->outcome == store::JobOutcome::kPartial) &&
                     last->started_at + kJobRetryMs <= now;
  switch (schedule.kind) {
    case Schedule::Kind::kManual: return false;
    case Schedule::Kind::kEvery: return !last || last->started_at + schedule.every_ms <= now || retry;
    case Schedule::Kind::kDailyAt:
      return !last || last->started_at < LatestSlot(now, tz, schedule.minute_of_day) || retry;
  }
  return false;
}

Scheduler::Scheduler(Registry& registry, const Clock& clock)
    : registry_(registry), clock_(clock), jobs_(StandardJobs(registry.config())) {}

Scheduler::~Scheduler() { Stop(); }

Status Scheduler::Start(Executor& executor) {
  if (!registry_.config().jobs.enabled) {
    LogInfo("background jobs are off (jobs.enabled = false)");
    return Status::Ok();
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (loop_) return Status::Ok();
  stopping_ = false;
  auto started = executor.TryBeside(std::function<void()>([this] { Loop(); }));
  if (!started) return Status::Busy("no worker free for the job scheduler");
  loop_.emplace(std::move(*started));
  return Status::Ok();
}

void Scheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (loop_) {
    loop_->get();
    loop_.reset();
  }
}

void Scheduler::Loop() {
  while (true) {
    RunDue();
    std::unique_lock<std::mutex> lock(mu_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(kSchedulerTickMs), [this] { return stopping_; })) return;
  }
}

std::vector<store::JobRun> Scheduler::RunDue() {
  std::vector<store::JobRun> runs;
  const std::vector<std::string> loaded_names = registry_.LoadedNames();
  const std::set<std::string> loaded(loaded_names.begin(), loaded_names.end());
  for (const std::string& name : registry_.Names()) {
    // Through the store alone: a namespace that is not loaded is loaded
    // only when a job is due in it (and, for the extract job, has new messages).
    std::vector<const JobSpec*> due;
    Status looked = registry_.WithStore(name, [&](store::NamespaceStore& store) -> Status {
      return store.Write([&](store::Database& db) -> Status {
        CILIA_RETURN_IF_ERROR(store::JobRunRepo(db).MarkInterrupted(clock_.Now(), ProcessIdentity()).status());
        for (const JobSpec& job : jobs_) {
          CILIA_ASSIGN_OR_RETURN(auto last, store::JobRunRepo(db).Latest(job.name));
          if (!IsDue(job.schedule, clock_.Now(), registry_.tz(), last)) continue;
          if (job.reads_new_messages && last && !loaded.count(name)) {
            CILIA_ASSIGN_OR_RETURN(auto newest, store::MessageRepo(db).NewestStoredAt());
            if (!newest || *newest <= last->started_at) continue;
          }
          due.push_back(&job);
        }
        return Status::Ok();
      });
    });
    if (!looked.ok()) {
      LogWarn("jobs: namespace {}: {}", name, looked.ToString());
      continue;
    }
    if (due.empty()) continue;
    auto ns = registry_.GetForUpkeep(name);
    if (!ns.ok()) {
      LogWarn("jobs: namespace {}: {}", name, ns.status().ToString());
      continue;
    }
    for (const JobSpec* job : due) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return runs;
      }
      // Due as the look above saw it; RunJobIfDue asks again under the claim.
      auto run = RunJobIfDue(*job, **ns, registry_.config(), clock_);
      if (!run.ok()) LogWarn("jobs: {} in {}: {}", job->name, name, run.status().ToString());
      else if (*run) runs.push_back(std::move(**run));
    }
  }
  return runs;
}

Result<JobHistory> ListJobRuns(Namespace& ns, std::optional<std::string> job, std::optional<int64_t> before_id,
                               int limit, int failed_limit) {
  return ns.store().Read([&](store::Database& db) -> Result<JobHistory> {
    JobHistory history;
    CILIA_ASSIGN_OR_RETURN(history.runs, store::JobRunRepo(db).List(std::move(job), before_id, limit));
    CILIA_ASSIGN_OR_RETURN(history.failed_items, store::DigestRepo(db).FailedItems(failed_limit));
    return history;
  });
}

}  // namespace cilia::memory
