// Runs of the background jobs (extract, nightly, retention, reindex): when,
// who started them, how they ended, and what they did. Operational data:
// retention drops finished runs past their age.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"
#include "store/record_values.h"

namespace cilia::store {

struct JobRun {
  int64_t id = 0;
  std::string job;
  std::string name_space;
  std::string started_by;  // "schedule" or "manual"
  UnixMs started_at = 0;
  std::optional<UnixMs> ended_at;  // nullopt while running
  JobOutcome outcome = JobOutcome::kRunning;
  std::string error;               // "" unless failed
  int64_t items = 0;               // what the job counts as done (messages, days, rows…)
  nlohmann::json detail = nlohmann::json::object();
};

class JobRunRepo {
 public:
  explicit JobRunRepo(Database& db) : db_(db) {}

  // A new run, outcome "running"; returns its id.
  Result<int64_t> Start(std::string_view job, std::string_view name_space, std::string_view started_by, UnixMs now);
  // Ends run `id` with `outcome` (ok, partial, skipped, failed).
  Status Finish(int64_t id, JobOutcome outcome, std::string_view error, int64_t items,
                const nlohmann::json& detail, UnixMs now);
  // What a run in progress has done so far (its items and detail), so that a
  // process that dies in it leaves them recorded; the outcome stays running.
  Status Checkpoint(int64_t id, int64_t items, const nlohmann::json& detail);
  // The model tokens (detail.tokens_in + detail.tokens_out) of `job`'s runs
  // started at or after `since`, finished or not: what a daily budget has
  // spent. Survives restarts because every run records its usage.
  Result<int64_t> TokensSince(std::string_view job, UnixMs since);
  // Newest first; `job` keeps that job's runs; `before_id` continues a page.
  Result<std::vector<JobRun>> List(std::optional<std::string> job, std::optional<int64_t> before_id, int limit);
  // The newest run of `job`, or nullopt.
  Result<std::optional<JobRun>> Latest(std::string_view job);
  // Runs left "running" by a process that ended under them become failed
  // ("interrupted"): those that no claim live at `now` names (store/
  // job_claim_repo.h), so that another gateway's run in progress stays
  // running while its holder extends the claim. Returns how many. `self` is
  // the process asking (JobClaimRequest::holder): in SQLite only it can be
  // alive among the holders (one process at a time runs a data dir's jobs,
  // core/data_dir_lock.h), so another holder's claim is a killed process's
  // and its run is marked at once, not after the claim expires.
  Result<int64_t> MarkInterrupted(UnixMs now, std::string_view self);
  // Retention: drops finished runs started before `before`; returns how many.
  Result<int64_t> DeleteBefore(UnixMs before);

 private:
  Database& db_;
};

}  // namespace cilia::store
