// Claims on the background jobs of a namespace, so that several gateways
// sharing one store (docs/scaling.md) share the work and no run happens
// twice: a run starts only under its job's claim, taken in the same
// transaction that records the run, extended while the run lives and let go
// when it ends. A claim whose holder died expires; the next claimant takes
// it, and the dead holder's run is marked interrupted (JobRunRepo::
// MarkInterrupted counts a run as alive only while a live claim names it).
// docs/upkeep.md "Claims".
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"
#include "store/job_run_repo.h"

namespace cilia::store {

// What a claimant asks for.
struct JobClaimRequest {
  std::string_view job;
  std::string_view name_space;  // recorded in the run
  std::string_view started_by;  // "schedule" or "manual"
  std::string_view holder;      // who claims: host:pid:random of the process
  UnixMs now = 0;
  int64_t ttl_ms = 0;           // the claim lasts this long unless extended
};

// Whether the run is still wanted, given the job's newest run as the claim
// sees it (a scheduled run: is the job still due; a manual run: always). Asked
// under the claim, so that a claimant does not run again what another has
// just finished.
using StillWanted = std::function<bool(const std::optional<JobRun>& latest)>;

class JobClaimRepo {
 public:
  explicit JobClaimRepo(Database& db) : db_(db) {}

  // In one transaction: takes `request.job`'s claim when nobody holds it or
  // its holder's claim expired before `now` (marking the runs no live claim
  // names as interrupted), asks `wanted` about the newest run, and when it
  // says yes records the new run (JobRunRepo::Start) and names it in the
  // claim. Returns the run's id; nullopt (and nothing changed) when the claim
  // is held or the run no longer wanted.
  // PostgreSQL: the claim row is read FOR UPDATE SKIP LOCKED in a plain
  // transaction — not the namespace's writer lock (db.h), which would make a
  // claimant wait behind every writer of the namespace — so a claimant never
  // waits for another: a row another is claiming is as good as held.
  // SQLite: BEGIN IMMEDIATE; its one writer makes claimants take turns.
  Result<std::optional<int64_t>> Claim(const JobClaimRequest& request, const StillWanted& wanted);
  // Pushes the claim of `run_id` on to `expires_at`; false when it is no
  // longer `holder`'s (it expired and another took it).
  Result<bool> Extend(std::string_view job, std::string_view holder, int64_t run_id, UnixMs expires_at);
  // Lets go of the claim of `run_id` (after the run is finished, so that the
  // next claimant sees how it ended).
  Status Release(std::string_view job, std::string_view holder, int64_t run_id);

 private:
  Database& db_;
};

}  // namespace cilia::store
