#include "memory/recall/recall_stages.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/executor.h"
#include "index/lexical.h"
#include "memory/archive/archive.h"
#include "memory/archive/windowing.h"
#include "memory/recall/excerpt_recall.h"
#include "text/segmenter.h"
#include "text/sentences.h"
#include "text/utf8.h"

namespace cilia::memory {

// ---- plan ------------------------------------------------------------------

RecallPlan PlanRecall(const RecallRequest& req, UnixMs now, const TimeZone& tz) {
  RecallPlan plan;
  plan.query = req.query;
  plan.lexical_text = req.query;
  plan.exact = req.exact;
  plan.conversation_id = req.conversation_id;
  plan.limit = req.limit;
  plan.fetch = std::max(30, 3 * req.limit);
  plan.now = now;
  if (req.after) plan.filter.from_ms = *req.after;
  if (req.before) plan.filter.to_ms = *req.before + 1;
  if (req.exact) return plan;
  plan.hint = ParseTimeWords(req.query, now, tz);
  if (!plan.hint.phrases.empty()) plan.lexical_text = plan.hint.rest;
  const bool future = plan.hint.from && *plan.hint.from > now;
  if (!req.time_words_filter) {
    if (plan.hint.from && plan.hint.to && !future) plan.boost_span = std::make_pair(*plan.hint.from, *plan.hint.to);
    return plan;
  }
  if (plan.hint.from && !future) {
    plan.filter.from_ms = std::max(plan.filter.from_ms.value_or(*plan.hint.from), *plan.hint.from);
  }
  const bool bounded = plan.filter.from_ms || plan.filter.to_ms || (plan.hint.to && !future);
  plan.span_only = bounded && AsksOnlyWhatWasSaid(plan.lexical_text);
  // A named time keeps its start but reaches a few days further, where it
  // is told of (windows inside the named time rank higher: RankHits); a
  // span's own answer keeps to the span.
  if (plan.hint.to && !future) {
    const UnixMs reach = std::min(*plan.hint.to + (plan.span_only ? 0 : kTellingLagDays * kMsPerDay), now + 1);
    plan.filter.to_ms = std::min(plan.filter.to_ms.value_or(reach), reach);
  }
  return plan;
}

// ---- allowed ---------------------------------------------------------------

bool AllowedWindows::Allows(int64_t id) const {
  if (none_) return false;
  if (!filtered()) return true;
  if (!listed_) return tested_by_->Allows(filter_, id);
  return id >= 0 && static_cast<size_t>(id) < by_id_.size() && by_id_[static_cast<size_t>(id)];
}

std::function<bool(int64_t)> AllowedWindows::Test() const {
  if (!filtered() && !none_) return {};
  return [this](int64_t id) { return Allows(id); };
}

Result<AllowedWindows> FindAllowed(Namespace& ns, const RecallPlan& plan) {
  AllowedWindows out;
  out.filter_ = plan.filter;
  out.tested_by_ = &ns;
  if (plan.conversation_id) {
    CILIA_ASSIGN_OR_RETURN(auto conv, ns.store().Read([&](store::Database& db) {
      return store::MessageRepo(db).FindConversation(*plan.conversation_id);
    }));
    if (!conv) {  // no such conversation: nothing to find
      out.none_ = true;
      return out;
    }
    out.filter_.conversation_row = conv->id;
  }
  if (!out.filtered() || ns.AllowedAtMost(out.filter_) * kListAllowedShare > ns.WindowCount()) return out;
  CILIA_ASSIGN_OR_RETURN(out.ids_, ns.store().Read([&](store::Database& db) {
    return store::WindowRepo(db).IdsWhere(out.filter_);
  }));
  out.listed_ = true;
  if (out.ids_.empty()) {
    out.none_ = true;
    return out;
  }
  out.by_id_.resize(static_cast<size_t>(*std::max_element(out.ids_.begin(), out.ids_.end())) + 1);
  for (int64_t id : out.ids_) out.by_id_[static_cast<size_t>(id)] = true;
  return out;
}

// ---- lanes -----------------------------------------------------------------

namespace {

struct VectorLane {
  std::optional<std::vector<float>> query_vector;
  std::vector<std::pair<int64_t, float>> hits;
};

Result<VectorLane> SearchVectors(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed) {
  VectorLane lane;
  if (plan.exact) return lane;
  CILIA_ASSIGN_OR_RETURN(auto qv, ns.embedder().Embed({plan.lexical_text.empty() ? plan.query : plan.lexical_text},
                                                      embed::Purpose::kQuery));
  lane.query_vector = qv.empty() ? std::vector<float>() : std::move(qv[0]);
  const std::vector<float>& v = *lane.query_vector;
  if (std::none_of(v.begin(), v.end(), [](float x) { return x != 0; })) return lane;
  // A lane of weight 0 would rank nothing; the vector itself still serves
  // the excerpt lane.
  if (ns.options().ranking.vector_weight <= 0) return lane;
  const auto fetch = static_cast<size_t>(plan.fetch);
  lane.hits = allowed.listed() ? ns.vectors().SearchAllowed(v, fetch, allowed.ids(), allowed.Test())
                               : ns.vectors().Search(v, fetch, allowed.Test());
  return lane;
}

Result<std::vector<int64_t>> SearchWords(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed) {
  std::vector<int64_t> ids;
  if (plan.exact) {
    return ns.store().Read([&](store::Database& db) {
      store::WindowRepo windows(db);
      return index::SearchExactCandidates(ns.words(), windows, plan.query, allowed.filter(), allowed.Test(),
                                          plan.fetch * 2);
    });
  }
  const index::TitleField title{&ns.titles(), ns.options().ranking.title_weight,
                                [&ns](int64_t conversation) { return ns.WindowsOf(conversation); }};
  for (const auto& [id, score] : index::SearchLexical(ns.words(), plan.lexical_text, static_cast<size_t>(plan.fetch),
                                                      allowed.Test(), title)) {
    ids.push_back(id);
  }
  return ids;
}

// The span's windows, the most recalled first, then the newest.
Result<std::vector<int64_t>> SpanWindows(Namespace& ns, const AllowedWindows& allowed) {
  std::vector<int64_t> ids = allowed.ids();
  if (!allowed.listed()) {
    CILIA_ASSIGN_OR_RETURN(ids, ns.store().Read([&](store::Database& db) {
      return store::WindowRepo(db).IdsWhere(allowed.filter());
    }));
  }
  struct Entry {
    int64_t access, created_at, id;
  };
  std::vector<Entry> entries;
  entries.reserve(ids.size());
  for (int64_t id : ids) {
    if (auto meta = ns.GetWindowMeta(id)) entries.push_back({meta->access_count, meta->created_at, id});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.access, a.created_at, a.id) > std::tie(b.access, b.created_at, b.id);
  });
  std::vector<int64_t> out;
  out.reserve(entries.size());
  for (const Entry& e : entries) out.push_back(e.id);
  return out;
}

}  // namespace

