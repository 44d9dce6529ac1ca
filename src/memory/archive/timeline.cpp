#include "memory/archive/timeline.h"

#include <map>
#include <utility>

#include "store/message_repo.h"

namespace cilia::memory {

Result<std::vector<DayCount>> MessagesPerDay(Namespace& ns) {
  CILIA_ASSIGN_OR_RETURN(auto counts, ns.store().Read([](store::Database& db) {
    return store::MessageRepo(db).CountsPerQuarterHour();
  }));
  std::map<std::string, int64_t> per_day;
  for (const auto& [start, n] : counts) per_day[ns.tz().LocalDate(start).ToString()] += n;
  std::vector<DayCount> days;
  for (auto& [day, n] : per_day) days.push_back({day, n});
  return days;
}

Result<std::vector<DayConversation>> ConversationsOfDay(Namespace& ns, CivilDate day) {
  const UnixMs from = ns.tz().StartOfDay(day);
  const UnixMs to = ns.tz().StartOfDay(AddDays(day, 1));
  return ns.store().Read([&](store::Database& db) -> Result<std::vector<DayConversation>> {
    store::MessageRepo repo(db);
    CILIA_ASSIGN_OR_RETURN(auto spans, repo.ConversationsBetween(from, to));
    std::vector<DayConversation> out;
    for (const auto& span : spans) {
      CILIA_ASSIGN_OR_RETURN(auto conversation, repo.GetConversation(span.conversation_row));
      CILIA_ASSIGN_OR_RETURN(auto first, repo.MessagesFrom(span.conversation_row, span.first_seq, 1));
      if (!conversation || first.empty()) continue;
      out.push_back({std::move(*conversation), span.messages, std::move(first.front())});
    }
    return out;
  });
}

}  // namespace cilia::memory
