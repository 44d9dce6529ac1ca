#include "memory/archive/conversation_reads.h"

#include "store/message_repo.h"

namespace cilia::memory {

Result<std::optional<store::ConversationRecord>> FindConversation(Namespace& ns, std::string_view external_id) {
  return ns.store().Read([&](store::Database& db) { return store::MessageRepo(db).FindConversation(external_id); });
}

Result<std::optional<store::ConversationRecord>> ConversationByRow(Namespace& ns, int64_t conversation_row) {
  return ns.store().Read([&](store::Database& db) { return store::MessageRepo(db).GetConversation(conversation_row); });
}

Result<std::optional<store::MessageRecord>> FirstMessageFrom(Namespace& ns, int64_t conversation_row, int64_t from_seq) {
  auto first = ns.store().Read(
      [&](store::Database& db) { return store::MessageRepo(db).MessagesFrom(conversation_row, from_seq, 1); });
  if (!first.ok()) return first.status();
  if (first->empty()) return std::optional<store::MessageRecord>();
  return std::optional<store::MessageRecord>(std::move(first->front()));
}

Result<std::vector<store::MessageRecord>> ConversationMessages(Namespace& ns, std::string_view external_id) {
  return ns.store().Read([&](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
    store::MessageRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto conversation, repo.FindConversation(external_id));
    if (!conversation) return std::vector<store::MessageRecord>();
    return repo.MessagesFrom(conversation->id, 0);
  });
}

Result<std::optional<store::MessageRecord>> MessageByCallerId(Namespace& ns, int64_t conversation_row,
                                                              std::string_view caller_id) {
  return ns.store().Read(
      [&](store::Database& db) { return store::MessageRepo(db).FindByCallerId(conversation_row, caller_id); });
}

Result<std::optional<store::MessageRecord>> LastSystemMessage(Namespace& ns, int64_t conversation_row) {
  return ns.store().Read(
      [&](store::Database& db) { return store::MessageRepo(db).LastSystemMessage(conversation_row); });
}

Result<std::optional<store::ConversationSummary>> LatestSummary(Namespace& ns, int64_t conversation_row) {
  return ns.store().Read([&](store::Database& db) { return store::SummaryRepo(db).Latest(conversation_row); });
}

Result<int64_t> AddSummary(Namespace& ns, store::ConversationSummary summary) {
  return ns.store().Write([&](store::Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(auto conversation, store::MessageRepo(db).GetConversation(summary.conversation_row));
    summary.through_seq = conversation ? conversation->next_seq : 0;
    return store::SummaryRepo(db).Add(summary);
  });
}

Result<std::vector<store::ProfileDocument>> ProfileDocuments(Namespace& ns) {
  return ns.store().Read([](store::Database& db) { return store::ProfileRepo(db).List(); });
}

Status RecordTurn(Namespace& ns, const store::TurnRecord& record) {
  auto appended = ns.store().Write([&record](store::Database& db) { return store::TurnRepo(db).Append(record); });
  return appended.ok() ? Status::Ok() : appended.status();
}

}  // namespace cilia::memory
