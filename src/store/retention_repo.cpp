#include "store/retention_repo.h"

namespace cilia::store {

Result<int64_t> RetentionRepo::Delete(const char* sql, UnixMs before) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(sql));
  s->Bind(1, before);
  CILIA_RETURN_IF_ERROR(s->Run());
  return int64_t{db_.Changes()};
}

Result<int64_t> RetentionRepo::DeleteDecidedCandidatesBefore(UnixMs before) {
  return Delete("DELETE FROM candidates WHERE status <> 'pending' AND updated_at < ?", before);
}

Result<int64_t> RetentionRepo::DeleteRecallLogBefore(UnixMs before) {
  return Delete("DELETE FROM recall_log WHERE at < ?", before);
}

}  // namespace cilia::store
