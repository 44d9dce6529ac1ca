#include "memory/recall/recall.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "core/concurrency.h"
#include "text/timewords.h"
#include "text/utf8.h"
#include "index/lexical.h"
#include "memory/public_id.h"
#include "memory/archive/archive.h"
#include "memory/recall/excerpt_recall.h"
#include "memory/archive/windowing.h"
#include "store/message_repo.h"
#include "store/window_repo.h"

namespace cilia::memory {

namespace {

// How far past a named time its windows are still looked for, and what
// share of their score they keep (see the time filter in Recall).
constexpr int64_t kTellingLagDays = 2;
constexpr double kTellingLagWeight = 0.8;
// A filter allowing more than 1/kListAllowedShare of the windows is tested
// per window rather than listed (see Recall).
constexpr size_t kListAllowedShare = 16;

Result<std::optional<UnixMs>> OptionalBound(const nlohmann::json& body, const char* field, const TimeZone& tz,
                                            BoundSide side) {
  if (!body.contains(field) || body[field].is_null()) return std::optional<UnixMs>();
  if (!body[field].is_string()) return Status::InvalidArgument(fmt::format("{}: must be a date or an RFC 3339 time", field));
  auto t = ParseTimeBound(body[field].get<std::string>(), tz, side);
  if (!t.ok()) return t.status().With(field);
  return std::optional<UnixMs>(*t);
}

// A selected result: one window, or several overlapping ones merged.
struct Group {
  int64_t conversation_id = 0;
  std::vector<store::WindowRecord> windows;
  std::set<std::pair<int64_t, size_t>> span_keys;  // (message id, begin)
  size_t chars = 0;                                 // code points of the windows' bodies
  double score = 0;
};

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

bool Overlaps(const Group& g, const ReadWindow& w) {
  if (g.conversation_id != w.record.conversation_id) return false;
  for (const StoredSpan& s : w.spans) {
    if (g.span_keys.count({s.message_id, s.begin})) return true;
  }
  return false;
}

void AddWindow(Group& g, ReadWindow w) {
  g.conversation_id = w.record.conversation_id;
  g.chars += w.chars;
  for (const StoredSpan& s : w.spans) g.span_keys.insert({s.message_id, s.begin});
  g.windows.push_back(std::move(w.record));
}

struct Rendered {
  std::string text;
  std::vector<std::string> message_ids;
  UnixMs created_at = 0;
};

// The group's segments in conversation order, with a header and a speaker
// label wherever the speaker changes.
Rendered Render(const Group& g, const store::ConversationRecord& conv,
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
  r.text = WindowHeader(r.created_at, tz, conv.title, conv.external_id);
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

Result<RecallRequest> ParseRecallRequest(const nlohmann::json& body, const TimeZone& tz, int default_limit,
                                         int max_limit) {
  if (!body.is_object()) return Status::InvalidArgument("body: must be a JSON object");
  RecallRequest r;
  r.limit = default_limit;
  if (!body.contains("query") || !body["query"].is_string()) {
    return Status::InvalidArgument("query: required, a non-empty string");
  }
  r.query = body["query"].get<std::string>();
  if (r.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidArgument("query: must not be empty");
  }
  // SQLite's full-text syntax has no NUL: the exact lane would fail on it.
  if (r.query.find('\0') != std::string::npos) return Status::InvalidArgument("query: must not contain NUL (U+0000)");
  if (body.contains("limit") && !body["limit"].is_null()) {
    if (!body["limit"].is_number_integer()) {
      return Status::InvalidArgument(fmt::format("limit: must be an integer 1..{}", max_limit));
    }
    int64_t limit = body["limit"].get<int64_t>();
    if (limit < 1 || limit > max_limit) {
      return Status::InvalidArgument(fmt::format("limit: must be 1..{}, got {}", max_limit, limit));
    }
    r.limit = static_cast<int>(limit);
  }
  CILIA_ASSIGN_OR_RETURN(r.after, OptionalBound(body, "after", tz, BoundSide::kAfter));
  CILIA_ASSIGN_OR_RETURN(r.before, OptionalBound(body, "before", tz, BoundSide::kBefore));
  if (r.after && r.before && *r.after > *r.before) {
    return Status::InvalidArgument("after: must not be later than before");
  }
  if (body.contains("conversation_id") && !body["conversation_id"].is_null()) {
    if (!body["conversation_id"].is_string()) return Status::InvalidArgument("conversation_id: must be a string");
    r.conversation_id = body["conversation_id"].get<std::string>();
  }
  if (body.contains("exact") && !body["exact"].is_null()) {
    if (!body["exact"].is_boolean()) return Status::InvalidArgument("exact: must be true or false");
    r.exact = body["exact"].get<bool>();
  }
  if (body.contains("now") && !body["now"].is_null()) {
    if (!body["now"].is_string()) return Status::InvalidArgument("now: must be an RFC 3339 time");
    auto t = ParseRfc3339(body["now"].get<std::string>());
    if (!t.ok()) return t.status().With("now");
    r.now = *t;
  }
  return r;
}

nlohmann::json ToJson(const RecallReply& reply, const TimeZone& tz) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : reply.results) {
    results.push_back({{"layer", r.layer},
                       {"id", r.id},
                       {"conversation_id", r.conversation_id},
                       {"message_ids", r.message_ids},
                       {"created_at", FormatRfc3339(r.created_at, tz.OffsetMinutes(r.created_at))},
                       {"text", r.text},
                       {"score", std::round(r.score * 10000) / 10000}});
  }
  return {{"results", std::move(results)}, {"took_ms", std::round(reply.took_ms * 100) / 100}};
}

Result<RecallReply> Recall(Namespace& ns, const RecallRequest& req, bool count_access) {
  auto started = std::chrono::steady_clock::now();
  const TimeZone& tz = ns.tz();
  const UnixMs now = req.now.value_or(ns.clock().Now());
  const index::RankingOptions& ranking = ns.options().ranking;
  RecallReply reply;

  store::WindowFilter filter;
  if (req.after) filter.from_ms = *req.after;
  if (req.before) filter.to_ms = *req.before + 1;
  TimeHint hint;
  std::string lexical_text = req.query;
  if (!req.exact) {
    hint = ParseTimeWords(req.query, now, tz);
    if (!hint.phrases.empty()) lexical_text = hint.rest;
    if (hint.from) filter.from_ms = std::max(filter.from_ms.value_or(*hint.from), *hint.from);
    // People tell of a day's events on the days after it ("昨天早上跑了18公里"
    // is written the next morning), so a named time keeps its start but
    // reaches a few days further; windows inside the named time rank higher.
    if (hint.to) {
      const UnixMs reach = *hint.to + kTellingLagDays * kMsPerDay;
      filter.to_ms = std::min(filter.to_ms.value_or(reach), reach);
    }
  }
  const int fetch = std::max(30, 3 * req.limit);

  if (req.conversation_id) {
    CILIA_ASSIGN_OR_RETURN(auto conv, ns.store().Read([&](store::Database& db) {
      return store::MessageRepo(db).FindConversation(*req.conversation_id);
    }));
    if (!conv) return reply;  // no such conversation: nothing to find
    filter.conversation_id = conv->id;
  }
  const bool filtered = filter.conversation_id || filter.from_ms || filter.to_ms;
  // A filter that allows few windows has them listed: one that allows none
  // (a day with no chat) answers at once, and the vector lane scores just
  // the listed ones. One that allows many (a year) is tested against the
  // catalogue instead: listing it would cost more than the search (~30 ms
  // for a year at 231k windows).
  std::vector<int64_t> allowed_ids;
  std::vector<bool> allowed_by_id;  // when listed; window ids are row ids, dense from 1
  std::function<bool(int64_t)> allowed;
  bool listed = false;
  if (filtered) {
    if (ns.AllowedAtMost(filter) * kListAllowedShare > ns.WindowCount()) {
      allowed = [&ns, &filter](int64_t id) { return ns.Allows(filter, id); };
    } else {
      CILIA_ASSIGN_OR_RETURN(
          allowed_ids, ns.store().Read([&](store::Database& db) { return store::WindowRepo(db).IdsWhere(filter); }));
      if (allowed_ids.empty()) {
        reply.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
        return reply;
      }
      allowed_by_id.resize(static_cast<size_t>(*std::max_element(allowed_ids.begin(), allowed_ids.end())) + 1);
      for (int64_t id : allowed_ids) allowed_by_id[static_cast<size_t>(id)] = true;
      allowed = [&allowed_by_id](int64_t id) {
        return id >= 0 && static_cast<size_t>(id) < allowed_by_id.size() && allowed_by_id[static_cast<size_t>(id)];
      };
      listed = true;
    }
  }

  // The vector lane (an embedder call, then the graph) runs beside the
  // lexical one: on two cores a recall takes the longer of the two, not both.
  // Its query vector serves the excerpt lane too: one embedder call a recall.
  struct VectorLane {
    std::optional<std::vector<float>> query_vector;  // nullopt: exact, no vector lane
    std::vector<std::pair<int64_t, float>> hits;
  };
  auto vector_lane = RunBeside([&]() -> Result<VectorLane> {
    VectorLane lane;
    if (req.exact) return lane;
    CILIA_ASSIGN_OR_RETURN(auto qv, ns.embedder().Embed({lexical_text.empty() ? req.query : lexical_text}));
    lane.query_vector = qv.empty() ? std::vector<float>() : std::move(qv[0]);
    const std::vector<float>& v = *lane.query_vector;
    if (std::none_of(v.begin(), v.end(), [](float x) { return x != 0; })) return lane;
    lane.hits = listed ? ns.vectors().SearchAllowed(v, fetch, allowed_ids, allowed) : ns.vectors().Search(v, fetch, allowed);
    return lane;
  });

  std::vector<int64_t> lexical_ids;
  if (req.exact) {
    CILIA_ASSIGN_OR_RETURN(lexical_ids, ns.store().Read([&](store::Database& db) {
      store::WindowRepo windows(db);
      return index::SearchExactCandidates(ns.words(), windows, req.query, filter, allowed, fetch * 2);
    }));
  } else {
    for (const auto& [id, score] : index::SearchLexical(ns.words(), lexical_text, fetch, allowed)) {
      lexical_ids.push_back(id);
    }
  }

  CILIA_ASSIGN_OR_RETURN(VectorLane vectors, vector_lane.get());
  std::vector<int64_t> vector_ids;
  std::unordered_map<int64_t, float> similarity;
  for (const auto& [id, sim] : vectors.hits) {
    vector_ids.push_back(id);
    similarity[id] = sim;
  }
  // A question that is only a time ("what happened yesterday"): the
  // windows of that time, newest first.
  if (lexical_ids.empty() && vector_ids.empty() && !req.exact && (filter.from_ms || filter.to_ms)) {
    CILIA_ASSIGN_OR_RETURN(auto recent, ns.store().Read([&](store::Database& db) {
      return store::WindowRepo(db).Recent(filter, fetch);
    }));
    for (const auto& h : recent) lexical_ids.push_back(h.id);
  }

  std::vector<index::FusedHit> hits = index::FuseRanks(vector_ids, lexical_ids, ranking);
  index::RankingOptions recency = ranking;
  if (hint.recent) recency.recency_days = ranking.recency_days / 4;  // "recently": favour the recent harder
  for (auto& h : hits) {
    auto meta = ns.GetWindowMeta(h.id);
    if (!meta || (!h.lexical_rank && similarity[h.id] < ranking.min_vector_similarity)) {
      h.score = 0;
      continue;
    }
    double age_days = static_cast<double>(now - meta->created_at) / kMsPerDay;
    h.score = h.fused * index::RecencyMultiplier(age_days, recency) *
              index::AccessMultiplier(meta->access_count, ranking);
    if (hint.to && meta->created_at >= *hint.to) h.score *= kTellingLagWeight;
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const index::FusedHit& a, const index::FusedHit& b) { return a.score > b.score; });
  while (!hits.empty() && hits.back().score <= 0) hits.pop_back();
  if (!req.exact) index::ApplyRelativeFloor(hits, ranking);

