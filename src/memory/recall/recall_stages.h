// The stages of Recall (recall.h), each a function with a type between it and
// the next, so that each can be tested alone:
//
//   plan      the request read: time words turned into bounds, what the lanes search
//   allowed   the windows the bounds allow, listed when few, tested when many
//   lanes     the vector and lexical lanes (beside each other), or a span's windows
//   rank      fused by weighted RRF, times recency and access, floors applied
//   select    the ranking walked: exact hits verified, overlaps merged, days capped
//   weigh     statements before what only asks about them
//   render    each selection as verbatim text with header and speaker labels
//   join      the excerpt lane's results merged in by score
//   record    a real recall's access counts and log
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "index/fusion.h"
#include "memory/namespace.h"
#include "memory/recall/excerpt_recall.h"
#include "memory/recall/recall.h"
#include "store/message_repo.h"
#include "store/window_repo.h"
#include "text/timewords.h"

namespace cilia::memory {

// ---- plan ------------------------------------------------------------------

// How far past a named time its windows are still looked for, and what
// share of their score they keep: people tell of a day's events on the days
// after it ("昨天早上跑了18公里" is written the next morning).
inline constexpr int64_t kTellingLagDays = 2;
inline constexpr double kTellingLagWeight = 0.8;

struct RecallPlan {
  std::string query;         // as asked
  std::string lexical_text;  // what the lanes search: the query without its time words
  bool exact = false;
  TimeHint hint;                 // empty for an exact query
  store::WindowFilter filter;    // the time bounds (the conversation comes with the allowed set)
  std::optional<std::string> conversation_id;  // the caller's id, when one conversation is asked
  int limit = 10;
  int fetch = 30;  // hits each lane returns
  UnixMs now = 0;
  // A question that is only a time ("昨天", "what did we talk about
  // yesterday", or generic words under after/before): what was said in the
  // span answers it, by importance, then newest first, a few a day.
  bool span_only = false;
  // Where time words only raise results (time_words_filter false): their
  // span, and windows reaching into it score kSpanBoost times more.
  std::optional<std::pair<UnixMs, UnixMs>> boost_span;
};

inline constexpr double kSpanBoost = 1.5;

// A span from time words never reaches past `now`, and one wholly after it
// ("下周", "next month": a plan being told) bounds nothing.
RecallPlan PlanRecall(const RecallRequest& request, UnixMs now, const TimeZone& tz);

// ---- allowed ---------------------------------------------------------------

// A filter allowing more than 1/kListAllowedShare of the windows is tested
// per window rather than listed.
inline constexpr size_t kListAllowedShare = 16;

// The windows a plan's filter allows. One that allows few windows has them
// listed: one that allows none (a day with no chat) answers at once, and the
// vector lane scores just the listed ones. One that allows many (a year) is
// tested against the catalogue instead: listing it would cost more than the
// search (~30 ms for a year at 231k windows). Test()'s function refers to
// the object: it is not copied, and not moved while the function is in use.
class AllowedWindows {
 public:
  AllowedWindows() = default;
  AllowedWindows(const AllowedWindows&) = delete;
  AllowedWindows& operator=(const AllowedWindows&) = delete;
  AllowedWindows(AllowedWindows&&) = default;
  AllowedWindows& operator=(AllowedWindows&&) = default;

  // The plan's filter with the asked conversation's row.
  const store::WindowFilter& filter() const { return filter_; }
  bool filtered() const { return filter_.conversation_row || filter_.from_ms || filter_.to_ms; }
  // Nothing can match (no such conversation, no window in the span).
  bool none() const { return none_; }
  bool listed() const { return listed_; }
  const std::vector<int64_t>& ids() const { return ids_; }  // when listed
  bool Allows(int64_t id) const;
  // Allows() for the lanes; empty when everything is allowed.
  std::function<bool(int64_t)> Test() const;

