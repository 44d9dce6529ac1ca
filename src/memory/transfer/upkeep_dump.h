// The export records of the curated and nightly data (memory/export.h
// carries them in the same dump): profile documents with their earlier
// versions, the glossary, precious passages, daily logs, digest revisions and
// rollups. Every field is written as stored (times in Unix ms), so export,
// import into an empty namespace and export again give the same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"
#include "store/digest_repo.h"
#include "store/glossary_repo.h"
#include "store/precious_repo.h"
#include "store/profile_repo.h"
#include "store/profile_version_repo.h"

namespace cilia::memory {

struct UpkeepDump {
  std::vector<store::ProfileDocument> profile;
  std::vector<store::ProfileVersion> profile_versions;  // oldest first
  std::vector<store::GlossaryEntry> glossary;
  std::vector<store::PreciousPassage> precious;
  std::vector<store::DailyLog> logs;
  std::vector<store::Digest> digests;
  std::vector<store::Rollup> rollups;
};

// profile, profile_version, glossary, precious, daily_log, digest, rollup.
bool IsUpkeepRecord(std::string_view type);
// Adds the record on `line` (one of IsUpkeepRecord's types) to `dump`; a
// missing or mistyped field is an InvalidArgument naming the line.
Status ParseUpkeepRecord(const nlohmann::json& line, int line_no, UpkeepDump& dump);

// Writes one line per record, each kind in a fixed order.
Status WriteUpkeepRecords(store::Database& db, std::ostream& out);

// Stores the dump, inside the caller's transaction. Into an empty namespace
// everything is restored as it was; into one that has data it is merged and
// nothing local is lost: versions and passages already there are not added
// twice, a document whose content differs becomes the imported one with the
// local content kept as a version, a glossary term takes the newer entry,
// and logs and rollups already there stay.
Status RestoreUpkeep(store::Database& db, const UpkeepDump& dump);

}  // namespace cilia::memory