  // Walk the ranking: verify exact hits, cap conversation-days, merge overlaps.
  std::vector<Group> groups;
  std::map<std::pair<int64_t, std::string>, int> per_day;
  std::unordered_map<int64_t, store::ConversationRecord> conversations;
  std::unordered_map<int64_t, store::MessageRecord> messages;
  CILIA_RETURN_IF_ERROR(ns.store().Read([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    store::MessageRepo message_repo(db);
    for (const auto& h : hits) {
      if (static_cast<int>(groups.size()) >= req.limit) break;
      CILIA_ASSIGN_OR_RETURN(auto stored, windows.Get(h.id));
      if (!stored) continue;
      if (req.exact && !index::ContainsForMatch(stored->body, req.query)) continue;
      ReadWindow w = Read(std::move(*stored));
      auto merged = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
        return g.chars + w.chars <= ranking.max_merged_chars && Overlaps(g, w);
      });
      if (merged != groups.end()) {
        AddWindow(*merged, std::move(w));
        continue;
      }
      if (!filter.conversation_id) {
        int& n = per_day[{w.record.conversation_id, tz.FormatLocal(w.record.created_at, false)}];
        if (n >= ranking.per_conversation_day_cap) continue;
        ++n;
      }
      Group g;
      g.score = h.score;
      AddWindow(g, std::move(w));
      groups.push_back(std::move(g));
    }
    for (const Group& g : groups) {
      if (!conversations.count(g.conversation_id)) {
        CILIA_ASSIGN_OR_RETURN(auto conv, message_repo.GetConversation(g.conversation_id));
        if (conv) conversations.emplace(g.conversation_id, std::move(*conv));
      }
      for (const auto& [message_id, begin] : g.span_keys) {
        if (messages.count(message_id)) continue;
        CILIA_ASSIGN_OR_RETURN(auto m, message_repo.GetMessage(message_id));
        if (m) messages.emplace(message_id, std::move(*m));
      }
    }
    return Status::Ok();
  }));

  for (const Group& g : groups) {
    auto conv = conversations.find(g.conversation_id);
    if (conv == conversations.end()) continue;
    Rendered r = Render(g, conv->second, messages, tz);
    if (r.text.empty()) continue;
    RecallResult out;
    out.id = FormatPublicId(IdKind::kWindow, g.windows.front().id);
    out.conversation_id = conv->second.external_id;
    out.message_ids = std::move(r.message_ids);
    out.created_at = r.created_at;
    out.text = std::move(r.text);
    out.score = g.score;
    reply.results.push_back(std::move(out));
  }

  // L1: the excerpts the same query finds, ranked on the same scale.
  ExcerptQuery excerpt_query;
  excerpt_query.query = req.query;
  excerpt_query.lexical_text = lexical_text;
  excerpt_query.exact = req.exact;
  excerpt_query.query_vector = std::move(vectors.query_vector);
  excerpt_query.from_ms = filter.from_ms;
  excerpt_query.to_ms = filter.to_ms;
  excerpt_query.conversation_row = filter.conversation_id;
  excerpt_query.now = now;
  excerpt_query.limit = req.limit;
  excerpt_query.recency_days = hint.recent ? ranking.recency_days / 4 : 0;
  CILIA_ASSIGN_OR_RETURN(std::vector<RecallResult> excerpts, RecallExcerpts(ns, excerpt_query));
  if (!excerpts.empty()) {
    for (RecallResult& r : excerpts) reply.results.push_back(std::move(r));
    std::stable_sort(reply.results.begin(), reply.results.end(),
                     [](const RecallResult& a, const RecallResult& b) { return a.score > b.score; });
    if (reply.results.size() > static_cast<size_t>(req.limit)) reply.results.resize(static_cast<size_t>(req.limit));
    // Only what made the answer counts as recalled.
    std::erase_if(groups, [&reply](const Group& g) {
      const std::string id = FormatPublicId(IdKind::kWindow, g.windows.front().id);
      return std::none_of(reply.results.begin(), reply.results.end(), [&id](const RecallResult& r) { return r.id == id; });
    });
  }
  if (count_access) CILIA_RETURN_IF_ERROR(RecordExcerptRecalls(ns, reply.results, req.query));

  if (count_access && !groups.empty()) {
    const UnixMs at = ns.clock().Now();
    CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) -> Status {
      store::Transaction tx(db);
      CILIA_RETURN_IF_ERROR(tx.Begin());
      store::WindowRepo windows(db);
      for (const Group& g : groups) {
        for (const auto& w : g.windows) CILIA_RETURN_IF_ERROR(windows.RecordRecall(w.id, at, req.query, g.score));
      }
      return tx.Commit();
    }));
    for (const Group& g : groups)
      for (const auto& w : g.windows) ns.AddAccess(w.id);
  }

  reply.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return reply;
}

}  // namespace cilia::memory
