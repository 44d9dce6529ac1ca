// The excerpt lane of recall (DESIGN.md §5): L1 excerpts scored like
// windows — BM25 and vector lanes over the excerpt indexes, fused by the
// same weighted RRF, times recency (of the quoted message), access and
// validity — as results with layer "excerpt", ready to be merged by score
// into the archive's ranking. Only active excerpts; superseded and archived
// ones stay out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "memory/namespace.h"
#include "memory/recall/recall.h"

namespace cilia::memory {

struct ExcerptQuery {
  std::string query;         // as asked (logged with a recall)
  std::string lexical_text;  // the query without its time words
  bool exact = false;        // only excerpts whose content or quote holds `query`
  // The embedding of lexical_text when the caller has it already; nullopt:
  // embedded here.
  std::optional<std::vector<float>> query_vector;
  std::optional<int64_t> from_ms;  // said in [from, to)
  std::optional<int64_t> to_ms;
  std::optional<int64_t> conversation_row;
  UnixMs now = 0;
  int limit = 10;
  double recency_days = 0;   // 0: the namespace's ranking option
  // A question that is only a time: the excerpts said in the span, by
  // importance, then newest first, scored by their importance.
  bool span_only = false;
};

// Results best first, at most `limit`: text "[date · title]\n<content>\n
// <speaker>: <quote>", message_ids the quoted message, id "x_<n>".
// A look: no access is counted.
Result<std::vector<RecallResult>> RecallExcerpts(Namespace& ns, const ExcerptQuery& query);

// A real recall of the excerpt results among `results` (those that made
// the answer): access count +1, last_recalled, a recall_log row.
Status RecordExcerptRecalls(Namespace& ns, const std::vector<RecallResult>& results, const std::string& query);

}  // namespace cilia::memory