Result<LaneHits> RunLanes(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed) {
  LaneHits lanes;
  if (plan.span_only) {
    CILIA_ASSIGN_OR_RETURN(lanes.lexical_ids, SpanWindows(ns, allowed));
    return lanes;
  }
  Result<VectorLane> vectors = VectorLane{};
  if (Executor* executor = ns.executor()) {
    auto beside = executor->Beside([&] { return SearchVectors(ns, plan, allowed); });
    CILIA_ASSIGN_OR_RETURN(lanes.lexical_ids, SearchWords(ns, plan, allowed));
    vectors = beside.get();
  } else {
    CILIA_ASSIGN_OR_RETURN(lanes.lexical_ids, SearchWords(ns, plan, allowed));
    vectors = SearchVectors(ns, plan, allowed);
  }
  if (!vectors.ok()) return vectors.status();
  lanes.query_vector = std::move(vectors->query_vector);
  for (const auto& [id, sim] : vectors->hits) {
    lanes.vector_ids.push_back(id);
    lanes.similarity[id] = sim;
  }
  return lanes;
}

// ---- rank ------------------------------------------------------------------

std::vector<index::FusedHit> RankHits(const RecallPlan& plan, const LaneHits& lanes,
                                      const index::RankingOptions& ranking, const WindowMetaOf& meta_of) {
  std::vector<index::FusedHit> hits = index::FuseRanks(lanes.vector_ids, lanes.lexical_ids, ranking);
  if (plan.span_only) {
    for (auto& h : hits) {
      const std::optional<WindowMeta> meta = meta_of(h.id);
      h.score = meta ? kSpanWindowImportance * index::AccessMultiplier(meta->access_count, ranking) : 0;
    }
    std::erase_if(hits, [](const index::FusedHit& h) { return h.score <= 0; });
    return hits;
  }
  index::RankingOptions recency = ranking;
  if (plan.hint.recent) recency.recency_days = ranking.recency_days / 4;  // "recently": favour the recent harder
  for (auto& h : hits) {
    const std::optional<WindowMeta> meta = meta_of(h.id);
    auto similarity = lanes.similarity.find(h.id);
    const float sim = similarity == lanes.similarity.end() ? 0.f : similarity->second;
    if (!meta || (!h.lexical_rank && sim < ranking.min_vector_similarity)) {
      h.score = 0;
      continue;
    }
    const double age_days = static_cast<double>(plan.now - meta->created_at) / kMsPerDay;
    h.score = h.fused * index::RecencyMultiplier(age_days, recency) *
              index::AccessMultiplier(meta->access_count, ranking);
    if (plan.hint.to && !plan.boost_span && meta->created_at >= *plan.hint.to) h.score *= kTellingLagWeight;
    if (plan.boost_span && meta->ended_at >= plan.boost_span->first && meta->created_at < plan.boost_span->second) {
      h.score *= kSpanBoost;
    }
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const index::FusedHit& a, const index::FusedHit& b) { return a.score > b.score; });
  while (!hits.empty() && hits.back().score <= 0) hits.pop_back();
  if (!plan.exact) index::ApplyRelativeFloor(hits, ranking);
  return hits;
}

