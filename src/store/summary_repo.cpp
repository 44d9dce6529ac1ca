#include "store/summary_repo.h"

namespace cilia::store {

Result<std::optional<ConversationSummary>> SummaryRepo::Latest(int64_t conversation_row) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT id, conversation_id, through_seq, text, model, created_at, kept_from_key "
                                     "FROM conversation_summaries WHERE conversation_id = ? "
                                     "ORDER BY through_seq DESC, id DESC LIMIT 1"));
  s->Bind(1, conversation_row);
  return s->One([](const Statement& r) {
    return ConversationSummary{r.Int(0), r.Int(1), r.Int(2), r.Text(3), r.Text(4), r.Int(5), r.Text(6)};
  });
}

Result<int64_t> SummaryRepo::Add(const ConversationSummary& summary) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO conversation_summaries(conversation_id, "
                                                    "through_seq, text, model, created_at, kept_from_key) "
                                                    "VALUES (?, ?, ?, ?, ?, ?) RETURNING id"));
  s->Bind(1, summary.conversation_row).Bind(2, summary.through_seq).Bind(3, summary.text).Bind(4, summary.model);
  s->Bind(5, summary.created_at).Bind(6, summary.kept_from_key);
  return s->OneInt();
}

Status SummaryRepo::ForgetFrom(int64_t conversation_row, int64_t seq) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare("DELETE FROM conversation_summaries WHERE conversation_id = ? AND through_seq > ?"));
  s->Bind(1, conversation_row).Bind(2, seq);
  return s->Run();
}

Status SummaryRepo::ForgetConversation(int64_t conversation_row) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM conversation_summaries WHERE conversation_id = ?"));
  s->Bind(1, conversation_row);
  return s->Run();
}

}  // namespace cilia::store
