#include "memory/turns.h"

#include <utility>

namespace cilia::memory {

Result<std::vector<store::TurnRecord>> ListTurns(Namespace& ns, std::optional<std::string> conversation_id,
                                                 std::optional<int64_t> before_id, int limit) {
  return ns.store().Read(
      [&](store::Database& db) { return store::TurnRepo(db).List(std::move(conversation_id), before_id, limit); });
}

Result<std::vector<CacheStats>> CacheStatsSince(Namespace& ns, const std::string& first_day) {
  return ns.store().Read([&](store::Database& db) { return store::TurnRepo(db).CacheStatsSince(first_day); });
}

Result<std::vector<TurnUsage>> UsageSince(Namespace& ns, const std::string& first_day) {
  return ns.store().Read([&](store::Database& db) { return store::TurnRepo(db).UsageSince(first_day); });
}

}  // namespace cilia::memory
