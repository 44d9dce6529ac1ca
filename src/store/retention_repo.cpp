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

Result<int64_t> RetentionRepo::DeleteRecallQueriesFinding(std::string_view layer, std::span<const int64_t> item_ids) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM recall_log WHERE query IN (SELECT query FROM "
                                                    "recall_log WHERE layer = ? AND item_id = ?)"));
  int64_t deleted = 0;
  for (int64_t id : item_ids) {
    s->Reset();
    s->Bind(1, layer).Bind(2, id);
    CILIA_RETURN_IF_ERROR(s->Run());
    deleted += db_.Changes();
  }
  return deleted;
}

}  // namespace cilia::store
