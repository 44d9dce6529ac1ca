#include "store/job_claim_repo.h"

namespace cilia::store {

namespace {

// The claim row when nobody holds it or its holder's claim has expired; in
// SQLite also when another process holds it, since only this one can be alive
// (JobRunRepo::MarkInterrupted).
constexpr std::string_view kFreeClaim =
    "SELECT 1 FROM job_claims WHERE job = ?1 AND (holder IS NULL OR expires_at < ?2 OR "
    "(CAST(?3 AS text) IS NOT NULL AND holder <> ?3))";

// The claim's transaction, rolled back unless committed. Not Transaction:
// on PostgreSQL that takes the namespace's writer lock, which would make a
// claimant queue behind every writer of the namespace, where SKIP LOCKED is
// there so that it never waits (JobClaimRepo::Claim).
class ClaimTransaction {
 public:
  explicit ClaimTransaction(Database& db) : db_(db) {}
  ~ClaimTransaction() {
    if (open_) (void)db_.Exec("ROLLBACK");
  }
  ClaimTransaction(const ClaimTransaction&) = delete;
  ClaimTransaction& operator=(const ClaimTransaction&) = delete;
  Status Begin() {
    CILIA_RETURN_IF_ERROR(db_.dialect() == Dialect::kPostgres ? db_.Exec("BEGIN") : db_.BeginWrite());
    open_ = true;
    return Status::Ok();
  }
  Status Commit() {
    CILIA_RETURN_IF_ERROR(db_.Commit());
    open_ = false;
    return Status::Ok();
  }

 private:
  Database& db_;
  bool open_ = false;
};

}  // namespace

Result<std::optional<int64_t>> JobClaimRepo::Claim(const JobClaimRequest& request, const StillWanted& wanted) {
  ClaimTransaction tx(db_);
  CILIA_RETURN_IF_ERROR(tx.Begin());
  CILIA_ASSIGN_OR_RETURN(Statement * ensure,
                         db_.Prepare("INSERT INTO job_claims(job) VALUES (?) ON CONFLICT DO NOTHING"));
  ensure->Bind(1, request.job);
  CILIA_RETURN_IF_ERROR(ensure->Run());
  CILIA_ASSIGN_OR_RETURN(Statement * free,
                         db_.Prepare(db_.dialect() == Dialect::kPostgres
                                         ? std::string(kFreeClaim) + " FOR UPDATE SKIP LOCKED"
                                         : std::string(kFreeClaim)));
  free->Bind(1, request.job).Bind(2, request.now);
  if (db_.dialect() == Dialect::kSqlite)
    free->Bind(3, request.holder);
  else
    free->BindNull(3);
  CILIA_ASSIGN_OR_RETURN(const bool claimable, free->Exists());
  if (!claimable) return std::optional<int64_t>();
  JobRunRepo runs(db_);
  // An expired claim's holder died in its run (or lost the store for longer
  // than a claim lasts; in SQLite, any other holder): that run ends interrupted first, so that `wanted`
  // sees how it ended.
  CILIA_RETURN_IF_ERROR(runs.MarkInterrupted(request.now, request.holder).status());
  CILIA_ASSIGN_OR_RETURN(std::optional<JobRun> latest, runs.Latest(request.job));
  if (!wanted(latest)) return std::optional<int64_t>();  // rolled back: the claim stays free
  CILIA_ASSIGN_OR_RETURN(const int64_t id, runs.Start(request.job, request.name_space, request.started_by, request.now));
  CILIA_ASSIGN_OR_RETURN(Statement * take, db_.Prepare("UPDATE job_claims SET holder = ?, run_id = ?, claimed_at = ?, "
                                                       "expires_at = ? WHERE job = ?"));
  take->Bind(1, request.holder).Bind(2, id).Bind(3, request.now).Bind(4, request.now + request.ttl_ms).Bind(5, request.job);
  CILIA_RETURN_IF_ERROR(take->Run());
  CILIA_RETURN_IF_ERROR(tx.Commit());
  return std::optional<int64_t>(id);
}

Result<bool> JobClaimRepo::Extend(std::string_view job, std::string_view holder, int64_t run_id, UnixMs expires_at) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE job_claims SET expires_at = ? WHERE job = ? AND "
                                                    "holder = ? AND run_id = ?"));
  s->Bind(1, expires_at).Bind(2, job).Bind(3, holder).Bind(4, run_id);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes() == 1;
}

Status JobClaimRepo::Release(std::string_view job, std::string_view holder, int64_t run_id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE job_claims SET holder = NULL, run_id = NULL, "
                                                    "expires_at = NULL WHERE job = ? AND holder = ? AND run_id = ?"));
  s->Bind(1, job).Bind(2, holder).Bind(3, run_id);
  return s->Run();
}

}  // namespace cilia::store