// ---- select ----------------------------------------------------------------

namespace {

// A window read for the ranking walk, with what the walk asks of it once per
// group worked out once.
struct ReadWindow {
  store::WindowRecord record;
  std::vector<StoredSpan> spans;
  size_t chars = 0;  // code points of the body
};

ReadWindow Read(store::WindowRecord w) {
  ReadWindow r;
  r.spans = ParseSpans(w.spans);
  r.chars = text::CodePointCount(w.body);
  r.record = std::move(w);
  return r;
}

bool Overlaps(const WindowGroup& g, const ReadWindow& w) {
  if (g.conversation_row != w.record.conversation_row) return false;
  for (const StoredSpan& s : w.spans) {
    if (g.span_keys.count({s.message_id, s.begin})) return true;
  }
  return false;
}

// Whether a window whose messages run from before the span to after it has
// a message inside it (one that starts or ends inside has).
Result<bool> HasMessageIn(store::MessageRepo& messages, const ReadWindow& w, const store::WindowFilter& span) {
  const bool straddles = span.from_ms && span.to_ms && w.record.created_at < *span.from_ms && w.record.ended_at >= *span.to_ms;
  if (!straddles) return true;
  for (const StoredSpan& s : w.spans) {
    CILIA_ASSIGN_OR_RETURN(auto m, messages.GetMessage(s.message_id));
    if (m && m->created_at >= *span.from_ms && m->created_at < *span.to_ms) return true;
  }
  return false;
}

void AddWindow(WindowGroup& g, ReadWindow w) {
  g.conversation_row = w.record.conversation_row;
  g.chars += w.chars;
  for (const StoredSpan& s : w.spans) g.span_keys.insert({s.message_id, s.begin});
  g.windows.push_back(std::move(w.record));
}

}  // namespace

