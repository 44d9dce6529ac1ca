// The gateway's records of chat turns (store/turn_repo.h), as the REST
// routes read them: a page of turns, and cache use per day and model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "memory/namespace.h"
#include "store/turn_repo.h"

namespace cilia::memory {

// What the routes name: a day's cache use, and a day's usage, per upstream model.
using CacheStats = store::TurnRepo::CacheStats;
using TurnUsage = store::TurnRepo::Usage;

// Newest first, at most `limit`, before turn `before_id`; one conversation's
// when `conversation_id` is given.
Result<std::vector<store::TurnRecord>> ListTurns(Namespace& ns, std::optional<std::string> conversation_id,
                                                 std::optional<int64_t> before_id, int limit);
// Successful turns of local days from `first_day` ("YYYY-MM-DD") on, summed
// per day and upstream model.
Result<std::vector<CacheStats>> CacheStatsSince(Namespace& ns, const std::string& first_day);
// All turns of local days from `first_day` on, summed per day and upstream
// model: tokens, failures, timings (the admin page's usage view).
Result<std::vector<TurnUsage>> UsageSince(Namespace& ns, const std::string& first_day);

}  // namespace cilia::memory
