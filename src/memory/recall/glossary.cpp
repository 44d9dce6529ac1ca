#include "memory/recall/glossary.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <optional>

#include "core/log.h"
#include "text/normalize.h"
#include "text/utf8.h"

namespace cilia::memory {

namespace {

// A letter or digit of a script that separates words (not CJK).
bool IsWordChar(char32_t cp) { return !text::IsCjk(cp) && u_isalnum(static_cast<UChar32>(cp)); }

char32_t FirstCodePoint(std::string_view s) {
  size_t pos = 0;
  return text::NextCodePoint(s, &pos);
}

char32_t LastCodePoint(std::string_view s) {
  size_t start = s.size();
  while (start > 0 && (static_cast<unsigned char>(s[start - 1]) & 0xC0) == 0x80) --start;
  if (start > 0) --start;
  return FirstCodePoint(s.substr(start));
}

// The first position of `needle` in `haystack` where it stands as a word
// at each end that needs it, or nullopt.
std::optional<size_t> FindAsWord(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return std::nullopt;
  const bool check_front = IsWordChar(FirstCodePoint(needle));
  const bool check_back = IsWordChar(LastCodePoint(needle));
  for (size_t at = haystack.find(needle); at != std::string_view::npos; at = haystack.find(needle, at + 1)) {
    const bool front_ok = !check_front || at == 0 || !IsWordChar(LastCodePoint(haystack.substr(0, at)));
    const size_t end = at + needle.size();
    const bool back_ok = !check_back || end == haystack.size() || !IsWordChar(FirstCodePoint(haystack.substr(end)));
    if (front_ok && back_ok) return at;
  }
  return std::nullopt;
}

std::string OneLine(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

}  // namespace

std::vector<std::string> MatchGlossary(const std::vector<store::GlossaryEntry>& entries, std::string_view text) {
  const std::string haystack = text::NormalizeForMatch(text);
  std::vector<std::pair<size_t, const store::GlossaryEntry*>> found;
  for (const store::GlossaryEntry& entry : entries) {
    std::optional<size_t> first = FindAsWord(haystack, text::NormalizeForMatch(entry.term));
    for (const std::string& alias : entry.aliases) {
      std::optional<size_t> at = FindAsWord(haystack, text::NormalizeForMatch(alias));
      if (at && (!first || *at < *first)) first = at;
    }
    if (first) found.emplace_back(*first, &entry);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> lines;
  for (const auto& [at, entry] : found) {
    if (lines.size() == kMaxGlossaryHits) break;
    lines.push_back(entry->term + ": " + OneLine(entry->definition));
  }
  return lines;
}

std::vector<std::string> GlossaryHits(Namespace& ns, std::string_view turn_text) {
  auto entries = ns.store().Read([](store::Database& db) { return store::GlossaryRepo(db).List(); });
  if (!entries.ok()) {
    LogWarn("glossary of namespace {}: {}", ns.name(), entries.status().ToString());
    return {};
  }
  return MatchGlossary(*entries, turn_text);
}

Result<std::vector<store::GlossaryEntry>> ListGlossary(Namespace& ns) {
  return ns.store().Read([](store::Database& db) { return store::GlossaryRepo(db).List(); });
}

Result<std::optional<store::GlossaryEntry>> FindGlossaryTerm(Namespace& ns, const std::string& term) {
  return ns.store().Read([&](store::Database& db) { return store::GlossaryRepo(db).Get(term); });
}

Result<store::GlossaryEntry> PutGlossaryTerm(Namespace& ns, const store::GlossaryEntry& entry) {
  return ns.store().Write([&](store::Database& db) { return store::GlossaryRepo(db).Put(entry, ns.clock().Now()); });
}

Result<bool> DeleteGlossaryTerm(Namespace& ns, const std::string& term) {
  return ns.store().Write([&](store::Database& db) { return store::GlossaryRepo(db).Delete(term); });
}

}  // namespace cilia::memory
