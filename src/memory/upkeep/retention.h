// Retention (docs/upkeep.md): operational data ages out on the schedules of
// [jobs] — turn records, job runs, decided candidates, the recall log, old
// daily packs — and, on PostgreSQL, the change log past an hour
// (store/change_log_repo.h). Nothing else: raw messages, excerpts, pending candidates, the
// profile, the glossary, precious passages, logs, digests and rollups never
// expire by time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"

namespace cilia::memory {

// Daily packs are kept this many days (they are rebuilt on demand anyway).
inline constexpr int kDailyPackDays = 30;

struct RetentionOutcome {
  int64_t turns = 0, job_runs = 0, candidates = 0, recall_log = 0, daily_packs = 0, change_log = 0;

  int64_t Total() const { return turns + job_runs + candidates + recall_log + daily_packs + change_log; }
  nlohmann::json ToJson() const;
};

// Drops what is older than its kind's days in `jobs` (0: kept for ever), as
// of `now`, in one transaction.
Result<RetentionOutcome> RunRetention(Namespace& ns, const JobsConfig& jobs, UnixMs now);

}  // namespace cilia::memory
