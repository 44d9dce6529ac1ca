// Retention of operational data that has no repository of its own to say
// so: decided candidates and the recall log. Turn records and job runs have
// theirs (TurnRepo, JobRunRepo); nothing here touches messages, excerpts,
// the profile, the glossary or precious passages.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

class RetentionRepo {
 public:
  explicit RetentionRepo(Database& db) : db_(db) {}

  // Candidates the owner decided (approved, discarded, merged) last changed
  // before `before`. Pending ones wait for the owner however old they are.
  Result<int64_t> DeleteDecidedCandidatesBefore(UnixMs before);
  // Recall log rows written before `before`.
  Result<int64_t> DeleteRecallLogBefore(UnixMs before);
  // Forget: every logged query that found one of these items (layer
  // "archive" for windows, "excerpt" for excerpts), with all its rows: the
  // query text holds the forgotten words.
  Result<int64_t> DeleteRecallQueriesFinding(std::string_view layer, std::span<const int64_t> item_ids);

 private:
  Result<int64_t> Delete(const char* sql, UnixMs before);
  Database& db_;
};

}  // namespace cilia::store
