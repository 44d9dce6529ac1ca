#include "index/lexical.h"

#include <algorithm>
#include <unordered_set>

#include "text/normalize.h"
#include "text/segmenter.h"
#include "text/utf8.h"

namespace cilia::index {

LexicalTerms ChooseTerms(const Bm25Index& index, std::string_view query, double common_share) {
  LexicalTerms out;
  std::unordered_set<std::string> seen;
  std::vector<std::pair<int64_t, std::string>> by_df;
  for (std::string& w : text::WordSegmenter::Get().Words(query)) {
    if (text::IsStopWord(w) || !seen.insert(w).second) continue;
    int64_t df = index.DocumentFrequency(w);
    if (df == 0) continue;  // matches nothing
    by_df.emplace_back(df, std::move(w));
  }
  const auto total = static_cast<double>(index.size());
  const int64_t common = std::max<int64_t>(50, static_cast<int64_t>(common_share * total));
  for (auto& [df, w] : by_df) (df > common ? out.dropped : out.terms).push_back(w);
  if (out.terms.empty() && !by_df.empty()) {
    std::sort(by_df.begin(), by_df.end());
    out.dropped.clear();
    for (size_t i = 0; i < by_df.size(); ++i) (i < 2 ? out.terms : out.dropped).push_back(by_df[i].second);
  }
  return out;
}

std::vector<std::pair<int64_t, double>> SearchLexical(const Bm25Index& index, std::string_view query, size_t limit,
                                                      const std::function<bool(int64_t)>& allow,
                                                      const TitleField& title) {
  std::vector<std::pair<int64_t, double>> seeds;
  if (title.titles && title.weight > 0 && title.windows_of && title.titles->size() > 0) {
    const LexicalTerms title_terms = ChooseTerms(*title.titles, query);
    for (const auto& [conversation, score] : title.titles->Search(title_terms.terms, kTitleConversations)) {
      for (int64_t window : title.windows_of(conversation)) seeds.emplace_back(window, title.weight * score);
    }
  }
  LexicalTerms terms = ChooseTerms(index, query);
  if (terms.terms.empty() && seeds.empty()) return {};
  return index.Search(terms.terms, limit, allow, seeds);
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

std::string TrigramExpression(std::string_view text) {
  std::u32string cps = text::DecodeUtf8(text);
  std::unordered_set<std::u32string> seen;
  std::string out;
  for (size_t i = 0; i + 3 <= cps.size(); ++i) {
    std::u32string piece = cps.substr(i, 3);
    if (!seen.insert(piece).second) continue;
    if (!out.empty()) out += " AND ";
    out += PhraseExpression(text::EncodeUtf8(piece));
  }
  return out;
}

Result<std::vector<int64_t>> SearchExactCandidates(const Bm25Index& index, store::WindowRepo& repo,
                                                   std::string_view text, const store::WindowFilter& filter,
                                                   const std::function<bool(int64_t)>& allow, int limit) {
  std::u32string cps = text::DecodeUtf8(text);
  std::vector<int64_t> ids;
  auto append = [&](const std::vector<store::ScoredId>& hits) {
    for (const auto& h : hits) {
      if (std::find(ids.begin(), ids.end(), h.id) == ids.end()) ids.push_back(h.id);
    }
  };
  if (!cps.empty() && cps.size() <= 2 && std::all_of(cps.begin(), cps.end(), text::IsHan)) {
    CILIA_ASSIGN_OR_RETURN(auto hits, repo.SearchCjk(PhraseExpression(text), filter, limit));
    append(hits);
    return ids;
  }
  // Windows holding every word of the text cover the usual case cheaply;
  // text that cuts through words needs the trigram table as well.
  std::vector<std::string> words = text::WordSegmenter::Get().Words(text);
  if (!words.empty()) ids = index.ContainingAll(words, static_cast<size_t>(limit), allow);
  if (static_cast<int>(ids.size()) < limit && cps.size() >= 3) {
    CILIA_ASSIGN_OR_RETURN(auto hits, repo.SearchTrigram(TrigramExpression(text), filter, limit));
    append(hits);
  }
  return ids;
}

bool ContainsForMatch(std::string_view body, std::string_view needle) {
  if (needle.empty()) return false;
  return text::NormalizeForMatch(body).find(text::NormalizeForMatch(needle)) != std::string::npos;
}

}  // namespace cilia::index
