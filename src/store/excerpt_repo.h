// L1 excerpts, their history, the candidates queue, and the extraction
// job's cursors and batch records (migration 0004). Rows only: the rules of
// who may change what live in memory/excerpts.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"
#include "store/record_values.h"
#include "store/vector_table.h"

namespace cilia::store {

// Where an excerpt's or candidate's quote is: code points [start, end) of
// one message's text.
struct QuoteSource {
  int64_t conversation_row = 0;  // row ids
  int64_t message_id = 0;
  int64_t span_start = 0;
  int64_t span_end = 0;

  bool operator==(const QuoteSource&) const = default;
};

// What an excerpt and a candidate both are: a short text resting on a quote.
struct QuotedItem {
  std::string content;
  std::string quote;
  QuoteSource source;
  std::string type = "other";
  std::optional<std::string> fact_key;
  double confidence = 1;

  bool operator==(const QuotedItem&) const = default;
};

struct ExcerptRecord : QuotedItem {
  int64_t id = 0;
  double importance = 0.5;
  std::optional<int64_t> valid_from;
  std::optional<int64_t> valid_to;
  ExcerptStatus status = ExcerptStatus::kActive;
  std::optional<int64_t> superseded_by;
  bool pinned = false;
  Author author = Author::kExtractor;
  int64_t seen_count = 1;
  int64_t access_count = 0;
  std::optional<int64_t> last_recalled;
  int64_t created_at = 0;
  int64_t updated_at = 0;
  std::string words;  // segmented content and quote

  bool operator==(const ExcerptRecord&) const = default;
};

struct HistoryRecord {
  int64_t id = 0;
  int64_t excerpt_id = 0;
  int64_t at = 0;
  Author who = Author::kExtractor;
  std::string action;
  std::optional<std::string> old_values;  // JSON object text
  std::optional<std::string> new_values;

  bool operator==(const HistoryRecord&) const = default;
};

struct CandidateRecord : QuotedItem {
  int64_t id = 0;
  std::string date;    // the model's YYYY-MM-DD, or ""
  std::string reason;  // low_confidence, protected_target, unjudged
  std::optional<int64_t> target_id;
  CandidateStatus status = CandidateStatus::kPending;
  std::optional<int64_t> result_id;
  std::optional<Author> decided_by;  // none while pending (stored as "")
  int64_t created_at = 0;
  int64_t updated_at = 0;

  bool operator==(const CandidateRecord&) const = default;
};

struct ExtractionCursor {
  int64_t conversation_row = 0;
  int64_t through_seq = 0;
  int64_t updated_at = 0;

  bool operator==(const ExtractionCursor&) const = default;
};

struct ExtractionBatch {
  int64_t id = 0;
  int64_t conversation_row = 0;
  int64_t first_seq = 0;
  int64_t end_seq = 0;
  std::string content_hash;
  int64_t attempts = 0;
  BatchStatus status = BatchStatus::kPending;
  std::string error;
  int64_t items = 0;
  int64_t created_at = 0;
  int64_t updated_at = 0;

  bool operator==(const ExtractionBatch&) const = default;
};

// What the in-memory excerpt index keeps of a row (memory/excerpt_index.h).
struct ExcerptIndexEntry {
  int64_t id = 0;
  int64_t conversation_row = 0;
  int64_t said_at = 0;  // created_at of the quoted message
  ExcerptStatus status = ExcerptStatus::kActive;
  int64_t access_count = 0;
  std::optional<int64_t> valid_from;
  std::optional<int64_t> valid_to;
  std::string words;
};

// A page of a listing, newest first: rows with id < before_id.
struct PageRequest {
  int limit = 100;
  std::optional<int64_t> before_id;
};

class ExcerptRepo {
 public:
  explicit ExcerptRepo(Database& db) : db_(db) {}

