#include "memory/recall/excerpt_recall.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "index/fusion.h"
#include "index/lexical.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/archive/windowing.h"
#include "store/excerpt_repo.h"
#include "store/message_repo.h"

namespace cilia::memory {

// A span's excerpts are read up to this many times the limit, newest first,
// before they are ordered by importance.
constexpr int kSpanReadFactor = 4;

namespace {

// The excerpts both lanes find, fused and weighed as windows are, best first.
Result<std::vector<index::FusedHit>> Ranked(Namespace& ns, const ExcerptQuery& q,
                                            const std::function<bool(int64_t)>& allowed) {
  const ExcerptIndex& index = ns.excerpts();
  const index::RankingOptions& ranking = ns.options().ranking;
  const size_t fetch = static_cast<size_t>(std::max(30, 3 * q.limit));
  std::vector<int64_t> lexical_ids, vector_ids;
  std::unordered_map<int64_t, float> similarity;
  const std::string& text = q.exact ? q.query : (q.lexical_text.empty() ? q.query : q.lexical_text);
  for (const auto& [id, score] : index::SearchLexical(index.words(), text, fetch, allowed)) lexical_ids.push_back(id);
  if (!q.exact) {
    std::vector<float> qv;
    if (q.query_vector) {
      qv = *q.query_vector;
    } else {
      CILIA_ASSIGN_OR_RETURN(auto embedded, ns.embedder().Embed({text}, embed::Purpose::kQuery));
      if (!embedded.empty()) qv = std::move(embedded[0]);
    }
    if (std::any_of(qv.begin(), qv.end(), [](float x) { return x != 0; })) {
      for (const auto& [id, sim] : index.vectors().Search(qv, fetch, allowed)) {
        vector_ids.push_back(id);
        similarity[id] = sim;
      }
    }
  }
  std::vector<index::FusedHit> hits = index::FuseRanks(vector_ids, lexical_ids, ranking);
  index::RankingOptions recency = ranking;
  if (q.recency_days > 0) recency.recency_days = q.recency_days;
  for (auto& h : hits) {
    auto meta = index.Meta(h.id);
    if (!meta || (!h.lexical_rank && similarity[h.id] < ranking.min_vector_similarity)) {
      h.score = 0;
      continue;
    }
    const double age_days = static_cast<double>(q.now - meta->said_at) / kMsPerDay;
    h.score = h.fused * index::RecencyMultiplier(age_days, recency) *
              index::AccessMultiplier(meta->access_count, ranking) *
              index::ValidityMultiplier(q.now, meta->valid_from, meta->valid_to);
  }
  std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  while (!hits.empty() && hits.back().score <= 0) hits.pop_back();
  if (!q.exact) index::ApplyRelativeFloor(hits, ranking);
  return hits;
}

// The excerpts said in the span, newest first; their scores (importance)
// come from their records.
std::vector<index::FusedHit> InSpan(const ExcerptIndex& index, const ExcerptQuery& q,
                                    const std::function<bool(int64_t)>& allowed) {
  std::vector<index::FusedHit> hits;
  for (int64_t id : index.SaidNewestFirst([](const ExcerptMeta& m) { return m.active; })) {
    if (static_cast<int>(hits.size()) >= kSpanReadFactor * q.limit) break;
    if (!allowed(id)) continue;
    index::FusedHit h;
    h.id = id;
    hits.push_back(h);
  }
  return hits;
}

}  // namespace

Result<std::vector<RecallResult>> RecallExcerpts(Namespace& ns, const ExcerptQuery& q) {
  ExcerptIndex& index = ns.excerpts();
  std::vector<RecallResult> out;
  if (index.size() == 0) return out;
  auto allowed = [&](int64_t id) {
    auto m = index.Meta(id);
    return m && m->active && (!q.from_ms || m->said_at >= *q.from_ms) && (!q.to_ms || m->said_at < *q.to_ms) &&
           (!q.conversation_row || m->conversation_row == *q.conversation_row);
  };
  std::vector<index::FusedHit> hits;
  if (q.span_only) {
    hits = InSpan(index, q, allowed);
  } else {
    CILIA_ASSIGN_OR_RETURN(hits, Ranked(ns, q, allowed));
  }
  // A span's excerpts are read, then ordered by importance.
  const int read = q.span_only ? kSpanReadFactor * q.limit : q.limit;

  std::vector<int64_t> gone;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::ExcerptRepo excerpts(db);
    store::MessageRepo messages(db);
    for (const auto& h : hits) {
      if (static_cast<int>(out.size()) >= read) break;
      CILIA_ASSIGN_OR_RETURN(auto e, excerpts.Get(h.id));
      if (!e) {  // forgotten since the index saw it
        gone.push_back(h.id);
        continue;
      }
      if (e->status != store::ExcerptStatus::kActive) continue;
      if (q.exact && !index::ContainsForMatch(e->content, q.query) && !index::ContainsForMatch(e->quote, q.query)) continue;
      CILIA_ASSIGN_OR_RETURN(auto m, messages.GetMessage(e->source.message_id));
      CILIA_ASSIGN_OR_RETURN(auto conv, messages.GetConversation(e->source.conversation_row));
      if (!m || !conv) continue;
      RecallResult r;
      r.layer = "excerpt";
      r.id = ExcerptPublicId(e->id);
      r.conversation_id = conv->external_id;
      r.message_ids = {MessagePublicId(*m)};
      r.created_at = m->created_at;
      r.text = WindowHeader(m->created_at, ns.tz(), conv->title, conv->external_id) + "\n" + e->content + "\n" +
               SpeakerLabel(m->name, m->role) + ": " + e->quote;
      r.score = q.span_only ? e->importance : h.score;
      out.push_back(std::move(r));
    }
    return Status::Ok();
  }));
  for (int64_t id : gone) index.Remove(id);
  if (q.span_only) {
    std::stable_sort(out.begin(), out.end(), [](const RecallResult& a, const RecallResult& b) { return a.score > b.score; });
    if (out.size() > static_cast<size_t>(q.limit)) out.resize(static_cast<size_t>(q.limit));
  }
  return out;
}

Status RecordExcerptRecalls(Namespace& ns, const std::vector<RecallResult>& results, const std::string& query) {
  std::vector<std::pair<int64_t, double>> recalled;
  for (const RecallResult& r : results) {
    if (r.layer != "excerpt") continue;
    if (auto id = ParseExcerptId(r.id)) recalled.emplace_back(*id, r.score);
  }
  if (recalled.empty()) return Status::Ok();
  const UnixMs at = ns.clock().Now();
  CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::ExcerptRepo excerpts(db);
    for (const auto& [id, score] : recalled) CILIA_RETURN_IF_ERROR(excerpts.RecordRecall(id, at, query, score));
    return tx.Commit();
  }));
  for (const auto& [id, score] : recalled) ns.excerpts().AddAccess(id);
  return Status::Ok();
}

}  // namespace cilia::memory