Result<Selection> SelectGroups(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed,
                               const std::vector<index::FusedHit>& ranked, int slack) {
  const index::RankingOptions& ranking = ns.options().ranking;
  const TimeZone& tz = ns.tz();
  Selection out;
  std::map<std::pair<int64_t, std::string>, int> per_day;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    store::MessageRepo message_repo(db);
    for (const auto& h : ranked) {
      const bool past_limit = static_cast<int>(out.groups.size()) >= plan.limit;
      if (static_cast<int>(out.groups.size()) >= plan.limit + std::max(slack, 0)) break;
      CILIA_ASSIGN_OR_RETURN(auto stored, windows.Get(h.id));
      if (!stored) continue;
      if (plan.exact && !index::ContainsForMatch(stored->body, plan.query)) continue;
      ReadWindow w = Read(std::move(*stored));
      CILIA_ASSIGN_OR_RETURN(bool in_span, HasMessageIn(message_repo, w, allowed.filter()));
      if (!in_span) continue;
      auto merged = std::find_if(out.groups.begin(), out.groups.end(), [&](const WindowGroup& g) {
        return g.chars + w.chars <= ranking.max_merged_chars && Overlaps(g, w);
      });
      if (merged != out.groups.end()) {
        if (!past_limit) AddWindow(*merged, std::move(w));
        continue;
      }
      if (past_limit && std::any_of(out.groups.begin(), out.groups.end(),
                                    [&](const WindowGroup& g) { return Overlaps(g, w); })) {
        continue;
      }
      if (!allowed.filter().conversation_row) {
        const int64_t conversation = plan.span_only ? 0 : w.record.conversation_row;
        int& n = per_day[{conversation, tz.FormatLocal(w.record.created_at, false)}];
        if (n >= ranking.per_conversation_day_cap) continue;
        ++n;
      }
      WindowGroup g;
      g.score = h.score;
      AddWindow(g, std::move(w));
      out.groups.push_back(std::move(g));
    }
    return ReadSources(db, out);
  }));
  return out;
}

void AddToGroup(WindowGroup& group, store::WindowRecord window) { AddWindow(group, Read(std::move(window))); }

Status ReadSources(store::Database& db, Selection& selection) {
  store::MessageRepo message_repo(db);
  for (const WindowGroup& g : selection.groups) {
    if (!selection.conversations.count(g.conversation_row)) {
      CILIA_ASSIGN_OR_RETURN(auto conv, message_repo.GetConversation(g.conversation_row));
      if (conv) selection.conversations.emplace(g.conversation_row, std::move(*conv));
    }
    for (const auto& [message_id, begin] : g.span_keys) {
      if (selection.messages.count(message_id)) continue;
      CILIA_ASSIGN_OR_RETURN(auto m, message_repo.GetMessage(message_id));
      if (m) selection.messages.emplace(message_id, std::move(*m));
    }
  }
  return Status::Ok();
}

// ---- weigh -----------------------------------------------------------------

std::unordered_set<std::string> QueryTerms(Namespace& ns, std::string_view query) {
  const index::LexicalTerms chosen = index::ChooseTerms(ns.words(), query);
  std::unordered_set<std::string> terms(chosen.terms.begin(), chosen.terms.end());
  terms.insert(chosen.dropped.begin(), chosen.dropped.end());
  return terms;
}

namespace {

// A message as the group quotes it: the text of its spans there.
struct QuotedMessage {
  const store::MessageRecord* record;
  std::u32string text;
};

std::vector<QuotedMessage> QuotedInOrder(const WindowGroup& group,
                                         const std::unordered_map<int64_t, store::MessageRecord>& messages) {
  struct Piece {
    const store::MessageRecord* record;
    size_t begin;
    size_t end;
  };
  std::vector<Piece> pieces;
  for (const store::WindowRecord& w : group.windows) {
    for (const StoredSpan& s : ParseSpans(w.spans)) {
      auto it = messages.find(s.message_id);
      if (it != messages.end()) pieces.push_back({&it->second, s.begin, s.end});
    }
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return std::tie(a.record->seq, a.begin) < std::tie(b.record->seq, b.begin);
  });
  std::vector<QuotedMessage> out;
  std::u32string cps;  // the current message's text, decoded once for all its pieces
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0 && pieces[i].record == pieces[i - 1].record && pieces[i].begin == pieces[i - 1].begin) continue;
    if (out.empty() || out.back().record != pieces[i].record) {
      out.push_back({pieces[i].record, {}});
      cps = text::DecodeUtf8(pieces[i].record->text);
    }
    if (!out.back().text.empty()) out.back().text += U'\n';
    out.back().text += std::u32string_view(cps).substr(pieces[i].begin, pieces[i].end - pieces[i].begin);
  }
  return out;
}

bool HoldsTerm(std::u32string_view sentence, const std::unordered_set<std::string>& terms) {
  bool holds = false;
  text::WordSegmenter::Get().ForEachWord(text::EncodeUtf8(sentence), [&](std::string_view word) {
    holds = holds || terms.count(std::string(word)) > 0;
  });
  return holds;
}

