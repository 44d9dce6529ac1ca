// The boot pack (GET /v1/boot, MCP memory_boot): what a new window or an
// agent reads first — the running digest, yesterday's log, the latest weekly
// and monthly rollups, precious passages, the glossary, the L2 profile, and
// counts of what the memory holds. Also the JSON shapes of these records,
// shared by the REST routes.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"
#include "memory/public_id.h"
#include "store/digest_repo.h"
#include "store/glossary_repo.h"
#include "store/precious_repo.h"

namespace cilia::memory {

// {"day", "title", "text", "entries": [{"text", "sources": [{"conversation_id", "message_id"}]}],
//  "messages", "model", "created_at", "updated_at"}
nlohmann::json DailyLogJson(const store::DailyLog& log);
// {"text", "through_day", "model", "created_at"}
nlohmann::json DigestJson(const store::Digest& digest);
// {"kind", "period", "first_day", "last_day", "text", "source_days", "model", "created_at"}
nlohmann::json RollupJson(const store::Rollup& rollup);
// {"id": "p_<n>", "content", "conversation_id", "message_ids", "author", "created_at"}
nlohmann::json PreciousJson(const store::PreciousPassage& passage);
// {"term", "aliases", "definition", "created_at", "updated_at"}
nlohmann::json GlossaryJson(const store::GlossaryEntry& entry);

// The pack as of `now` (yesterday is the owner's local yesterday):
// {"day", "digest" (or null), "yesterday" (the log, or null), "week" and
//  "month" (latest rollups, or null), "precious" (oldest first), "glossary"
//  (by term), "profile" (persona, user, relationship, rules, then the rest by
//  name), "counts": {conversations, messages, windows, excerpts,
//  candidates_pending, precious, glossary, profile_documents}}.
Result<nlohmann::json> BootPack(Namespace& ns, UnixMs now);

}  // namespace cilia::memory
