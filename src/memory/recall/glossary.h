// Glossary hits: the lines of the glossary whose term or alias appears in a
// turn, for the turn's volatile block. Matching is on NormalizeForMatch
// forms (case-folded, NFKC), so "MOCHI", "Mochi" and fullwidth "Ｍｏｃｈｉ" all
// find "mochi". A term that begins or ends with a letter or digit of an
// alphabetic script must stand as a word there ("cat" is not found in
// "category"); CJK terms have no word boundaries and match anywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memory/namespace.h"
#include "store/glossary_repo.h"

namespace cilia::memory {

// At most this many lines per turn.
inline constexpr size_t kMaxGlossaryHits = 12;

// "term: definition" (the definition on one line) for each entry whose term
// or an alias occurs in `text`, in the order of their first occurrence; at
// most kMaxGlossaryHits.
std::vector<std::string> MatchGlossary(const std::vector<store::GlossaryEntry>& entries, std::string_view text);

// MatchGlossary over the namespace's glossary. A glossary that cannot be
// read gives no lines (logged): a turn never fails for it.
std::vector<std::string> GlossaryHits(Namespace& ns, std::string_view turn_text);

// The glossary itself, for the REST routes: all entries by term, one term,
// an entry written (created or replaced, at the namespace clock's now), one
// deleted (false when there was none).
Result<std::vector<store::GlossaryEntry>> ListGlossary(Namespace& ns);
Result<std::optional<store::GlossaryEntry>> FindGlossaryTerm(Namespace& ns, const std::string& term);
Result<store::GlossaryEntry> PutGlossaryTerm(Namespace& ns, const store::GlossaryEntry& entry);
Result<bool> DeleteGlossaryTerm(Namespace& ns, const std::string& term);

}  // namespace cilia::memory
