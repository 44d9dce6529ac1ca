#include "store/db.h"

namespace cilia::store {

Transaction::~Transaction() {
  if (open_) (void)db_.Exec("ROLLBACK");
}

Status Transaction::Begin() {
  CILIA_RETURN_IF_ERROR(db_.BeginWrite());
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  Status st = db_.Commit();
  if (st.ok()) open_ = false;
  return st;
}

ReadSnapshot::~ReadSnapshot() {
  if (open_) (void)db_.Commit();  // nothing was written: COMMIT only ends the read
}

Status ReadSnapshot::Begin() {
  CILIA_RETURN_IF_ERROR(db_.BeginRead());
  open_ = true;
  return Status::Ok();
}

}  // namespace cilia::store
