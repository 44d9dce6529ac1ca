#include "index/lexical.h"

#include <algorithm>
#include <unordered_set>

#include "core/normalize.h"
#include "core/segmenter.h"
#include "core/utf8.h"

namespace cilia::index {

Result<LexicalTerms> ChooseTerms(store::WindowRepo& repo, std::string_view query, int64_t total_docs,
                                 double common_share) {
  LexicalTerms out;
  std::unordered_set<std::string> seen;
  std::vector<std::pair<int64_t, std::string>> by_df;
  for (std::string& w : text::WordSegmenter::Get().Words(query)) {
    if (text::IsStopWord(w) || !seen.insert(w).second) continue;
    CILIA_ASSIGN_OR_RETURN(int64_t df, repo.DocumentFrequency(w));
    if (df == 0) continue;  // matches nothing
    by_df.emplace_back(df, std::move(w));
  }
  const int64_t common = std::max<int64_t>(50, static_cast<int64_t>(common_share * static_cast<double>(total_docs)));
  for (auto& [df, w] : by_df) {
    (df > common ? out.dropped : out.terms).push_back(w);
  }
  if (out.terms.empty() && !by_df.empty()) {
    std::sort(by_df.begin(), by_df.end());
    out.dropped.clear();
    for (size_t i = 0; i < by_df.size(); ++i) (i < 2 ? out.terms : out.dropped).push_back(by_df[i].second);
  }
  return out;
}

std::string PhraseExpression(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string MatchAnyExpression(const std::vector<std::string>& terms) {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += " OR ";
    out += PhraseExpression(t);
  }
  return out;
}

Result<std::vector<store::ScoredId>> SearchLexical(store::WindowRepo& repo, std::string_view query,
                                                   const store::WindowFilter& filter, int limit, int64_t total_docs) {
  CILIA_ASSIGN_OR_RETURN(LexicalTerms terms, ChooseTerms(repo, query, total_docs));
  if (terms.terms.empty()) return std::vector<store::ScoredId>{};
  return repo.SearchWords(MatchAnyExpression(terms.terms), filter, limit);
}

Result<std::vector<store::ScoredId>> SearchExactCandidates(store::WindowRepo& repo, std::string_view text,
                                                           const store::WindowFilter& filter, int limit) {
  std::u32string cps = text::DecodeUtf8(text);
  if (cps.size() >= 3) return repo.SearchTrigram(PhraseExpression(text), filter, limit);
  if (cps.empty()) return std::vector<store::ScoredId>{};
  bool all_han = std::all_of(cps.begin(), cps.end(), text::IsHan);
  if (all_han) return repo.SearchCjk(PhraseExpression(text), filter, limit);
  // One or two Latin characters or digits: only whole words can be looked up.
  std::string norm = text::NormalizeForMatch(text);
  return repo.SearchWords(PhraseExpression(norm), filter, limit);
}

bool ContainsForMatch(std::string_view body, std::string_view needle) {
  if (needle.empty()) return false;
  return text::NormalizeForMatch(body).find(text::NormalizeForMatch(needle)) != std::string::npos;
}

}  // namespace cilia::index
