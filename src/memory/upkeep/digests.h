// The nightly consolidation (DESIGN.md §7, docs/upkeep.md), by the cheap
// model (models.extract):
//   1. a log for every settled local day that had messages — what happened,
//      each entry citing the messages it rests on (entries that cite no real
//      message of that day are dropped: no citation, no entry);
//   2. the running digest (at most kMaxDigestChars), revised from the logs
//      it has not read yet;
//   3. weekly (ISO week) and monthly rollups of the daily logs, made once
//      every day of the period is settled;
//   and first, with no model, the duplicate merge of excerpts
//   (memory/excerpt_merge.h).
// Progress is kept per work item, never by a single cursor that one bad day
// could hold: a day, week or month whose call fails is tried again on the
// next run and, after kMaxNightlyAttempts failed runs, marked failed and
// skipped (visibly, in the outcome and GET /v1/jobs). A missed night is
// caught up by the next run, up to kMaxNightlyDaysPerRun days at a time; the
// first run reaches back jobs.nightly_catch_up_days before yesterday. An
// upstream that cannot be reached stops the run without counting against any
// item. Messages that arrive for a day after its log was written are not read
// into it again.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/config.h"
#include "core/status.h"
#include "memory/namespace.h"
#include "store/digest_repo.h"

namespace cilia::memory {

inline constexpr size_t kMaxDigestChars = 500;  // code points
inline constexpr int kMaxNightlyAttempts = 3;
inline constexpr int kMaxNightlyDaysPerRun = 31;
inline constexpr int kMaxRollupsPerRun = 8;  // of each kind

struct NightlyOutcome {
  std::vector<std::string> days_logged;  // days that got their log in this run
  int days_empty = 0;                    // settled days without messages (or nothing worth a log)
  std::vector<std::string> retried;      // items that failed this run and will be tried again
  std::vector<std::string> skipped;      // items that failed a last time and were given up
  bool digest_updated = false;
  std::vector<std::string> rollups;  // "week:2026-W21", "month:2026-05"
  int duplicates_merged = 0;         // excerpts merged into one that says the same
  int model_calls = 0;
  int64_t tokens_in = 0;
  int64_t tokens_out = 0;
  std::vector<std::string> errors;  // one readable line per failed item
  std::string upstream_error;       // set when the model could not be reached; the run stopped there

  // Logs, digest revisions, rollups written and duplicates merged.
  int64_t Items() const;
  nlohmann::json ToJson() const;
};

// One nightly run over the namespace, as of clock.Now().
Result<NightlyOutcome> RunNightly(Namespace& ns, const Config& config, const Clock& clock);

// The newest revision of the running digest, and one local day's log
// ("YYYY-MM-DD"), as the MCP tools read them.
Result<std::optional<store::Digest>> LatestDigest(Namespace& ns);
Result<std::optional<store::DailyLog>> DailyLogOf(Namespace& ns, const std::string& day);

// The BP2 block for the local day of `now`: the running digest and the most
// recent daily log before that day (normally yesterday's), or "" when there
// is neither. Fixed at its first use each day, so the cached prefix stays the
// same all day; a nightly run that wrote something refreshes today's.
std::string DailyPack(Namespace& ns, UnixMs now);

// "2026-W22": the ISO week of the day (Monday to Sunday; the year of its
// Thursday).
std::string IsoWeekLabel(CivilDate day);

}  // namespace cilia::memory
