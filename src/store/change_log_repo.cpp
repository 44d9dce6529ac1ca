#include "store/change_log_repo.h"

#include <optional>

namespace cilia::store {

namespace {

std::optional<ChangeKind> KindOf(std::string_view name) {
  if (name == "window") return ChangeKind::kWindow;
  if (name == "window_vector") return ChangeKind::kWindowVector;
  if (name == "conversation") return ChangeKind::kConversation;
  if (name == "excerpt") return ChangeKind::kExcerpt;
  if (name == "excerpt_vector") return ChangeKind::kExcerptVector;
  return std::nullopt;
}

}  // namespace

Result<int64_t> ChangeLogRepo::Newest() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT coalesce(max(seq), 0) FROM change_log"));
  return s->OneInt();
}

Result<ChangeLogRepo::Page> ChangeLogRepo::After(int64_t seq, std::string_view writer, int limit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT seq, kind, row_id, writer FROM change_log WHERE seq > ? "
                                                    "ORDER BY seq LIMIT ?"));
  s->Bind(1, seq).Bind(2, static_cast<int64_t>(limit));
  Page page;
  page.last_seq = seq;
  int read = 0;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& r) {
    ++read;
    page.last_seq = r.Int(0);
    std::optional<ChangeKind> kind = KindOf(r.TextView(1));
    // A kind a newer cilia logs means nothing to this one's indexes.
    if (!kind || r.TextView(3) == writer) return;
    page.changes.push_back({r.Int(0), *kind, r.Int(2), std::string(r.TextView(3))});
  }));
  page.more = read == limit;
  return page;
}

Result<int64_t> ChangeLogRepo::TrimBefore(int64_t before_ms) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM change_log WHERE at < ?"));
  s->Bind(1, before_ms);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes();
}

}  // namespace cilia::store