 private:
  friend Result<AllowedWindows> FindAllowed(Namespace& ns, const RecallPlan& plan);
  store::WindowFilter filter_;
  bool none_ = false;
  bool listed_ = false;
  std::vector<int64_t> ids_;
  std::vector<bool> by_id_;  // window ids are row ids, dense from 1
  Namespace* tested_by_ = nullptr;
};

Result<AllowedWindows> FindAllowed(Namespace& ns, const RecallPlan& plan);

// ---- lanes -----------------------------------------------------------------

struct LaneHits {
  std::optional<std::vector<float>> query_vector;  // nullopt: exact, no vector lane
  std::vector<int64_t> vector_ids;                 // best first
  std::unordered_map<int64_t, float> similarity;   // of the vector hits
  std::vector<int64_t> lexical_ids;                // best first
};

// The vector lane (an embedder call, then the graph) runs beside the
// lexical one on the namespace's executor, when it has one: on two cores a
// recall takes the longer of the two, not both. A question that is only a
// time gets that time's windows instead (as lexical hits), the most
// recalled first, then the newest.
Result<LaneHits> RunLanes(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed);

// ---- rank ------------------------------------------------------------------

using WindowMetaOf = std::function<std::optional<WindowMeta>(int64_t)>;

// Both lanes' hits fused, times recency and access, a named time's later
// (telling) days weighed down; hits without a score, and vector-only hits
// too far from the query, dropped; the relative floor applied (not to an
// exact query). Best first. A span's windows score their importance:
// kSpanWindowImportance times the access multiplier, in the lanes' order.
inline constexpr double kSpanWindowImportance = 0.5;  // an excerpt's default importance
std::vector<index::FusedHit> RankHits(const RecallPlan& plan, const LaneHits& lanes,
                                      const index::RankingOptions& ranking, const WindowMetaOf& meta);

// ---- select ----------------------------------------------------------------

// A selected result: one window, or several overlapping ones merged.
struct WindowGroup {
  int64_t conversation_row = 0;
  std::vector<store::WindowRecord> windows;
  std::set<std::pair<int64_t, size_t>> span_keys;  // (message id, begin)
  size_t chars = 0;                                 // code points of the windows' bodies
  double score = 0;
  std::string public_id() const { return WindowPublicId(windows.front().id); }
};

struct Selection {
  std::vector<WindowGroup> groups;  // best first, at most the plan's limit
  std::unordered_map<int64_t, store::ConversationRecord> conversations;
  std::unordered_map<int64_t, store::MessageRecord> messages;  // every message the groups quote
};

// Adds a window to a group: its spans, its characters.
void AddToGroup(WindowGroup& group, store::WindowRecord window);
// Reads the conversations and messages the groups quote.
Status ReadSources(store::Database& db, Selection& selection);

// Walks the ranking: verifies exact hits, and that a window straddling a
// span has a message in it; merges a window into a group it overlaps (up to
// max_merged_chars); keeps at most per_conversation_day_cap groups per
// conversation and day unless one conversation is asked (per day, whatever
// the conversation, for a span's windows). Past the plan's limit it goes on
// for `slack` more groups, merging nothing more into the first ones (their
// text stays what it would be without the slack).
Result<Selection> SelectGroups(Namespace& ns, const RecallPlan& plan, const AllowedWindows& allowed,
                               const std::vector<index::FusedHit>& ranked, int slack = 0);

// ---- weigh -----------------------------------------------------------------

// The query's words that the archive holds, stop words left out, as the
// lexical lane chooses them.
std::unordered_set<std::string> QueryTerms(Namespace& ns, std::string_view query);

// What the owner stated goes before what was only asked about it: a user's
// question put to the assistant ("我家猫叫什么？") and the assistant's reply
// that says the asked words back ("你家猫叫糯米呀") come after the message
// that said it ("我家猫叫糯米"). A group whose every message holding a query
// term is one of those scores kAskedWeight times its score. The assistant is
// a speaker of role "assistant" without a name; between named speakers (two
// people, a character) a question and its answer are taken as said.
inline constexpr double kAskedWeight = 0.6;
// Groups selected past the limit, so that a statement just below it can move up.
inline constexpr int kAskedSlack = 3;

bool OnlyAsked(const WindowGroup& group, const std::unordered_map<int64_t, store::MessageRecord>& messages,
               const std::unordered_set<std::string>& terms);
// Weighs the groups (their messages read), sorts them best first again and
// keeps at most `limit`.
void WeighAsked(Selection& selection, const std::unordered_set<std::string>& terms, int limit);

// ---- render ----------------------------------------------------------------

// Each group's segments in conversation order, after a header, with a
// speaker label wherever the speaker changes; groups whose conversation or
// messages are gone are left out.
std::vector<RecallResult> RenderSelection(const Selection& selection, const TimeZone& tz);

// ---- join ------------------------------------------------------------------

// The excerpt lane's query for the plan, bounded as the windows are, with
// the query vector the lanes made (moved out of `lanes`): one embedder call
// a recall.
ExcerptQuery ExcerptQueryFor(const RecallPlan& plan, const AllowedWindows& allowed, LaneHits& lanes,
                             const index::RankingOptions& ranking);

// Window and excerpt results on one scale, best first, at most `limit`.
std::vector<RecallResult> JoinResults(std::vector<RecallResult> windows, std::vector<RecallResult> excerpts,
                                      int limit);
// A span's answer: windows and excerpts by score (importance), then newest
// first, at most `per_day` a local day, at most `limit`.
std::vector<RecallResult> JoinSpanResults(std::vector<RecallResult> windows, std::vector<RecallResult> excerpts,
                                          int limit, int per_day, const TimeZone& tz);

// ---- record ----------------------------------------------------------------

// Access counts and the recall log, for what made the answer only.
Status RecordRecall(Namespace& ns, const std::vector<RecallResult>& results, const Selection& selection,
                    const std::string& query);

}  // namespace cilia::memory
