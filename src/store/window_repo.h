// L0 windows and their derived indexes: the BM25 table over segmented words,
// the trigram table for exact substrings, the Han n-gram table for 1-2
// character lookups, and the vectors. All of it can be rebuilt from messages.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "store/archive_records.h"
#include "store/db.h"
#include "store/vector_table.h"

namespace cilia::store {

// Restricts a search to a time range and/or one conversation. A window's
// time is that of its first message (the date its header shows).
struct WindowFilter {
  // A window whose messages' times reach into [from, to): it may have a
  // message there (ended_at >= from, created_at < to).
  std::optional<int64_t> from_ms;
  std::optional<int64_t> to_ms;
  std::optional<int64_t> conversation_row;
};

struct ScoredId {
  int64_t id;
  double score;  // higher is better
};

class WindowRepo {
 public:
  explicit WindowRepo(Database& db) : db_(db) {}

  Status Insert(WindowRecord& w);  // sets w.id
  // Inserts the windows with as few statements as it can (sets their ids):
  // the full-text triggers cost less per row in a multi-row INSERT, which is
  // most of what ingest spends (bench/RESULTS.md).
  Status InsertAll(std::span<WindowRecord> windows);
  Result<std::optional<WindowRecord>> Get(int64_t id);
  // The conversation's windows in order.
  Result<std::vector<WindowRecord>> ForConversation(int64_t conversation_row);
  // The conversation's last window (highest first_seq, first_segment).
  Result<std::optional<WindowRecord>> LastOf(int64_t conversation_row);
  // Windows that cover a message seq, earliest first.
  Result<std::optional<WindowRecord>> FirstCovering(int64_t conversation_row, int64_t seq);
  // Deletes the conversation's windows starting at or after (seq, segment)
  // and returns their ids.
  Result<std::vector<int64_t>> DeleteFrom(int64_t conversation_row, int64_t first_seq, int64_t first_segment);
  // Every window's catalogue entry and words, for the in-memory indexes.
  struct Meta {
    int64_t id, conversation_id, created_at, ended_at, access_count;
  };
  Status ForEachMeta(const std::function<void(const Meta&, std::string_view words)>& visit);
  // The same for window `id`; false when there is no such window.
  Result<bool> VisitMeta(int64_t id, const std::function<void(const Meta&, std::string_view words)>& visit);
  Result<int64_t> Count();
  // A real recall of the window: access count +1 and a recall_log row.
  Status RecordRecall(int64_t id, int64_t at_ms, std::string_view query, double score);

  // Candidates that may contain a text verbatim, newest first (the score is
  // the id): `match` is an expression over the trigram table (>= 3 code
  // points) or the Han n-gram table (1-2 Han characters). Newest first lets
  // FTS5 stop early instead of scoring every row of a common trigram.
  Result<std::vector<ScoredId>> SearchTrigram(const std::string& match, const WindowFilter& filter, int limit);
  Result<std::vector<ScoredId>> SearchCjk(const std::string& match, const WindowFilter& filter, int limit);
  // Every window the filter allows, through the time and conversation
  // indexes.
  Result<std::vector<int64_t>> IdsWhere(const WindowFilter& filter);
  // Windows with the most recent first, for time-only questions.
  Result<std::vector<ScoredId>> Recent(const WindowFilter& filter, int limit);

  // Vectors are stored as float16 (store/vector_table.h).
  Status PutVector(int64_t window_id, std::string_view embedder, const std::vector<float>& vec);
  // Every vector made by `embedder` (keyed by window id), for loading the
  // in-memory index.
  Result<std::vector<KeyedVector>> VectorsOf(std::string_view embedder);
  // VectorTable::Narrow over window_vectors.
  Result<std::optional<int64_t>> NarrowVectors(int64_t after, int limit);
  // How many vectors of `embedder` there are and the highest window id among
  // them: what a saved copy of the in-memory index is checked against.
  Result<std::pair<int64_t, int64_t>> VectorStats(std::string_view embedder);
  // Windows that have no vector of `embedder` yet.
  Result<std::vector<int64_t>> MissingVectors(std::string_view embedder, int limit);

  // Rewrites the full-text indexes so deleted rows leave no trace in the file.
  Status OptimizeIndexes();

 private:
  Result<std::vector<ScoredId>> SearchFts(const char* table, const std::string& match, const WindowFilter& filter,
                                          int limit);
  Result<std::vector<ScoredId>> SearchPostgres(bool cjk, const std::string& match, const WindowFilter& filter,
                                               int limit);
  Database& db_;
};

}  // namespace cilia::store
