// The lexical lane over windows: BM25 on segmented words (in memory), and
// exact substring lookup (words in memory, else the trigram table, or Han
// n-grams for 1-2 characters).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "index/bm25_index.h"
#include "store/window_repo.h"

namespace cilia::index {

// Terms of a query for BM25: segmented words without stop words, duplicates
// and words no window holds. Terms present in more than `common_share` of
// the windows are dropped too (they rank nothing), unless every term is that
// common, in which case the rarest two stay.
struct LexicalTerms {
  std::vector<std::string> terms;
  std::vector<std::string> dropped;
};
LexicalTerms ChooseTerms(const Bm25Index& index, std::string_view query, double common_share = 0.2);

// The conversation title as a field of its own: a BM25 index over titles
// (by conversation), and the windows of a conversation. A window scores its
// body's BM25 plus `weight` times its conversation's title BM25, so a title
// match raises all of a conversation's windows and those that also match in
// the body most. Titles summarise (ChatGPT and Claude exports fill them).
struct TitleField {
  const Bm25Index* titles = nullptr;  // none: no title field
  double weight = 0;
  std::function<std::vector<int64_t>(int64_t conversation)> windows_of;
};
// The conversations whose titles match best, whose windows all get the title's
// score: a title matching many conversations ranks little anyway.
inline constexpr size_t kTitleConversations = 5;

// Windows ranked by BM25 for `query` (with the title field, when given),
// best first, only those `allow` accepts.
std::vector<std::pair<int64_t, double>> SearchLexical(const Bm25Index& index, std::string_view query, size_t limit,
                                                      const std::function<bool(int64_t)>& allow = {},
                                                      const TitleField& title = {});

// An FTS5 phrase for one token, with quotes doubled.
std::string PhraseExpression(std::string_view text);
// Every distinct three-character piece of `text` (at least 3 characters),
// each quoted, joined by AND: the trigram table keeps no positions, so this
// finds a superset of the windows holding `text`, which the caller verifies.
std::string TrigramExpression(std::string_view text);

// Candidate windows for an exact lookup of `text`, newest first (not yet
// verified: the caller checks the window body really contains the text).
// Windows holding every word of `text` come from the in-memory index; when
// there are none (the text cuts through words), the trigram or Han n-gram
// table is asked.
Result<std::vector<int64_t>> SearchExactCandidates(const Bm25Index& index, store::WindowRepo& repo,
                                                   std::string_view text, const store::WindowFilter& filter,
                                                   const std::function<bool(int64_t)>& allow, int limit);

// Whether `body` contains `needle`, compared after normalisation for
// matching (case, width), so "PB" finds "pb" and "ＡＢＣ" finds "abc".
bool ContainsForMatch(std::string_view body, std::string_view needle);

}  // namespace cilia::index
