// The glossary: terms the owner (or an agent) defines, with aliases. A term
// or alias that appears in a turn puts the line "term: definition" into that
// turn's volatile block (memory/glossary.h). Curated data.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

inline constexpr size_t kMaxGlossaryTermChars = 100;        // code points, also for each alias
inline constexpr size_t kMaxGlossaryAliases = 20;
inline constexpr size_t kMaxGlossaryDefinitionChars = 2000;  // code points

struct GlossaryEntry {
  std::string term;
  std::vector<std::string> aliases;
  std::string definition;
  UnixMs created_at = 0;
  UnixMs updated_at = 0;
};

// Ok, or an InvalidArgument naming the field: term and aliases are one line
// of 1..kMaxGlossaryTermChars code points (trimmed by the caller), at most
// kMaxGlossaryAliases aliases, a definition of 1..kMaxGlossaryDefinitionChars;
// all valid UTF-8.
Status CheckGlossaryEntry(const GlossaryEntry& entry);

class GlossaryRepo {
 public:
  explicit GlossaryRepo(Database& db) : db_(db) {}

  // Every term, by term (ASCII case ignored).
  Result<std::vector<GlossaryEntry>> List();
  // The term, ASCII case ignored.
  Result<std::optional<GlossaryEntry>> Get(std::string_view term);
  // Inserts or replaces the term (same term in another ASCII case replaces
  // it and takes the new spelling); keeps the first created_at. Returns the
  // stored entry. CheckGlossaryEntry's errors.
  Result<GlossaryEntry> Put(const GlossaryEntry& entry, UnixMs now);
  // Stores the entry with its own times, as an export had it.
  Status Restore(const GlossaryEntry& entry);
  // True when there was such a term.
  Result<bool> Delete(std::string_view term);
  Result<int64_t> Count();

 private:
  Database& db_;
};

}  // namespace cilia::store