struct Matched {
  bool holds = false;  // a sentence holds a query term
  bool asks = false;   // and every such sentence is a question
};

Matched MatchOf(std::u32string_view message, const std::unordered_set<std::string>& terms) {
  Matched m;
  bool stated = false;
  for (const text::Span& span : text::SplitSentences(message)) {
    const std::u32string_view sentence = message.substr(span.begin, span.size());
    if (!HoldsTerm(sentence, terms)) continue;
    m.holds = true;
    stated = stated || !text::IsQuestion(sentence);
  }
  m.asks = m.holds && !stated;
  return m;
}

// The model a person talks with. A named speaker of that role is a person
// (two people's chat, ingested as user and assistant) or a character: its
// words are taken as said.
bool IsAssistant(const store::MessageRecord& m) { return m.role == "assistant" && m.name.empty(); }

}  // namespace

bool OnlyAsked(const WindowGroup& group, const std::unordered_map<int64_t, store::MessageRecord>& messages,
               const std::unordered_set<std::string>& terms) {
  const std::vector<QuotedMessage> quoted = QuotedInOrder(group, messages);
  std::vector<Matched> matched;
  for (const QuotedMessage& q : quoted) matched.push_back(MatchOf(q.text, terms));
  bool any = false;
  for (size_t i = 0; i < quoted.size(); ++i) {
    if (!matched[i].holds) continue;
    any = true;
    const store::MessageRecord& m = *quoted[i].record;
    const store::MessageRecord* partner =
        i + 1 < quoted.size() ? quoted[i + 1].record : (i > 0 ? quoted[i - 1].record : nullptr);
    const bool asks_assistant = m.role == "user" && matched[i].asks && partner && IsAssistant(*partner);
    const bool says_back = IsAssistant(m) && i > 0 && quoted[i - 1].record->role == "user" && matched[i - 1].asks;
    if (!asks_assistant && !says_back) return false;
  }
  return any;
}

void WeighAsked(Selection& selection, const std::unordered_set<std::string>& terms, int limit) {
  if (!terms.empty()) {
    for (WindowGroup& g : selection.groups) {
      if (OnlyAsked(g, selection.messages, terms)) g.score *= kAskedWeight;
    }
    std::stable_sort(selection.groups.begin(), selection.groups.end(),
                     [](const WindowGroup& a, const WindowGroup& b) { return a.score > b.score; });
  }
  if (static_cast<int>(selection.groups.size()) > limit) selection.groups.resize(static_cast<size_t>(std::max(limit, 0)));
}

// ---- render ----------------------------------------------------------------

namespace {

struct Rendered {
  std::string text;
  std::vector<std::string> message_ids;
  UnixMs created_at = 0;
};

Rendered Render(const WindowGroup& g, const store::ConversationRecord& conv,
                const std::unordered_map<int64_t, store::MessageRecord>& messages, const TimeZone& tz) {
  struct Piece {
    int64_t seq;
    size_t begin;
    size_t end;
    const store::MessageRecord* message;
  };
  std::vector<Piece> pieces;
  std::set<std::pair<int64_t, size_t>> seen;
  for (const auto& w : g.windows) {
    for (const StoredSpan& s : ParseSpans(w.spans)) {
      auto it = messages.find(s.message_id);
      if (it == messages.end() || !seen.insert({s.message_id, s.begin}).second) continue;
      pieces.push_back({it->second.seq, s.begin, s.end, &it->second});
    }
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const Piece& a, const Piece& b) { return std::tie(a.seq, a.begin) < std::tie(b.seq, b.begin); });
  Rendered r;
  if (pieces.empty()) return r;
  r.created_at = pieces.front().message->created_at;
  r.text = WindowHeader(r.created_at, tz, conv.title, conv.external_id, pieces.back().message->created_at);
  std::string last_speaker;
  const store::MessageRecord* last_message = nullptr;
  for (const Piece& p : pieces) {
    const store::MessageRecord& m = *p.message;
    std::string speaker = SpeakerLabel(m.name, m.role);
    std::u32string cps = text::DecodeUtf8(m.text);
    std::string segment = text::EncodeUtf8(std::u32string_view(cps).substr(p.begin, p.end - p.begin));
    r.text += '\n';
    if (speaker != last_speaker || last_message == nullptr) r.text += speaker + ": ";
    r.text += segment;
    last_speaker = speaker;
    if (last_message != &m) {
      r.message_ids.push_back(MessagePublicId(m));
      last_message = &m;
    }
  }
  return r;
}

}  // namespace

