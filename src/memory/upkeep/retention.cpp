#include "memory/upkeep/retention.h"

#include "store/change_log_repo.h"
#include "store/digest_repo.h"
#include "store/job_run_repo.h"
#include "store/retention_repo.h"
#include "store/turn_repo.h"

namespace cilia::memory {

nlohmann::json RetentionOutcome::ToJson() const {
  return {{"turns", turns}, {"job_runs", job_runs}, {"candidates", candidates}, {"recall_log", recall_log},
          {"daily_packs", daily_packs}, {"change_log", change_log}};
}

Result<RetentionOutcome> RunRetention(Namespace& ns, const JobsConfig& jobs, UnixMs now) {
  auto cutoff = [now](int days) { return now - days * kMsPerDay; };
  const std::string first_pack_day = AddDays(ns.tz().LocalDate(now), -kDailyPackDays).ToString();
  return ns.store().Write([&](store::Database& db) -> Result<RetentionOutcome> {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    RetentionOutcome out;
    if (jobs.turns_days > 0) {
      CILIA_ASSIGN_OR_RETURN(out.turns, store::TurnRepo(db).DeleteBefore(cutoff(jobs.turns_days)));
    }
    if (jobs.job_runs_days > 0) {
      CILIA_ASSIGN_OR_RETURN(out.job_runs, store::JobRunRepo(db).DeleteBefore(cutoff(jobs.job_runs_days)));
    }
    store::RetentionRepo retention(db);
    if (jobs.candidates_days > 0) {
      CILIA_ASSIGN_OR_RETURN(out.candidates, retention.DeleteDecidedCandidatesBefore(cutoff(jobs.candidates_days)));
    }
    if (jobs.recall_log_days > 0) {
      CILIA_ASSIGN_OR_RETURN(out.recall_log, retention.DeleteRecallLogBefore(cutoff(jobs.recall_log_days)));
    }
    CILIA_ASSIGN_OR_RETURN(out.daily_packs, store::DigestRepo(db).DeletePacksBefore(first_pack_day));
    if (db.dialect() == store::Dialect::kPostgres) {
      CILIA_ASSIGN_OR_RETURN(out.change_log, store::ChangeLogRepo(db).TrimBefore(now - store::kChangeLogKeepMs));
    }
    CILIA_RETURN_IF_ERROR(tx.Commit());
    return out;
  });
}

}  // namespace cilia::memory
