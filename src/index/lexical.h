// The lexical lane over windows: BM25 on segmented words, and exact
// substring lookup (trigram table, or Han n-grams for 1-2 characters).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/window_repo.h"

namespace cilia::index {

// Terms of a query for BM25: segmented words without stop words and
// duplicates. Terms present in more than `common_share` of `total_docs`
// windows are dropped too (they rank nothing and make FTS5 slow), unless
// every term is that common, in which case the rarest two stay.
struct LexicalTerms {
  std::vector<std::string> terms;
  std::vector<std::string> dropped;
};
Result<LexicalTerms> ChooseTerms(store::WindowRepo& repo, std::string_view query, int64_t total_docs,
                                 double common_share = 0.2);

// An FTS5 MATCH expression: the terms, each quoted, joined by OR.
std::string MatchAnyExpression(const std::vector<std::string>& terms);
// An FTS5 phrase for an exact substring, with quotes doubled.
std::string PhraseExpression(std::string_view text);

// Windows ranked by BM25 for `query`, best first.
Result<std::vector<store::ScoredId>> SearchLexical(store::WindowRepo& repo, std::string_view query,
                                                   const store::WindowFilter& filter, int limit, int64_t total_docs);

// Candidate windows for an exact lookup of `text`, best first (not yet
// verified: the caller checks the window body really contains the text).
Result<std::vector<store::ScoredId>> SearchExactCandidates(store::WindowRepo& repo, std::string_view text,
                                                           const store::WindowFilter& filter, int limit);

// Whether `body` contains `needle`, compared after normalisation for
// matching (case, width), so "PB" finds "pb" and "ＡＢＣ" finds "abc".
bool ContainsForMatch(std::string_view body, std::string_view needle);

}  // namespace cilia::index