std::vector<RecallResult> RenderSelection(const Selection& selection, const TimeZone& tz) {
  std::vector<RecallResult> out;
  for (const WindowGroup& g : selection.groups) {
    auto conv = selection.conversations.find(g.conversation_row);
    if (conv == selection.conversations.end()) continue;
    Rendered r = Render(g, conv->second, selection.messages, tz);
    if (r.text.empty()) continue;
    RecallResult result;
    result.id = g.public_id();
    result.conversation_id = conv->second.external_id;
    result.message_ids = std::move(r.message_ids);
    result.created_at = r.created_at;
    result.text = std::move(r.text);
    result.score = g.score;
    out.push_back(std::move(result));
  }
  return out;
}

// ---- join ------------------------------------------------------------------

ExcerptQuery ExcerptQueryFor(const RecallPlan& plan, const AllowedWindows& allowed, LaneHits& lanes,
                             const index::RankingOptions& ranking) {
  ExcerptQuery q;
  q.query = plan.query;
  q.lexical_text = plan.lexical_text;
  q.exact = plan.exact;
  q.query_vector = std::move(lanes.query_vector);
  lanes.query_vector.reset();
  q.from_ms = allowed.filter().from_ms;
  q.to_ms = allowed.filter().to_ms;
  q.conversation_row = allowed.filter().conversation_row;
  q.now = plan.now;
  q.limit = plan.limit;
  q.recency_days = plan.hint.recent ? ranking.recency_days / 4 : 0;
  q.span_only = plan.span_only;
  return q;
}

std::vector<RecallResult> JoinResults(std::vector<RecallResult> windows, std::vector<RecallResult> excerpts,
                                      int limit) {
  for (RecallResult& r : excerpts) windows.push_back(std::move(r));
  std::stable_sort(windows.begin(), windows.end(),
                   [](const RecallResult& a, const RecallResult& b) { return a.score > b.score; });
  if (windows.size() > static_cast<size_t>(limit)) windows.resize(static_cast<size_t>(limit));
  return windows;
}

std::vector<RecallResult> JoinSpanResults(std::vector<RecallResult> windows, std::vector<RecallResult> excerpts,
                                          int limit, int per_day, const TimeZone& tz) {
  for (RecallResult& r : excerpts) windows.push_back(std::move(r));
  std::stable_sort(windows.begin(), windows.end(), [](const RecallResult& a, const RecallResult& b) {
    return a.score != b.score ? a.score > b.score : a.created_at > b.created_at;
  });
  std::vector<RecallResult> out;
  std::map<std::string, int> on_day;
  for (RecallResult& r : windows) {
    if (static_cast<int>(out.size()) >= limit) break;
    if (on_day[tz.FormatLocal(r.created_at, false)]++ >= per_day) continue;
    out.push_back(std::move(r));
  }
  return out;
}

// ---- record ----------------------------------------------------------------

Status RecordRecall(Namespace& ns, const std::vector<RecallResult>& results, const Selection& selection,
                    const std::string& query) {
  CILIA_RETURN_IF_ERROR(RecordExcerptRecalls(ns, results, query));
  std::vector<const WindowGroup*> recalled;
  for (const WindowGroup& g : selection.groups) {
    const std::string id = g.public_id();
    if (std::any_of(results.begin(), results.end(), [&id](const RecallResult& r) { return r.id == id; })) {
      recalled.push_back(&g);
    }
  }
  if (recalled.empty()) return Status::Ok();
  const UnixMs at = ns.clock().Now();
  CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) -> Status {
    store::Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    store::WindowRepo windows(db);
    for (const WindowGroup* g : recalled) {
      for (const auto& w : g->windows) CILIA_RETURN_IF_ERROR(windows.RecordRecall(w.id, at, query, g->score));
    }
    return tx.Commit();
  }));
  for (const WindowGroup* g : recalled) {
    for (const auto& w : g->windows) ns.AddAccess(w.id);
  }
  return Status::Ok();
}

}  // namespace cilia::memory