  // Inserts; sets e.id (kept when already set, for imports).
  Status Insert(ExcerptRecord& e);
  // Writes every column of the row e.id.
  Status Update(const ExcerptRecord& e);
  Result<std::optional<ExcerptRecord>> Get(int64_t id);
  Result<std::vector<ExcerptRecord>> GetMany(const std::vector<int64_t>& ids);
  // Newest first; without a status, every status.
  Result<std::vector<ExcerptRecord>> List(std::optional<ExcerptStatus> status, const PageRequest& page,
                                          std::optional<std::string_view> fact_key = std::nullopt);
  // Active excerpts with this fact_key, newest first.
  Result<std::vector<ExcerptRecord>> ActiveWithFactKey(std::string_view fact_key);
  // Excerpts quoting the message (any status).
  Result<std::vector<ExcerptRecord>> Quoting(int64_t message_id);
  // Every excerpt, by id (export, index loading).
  Status ForEach(const std::function<void(const ExcerptRecord&)>& visit);
  // Every excerpt's index entry, by id.
  Status ForEachIndexEntry(const std::function<void(const ExcerptIndexEntry&)>& visit);
  Result<std::optional<ExcerptIndexEntry>> IndexEntry(int64_t id);
  Result<int64_t> Count();
  Result<int64_t> CountWithStatus(ExcerptStatus status);
  // The row and its vector; its history stays (so a deletion can be undone).
  Status Delete(int64_t id);
  // A real recall: access count +1, last_recalled, a recall_log row.
  Status RecordRecall(int64_t id, int64_t at_ms, std::string_view query, double score);

  Status AddHistory(HistoryRecord& h);  // sets h.id (kept when set)
  Result<std::vector<HistoryRecord>> History(int64_t excerpt_id);
  Status ForEachHistory(const std::function<void(const HistoryRecord&)>& visit);

  // Vectors are stored as float16 (store/vector_table.h).
  Status PutVector(int64_t excerpt_id, std::string_view embedder, const std::vector<float>& vec);
  // Keyed by excerpt id.
  Result<std::vector<KeyedVector>> VectorsOf(std::string_view embedder);
  // VectorTable::Narrow over excerpt_vectors.
  Result<std::optional<int64_t>> NarrowVectors(int64_t after, int limit);
  // Excerpts that have no vector of `embedder` (after an import or an
  // embedder change).
  Result<std::vector<ExcerptRecord>> WithoutVector(std::string_view embedder);

  Status InsertCandidate(CandidateRecord& c);  // sets c.id (kept when set)
  Status UpdateCandidate(const CandidateRecord& c);
  Result<std::optional<CandidateRecord>> GetCandidate(int64_t id);
  // Newest first; without a status, every status.
  Result<std::vector<CandidateRecord>> ListCandidates(std::optional<CandidateStatus> status, const PageRequest& page);
  Result<int64_t> CountCandidates(CandidateStatus status);
  // A pending candidate with this source and content, if one exists: the
  // extractor does not queue the same item twice.
  Result<std::optional<CandidateRecord>> FindPendingCandidate(const QuoteSource& source, std::string_view content);
  Status ForEachCandidate(const std::function<void(const CandidateRecord&)>& visit);

  Result<std::optional<ExtractionCursor>> GetCursor(int64_t conversation_row);
  Status PutCursor(const ExtractionCursor& cursor);
  Result<std::vector<ExtractionCursor>> AllCursors();

  Result<std::optional<ExtractionBatch>> GetBatch(int64_t conversation_row, int64_t first_seq);
  // Whether a batch with this content succeeded before.
  Result<bool> SucceededBefore(std::string_view content_hash);
  Status PutBatch(ExtractionBatch& batch);  // insert or replace by (conversation, first_seq); sets id
  Result<std::vector<ExtractionBatch>> AllBatches();

  // Forget: every excerpt and candidate quoting the message (or, without
  // one, any message of the conversation), with the excerpts' history and
  // vectors. Returns the ids of the excerpts removed.
  Result<std::vector<int64_t>> DeleteQuoting(int64_t conversation_row, std::optional<int64_t> message_id);

 private:
  Database& db_;
};

}  // namespace cilia::store
