#include "store/excerpt_repo.h"

#include <fmt/format.h>

#include "store/insert_sql.h"

namespace cilia::store {

namespace {

constexpr const char* kExcerptColumns =
    "id, content, quote, conversation_id, message_id, span_start, span_end, type, fact_key, confidence, importance, "
    "valid_from, valid_to, status, superseded_by, pinned, author, seen_count, access_count, last_recalled, "
    "created_at, updated_at, words";

constexpr const char* kCandidateColumns =
    "id, content, quote, conversation_id, message_id, span_start, span_end, type, fact_key, confidence, date, reason, "
    "target_id, status, result_id, decided_by, created_at, updated_at";

void BindOptional(Statement& s, int index, const std::optional<std::string>& value) {
  if (value) {
    s.Bind(index, *value);
  } else {
    s.BindNull(index);
  }
}

ExcerptRecord ReadExcerpt(const Statement& s) {
  ExcerptRecord e;
  e.id = s.Int(0);
  e.content = s.Text(1);
  e.quote = s.Text(2);
  e.source = {s.Int(3), s.Int(4), s.Int(5), s.Int(6)};
  e.type = s.Text(7);
  e.fact_key = s.OptionalText(8);
  e.confidence = s.Double(9);
  e.importance = s.Double(10);
  e.valid_from = s.OptionalInt(11);
  e.valid_to = s.OptionalInt(12);
  e.status = StoredValue<ExcerptStatus>(s.Text(13));
  e.superseded_by = s.OptionalInt(14);
  e.pinned = s.Int(15) != 0;
  e.author = StoredValue<Author>(s.Text(16));
  e.seen_count = s.Int(17);
  e.access_count = s.Int(18);
  e.last_recalled = s.OptionalInt(19);
  e.created_at = s.Int(20);
  e.updated_at = s.Int(21);
  e.words = s.Text(22);
  return e;
}

// Binds every column but id, from index 1 on; returns the next index.
int BindExcerpt(Statement& s, const ExcerptRecord& e) {
  s.Bind(1, e.content).Bind(2, e.quote).Bind(3, e.source.conversation_row).Bind(4, e.source.message_id);
  s.Bind(5, e.source.span_start).Bind(6, e.source.span_end).Bind(7, e.type);
  BindOptional(s, 8, e.fact_key);
  s.Bind(9, e.confidence).Bind(10, e.importance).Bind(11, e.valid_from).Bind(12, e.valid_to).Bind(13, Name(e.status));
  s.Bind(14, e.superseded_by).Bind(15, e.pinned ? 1 : 0).Bind(16, Name(e.author)).Bind(17, e.seen_count);
  s.Bind(18, e.access_count).Bind(19, e.last_recalled).Bind(20, e.created_at).Bind(21, e.updated_at);
  s.Bind(22, e.words);
  return 23;
}

CandidateRecord ReadCandidate(const Statement& s) {
  CandidateRecord c;
  c.id = s.Int(0);
  c.content = s.Text(1);
  c.quote = s.Text(2);
  c.source = {s.Int(3), s.Int(4), s.Int(5), s.Int(6)};
  c.type = s.Text(7);
  c.fact_key = s.OptionalText(8);
  c.confidence = s.Double(9);
  c.date = s.Text(10);
  c.reason = s.Text(11);
  c.target_id = s.OptionalInt(12);
  c.status = StoredValue<CandidateStatus>(s.Text(13));
  c.result_id = s.OptionalInt(14);
  if (std::string by = s.Text(15); !by.empty()) c.decided_by = StoredValue<Author>(by);
  c.created_at = s.Int(16);
  c.updated_at = s.Int(17);
  return c;
}

int BindCandidate(Statement& s, const CandidateRecord& c) {
  s.Bind(1, c.content).Bind(2, c.quote).Bind(3, c.source.conversation_row).Bind(4, c.source.message_id);
  s.Bind(5, c.source.span_start).Bind(6, c.source.span_end).Bind(7, c.type);
  BindOptional(s, 8, c.fact_key);
  s.Bind(9, c.confidence).Bind(10, c.date).Bind(11, c.reason).Bind(12, c.target_id).Bind(13, Name(c.status));
  s.Bind(14, c.result_id).Bind(15, NameOrEmpty(c.decided_by)).Bind(16, c.created_at).Bind(17, c.updated_at);
  return 18;
}

HistoryRecord ReadHistory(const Statement& s) {
  return {s.Int(0), s.Int(1), s.Int(2), StoredValue<Author>(s.Text(3)), s.Text(4), s.OptionalText(5), s.OptionalText(6)};
}

ExtractionBatch ReadBatch(const Statement& s) {
  ExtractionBatch b;
  b.id = s.Int(0);
  b.conversation_row = s.Int(1);
  b.first_seq = s.Int(2);
  b.end_seq = s.Int(3);
  b.content_hash = s.Text(4);
  b.attempts = s.Int(5);
  b.status = StoredValue<BatchStatus>(s.Text(6));
  b.error = s.Text(7);
  b.items = s.Int(8);
  b.created_at = s.Int(9);
  b.updated_at = s.Int(10);
  return b;
}

constexpr const char* kBatchColumns =
    "id, conversation_id, first_seq, end_seq, content_hash, attempts, status, error, items, created_at, updated_at";

// Page bounds: ids below before_id (all when none), at most limit.
void BindPage(Statement& s, int index, const PageRequest& page) {
  s.Bind(index, page.before_id.value_or(INT64_MAX)).Bind(index + 1, page.limit);
}

}  // namespace

Status ExcerptRepo::Insert(ExcerptRecord& e) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(InsertSql("excerpts", kExcerptColumns, e.id > 0) + " RETURNING id"));
  const int id_index = BindExcerpt(*s, e);
  if (e.id > 0) s->Bind(id_index, e.id);
  CILIA_ASSIGN_OR_RETURN(e.id, s->OneInt());
  return Status::Ok();
}

Status ExcerptRepo::Update(const ExcerptRecord& e) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare("UPDATE excerpts SET content = ?1, quote = ?2, conversation_id = ?3, message_id = ?4, "
                  "span_start = ?5, span_end = ?6, type = ?7, fact_key = ?8, confidence = ?9, importance = ?10, "
                  "valid_from = ?11, valid_to = ?12, status = ?13, superseded_by = ?14, pinned = ?15, author = ?16, "
                  "seen_count = ?17, access_count = ?18, last_recalled = ?19, created_at = ?20, updated_at = ?21, "
                  "words = ?22 WHERE id = ?23"));
  s->Bind(BindExcerpt(*s, e), e.id);
  return s->Run();
}

Result<std::optional<ExcerptRecord>> ExcerptRepo::Get(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM excerpts WHERE id = ?", kExcerptColumns)));
  s->Bind(1, id);
  return s->One(ReadExcerpt);
}

Result<std::vector<ExcerptRecord>> ExcerptRepo::GetMany(const std::vector<int64_t>& ids) {
  std::vector<ExcerptRecord> out;
  for (int64_t id : ids) {
    CILIA_ASSIGN_OR_RETURN(auto e, Get(id));
    if (e) out.push_back(std::move(*e));
  }
  return out;
}

Result<std::vector<ExcerptRecord>> ExcerptRepo::List(std::optional<ExcerptStatus> status, const PageRequest& page,
                                                     std::optional<std::string_view> fact_key) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format(
                                            "SELECT {} FROM excerpts WHERE id < ?1 AND (?3 = '' OR status = ?3) "
                                            "AND (CAST(?4 AS text) IS NULL OR fact_key = ?4) ORDER BY id DESC LIMIT ?2",
                                            kExcerptColumns)));
  BindPage(*s, 1, page);
  s->Bind(3, NameOrEmpty(status));
  if (fact_key) {
    s->Bind(4, *fact_key);
  } else {
    s->BindNull(4);
  }
  return s->All(ReadExcerpt);
}

Result<std::vector<ExcerptRecord>> ExcerptRepo::ActiveWithFactKey(std::string_view fact_key) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM excerpts WHERE fact_key = ? AND status = 'active' ORDER BY id DESC",
                              kExcerptColumns)));
  s->Bind(1, fact_key);
  return s->All(ReadExcerpt);
}

Result<std::vector<ExcerptRecord>> ExcerptRepo::Quoting(int64_t message_id) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM excerpts WHERE message_id = ? ORDER BY id", kExcerptColumns)));
  s->Bind(1, message_id);
  return s->All(ReadExcerpt);
}

Status ExcerptRepo::ForEach(const std::function<void(const ExcerptRecord&)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT {} FROM excerpts ORDER BY id", kExcerptColumns)));
  return s->Each([&](const Statement& row) { visit(ReadExcerpt(row)); });
}

namespace {
constexpr char kIndexEntrySelect[] =
    "SELECT e.id, e.conversation_id, m.created_at, e.status, e.access_count, e.valid_from, e.valid_to, e.words "
    "FROM excerpts e JOIN messages m ON m.id = e.message_id ";
ExcerptIndexEntry IndexEntryOf(const Statement& r) {
  return {r.Int(0), r.Int(1), r.Int(2), StoredValue<ExcerptStatus>(r.Text(3)), r.Int(4), r.OptionalInt(5), r.OptionalInt(6), r.Text(7)};
}
}  // namespace

Status ExcerptRepo::ForEachIndexEntry(const std::function<void(const ExcerptIndexEntry&)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kIndexEntrySelect) + "ORDER BY e.id"));
  return s->Each([&](const Statement& r) { visit(IndexEntryOf(r)); });
}

Result<std::optional<ExcerptIndexEntry>> ExcerptRepo::IndexEntry(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kIndexEntrySelect) + "WHERE e.id = ?"));
  s->Bind(1, id);
  std::optional<ExcerptIndexEntry> out;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& r) { out = IndexEntryOf(r); }));
  return out;
}

Result<int64_t> ExcerptRepo::Count() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM excerpts"));
  return s->OneInt();
}

Result<int64_t> ExcerptRepo::CountWithStatus(ExcerptStatus status) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM excerpts WHERE status = ?"));
  s->Bind(1, Name(status));
  return s->OneInt();
}

Status ExcerptRepo::Delete(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * row, db_.Prepare("DELETE FROM excerpts WHERE id = ?"));
  row->Bind(1, id);
  return row->Run();  // the vector goes by ON DELETE CASCADE
}

Status ExcerptRepo::RecordRecall(int64_t id, int64_t at_ms, std::string_view query, double score) {
  CILIA_ASSIGN_OR_RETURN(Statement * bump,
                         db_.Prepare("UPDATE excerpts SET access_count = access_count + 1, last_recalled = ? WHERE id = ?"));
  bump->Bind(1, at_ms).Bind(2, id);
  CILIA_RETURN_IF_ERROR(bump->Run());
  CILIA_ASSIGN_OR_RETURN(Statement * log, db_.Prepare("INSERT INTO recall_log(at, query, layer, item_id, score) "
                                                      "VALUES (?, ?, 'excerpt', ?, ?)"));
  log->Bind(1, at_ms).Bind(2, query).Bind(3, id).Bind(4, score);
  return log->Run();
}

Status ExcerptRepo::AddHistory(HistoryRecord& h) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare(InsertSql("excerpt_history", "id, excerpt_id, at, who, action, old, new", h.id > 0) +
                                 " RETURNING id"));
  s->Bind(1, h.excerpt_id).Bind(2, h.at).Bind(3, Name(h.who)).Bind(4, h.action);
  BindOptional(*s, 5, h.old_values);
  BindOptional(*s, 6, h.new_values);
  if (h.id > 0) s->Bind(7, h.id);
  CILIA_ASSIGN_OR_RETURN(h.id, s->OneInt());
  return Status::Ok();
}

Result<std::vector<HistoryRecord>> ExcerptRepo::History(int64_t excerpt_id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT id, excerpt_id, at, who, action, old, new FROM "
                                                    "excerpt_history WHERE excerpt_id = ? ORDER BY id"));
  s->Bind(1, excerpt_id);
  return s->All(ReadHistory);
}

Status ExcerptRepo::ForEachHistory(const std::function<void(const HistoryRecord&)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT id, excerpt_id, at, who, action, old, new FROM excerpt_history ORDER BY id"));
  return s->Each([&](const Statement& row) { visit(ReadHistory(row)); });
}

Status ExcerptRepo::PutVector(int64_t excerpt_id, std::string_view embedder, const std::vector<float>& vec) {
  return VectorTable::Excerpts(db_).Put(excerpt_id, embedder, vec);
}

Result<std::vector<KeyedVector>> ExcerptRepo::VectorsOf(std::string_view embedder) {
  return VectorTable::Excerpts(db_).Of(embedder);
}

Result<std::optional<int64_t>> ExcerptRepo::NarrowVectors(int64_t after, int limit) {
  return VectorTable::Excerpts(db_).Narrow(after, limit);
}

Result<std::vector<ExcerptRecord>> ExcerptRepo::WithoutVector(std::string_view embedder) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM excerpts e WHERE NOT EXISTS (SELECT 1 FROM excerpt_vectors v "
                              "WHERE v.excerpt_id = e.id AND v.embedder = ?) ORDER BY id",
                              kExcerptColumns)));
  s->Bind(1, embedder);
  return s->All(ReadExcerpt);
}

Status ExcerptRepo::InsertCandidate(CandidateRecord& c) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(InsertSql("candidates", kCandidateColumns, c.id > 0) + " RETURNING id"));
  const int id_index = BindCandidate(*s, c);
  if (c.id > 0) s->Bind(id_index, c.id);
  CILIA_ASSIGN_OR_RETURN(c.id, s->OneInt());
  return Status::Ok();
}

Status ExcerptRepo::UpdateCandidate(const CandidateRecord& c) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare("UPDATE candidates SET content = ?1, quote = ?2, conversation_id = ?3, message_id = ?4, "
                  "span_start = ?5, span_end = ?6, type = ?7, fact_key = ?8, confidence = ?9, date = ?10, "
                  "reason = ?11, target_id = ?12, status = ?13, result_id = ?14, decided_by = ?15, created_at = ?16, "
                  "updated_at = ?17 WHERE id = ?18"));
  s->Bind(BindCandidate(*s, c), c.id);
  return s->Run();
}

Result<std::optional<CandidateRecord>> ExcerptRepo::GetCandidate(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM candidates WHERE id = ?", kCandidateColumns)));
  s->Bind(1, id);
  return s->One(ReadCandidate);
}

Result<std::vector<CandidateRecord>> ExcerptRepo::ListCandidates(std::optional<CandidateStatus> status, const PageRequest& page) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM candidates WHERE id < ?1 AND (?3 = '' OR status = ?3) "
                                                 "ORDER BY id DESC LIMIT ?2",
                                                 kCandidateColumns)));
  BindPage(*s, 1, page);
  s->Bind(3, NameOrEmpty(status));
  return s->All(ReadCandidate);
}

Result<int64_t> ExcerptRepo::CountCandidates(CandidateStatus status) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM candidates WHERE status = ?"));
  s->Bind(1, Name(status));
  return s->OneInt();
}

Result<std::optional<CandidateRecord>> ExcerptRepo::FindPendingCandidate(const QuoteSource& source,
                                                                         std::string_view content) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare(fmt::format("SELECT {} FROM candidates WHERE message_id = ? AND span_start = ? AND "
                                             "span_end = ? AND content = ? AND status = 'pending' LIMIT 1",
                                             kCandidateColumns)));
  s->Bind(1, source.message_id).Bind(2, source.span_start).Bind(3, source.span_end).Bind(4, content);
  return s->One(ReadCandidate);
}

Status ExcerptRepo::ForEachCandidate(const std::function<void(const CandidateRecord&)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM candidates ORDER BY id", kCandidateColumns)));
  return s->Each([&](const Statement& row) { visit(ReadCandidate(row)); });
}

Result<std::optional<ExtractionCursor>> ExcerptRepo::GetCursor(int64_t conversation_row) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT conversation_id, through_seq, updated_at FROM "
                                                    "extraction_cursors WHERE conversation_id = ?"));
  s->Bind(1, conversation_row);
  return s->One([](const Statement& r) {
    return ExtractionCursor{r.Int(0), r.Int(1), r.Int(2)};
  });
}

Status ExcerptRepo::PutCursor(const ExtractionCursor& cursor) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO extraction_cursors(conversation_id, through_seq, "
                                                    "updated_at) VALUES (?, ?, ?) ON CONFLICT (conversation_id) "
                                                    "DO UPDATE SET through_seq = excluded.through_seq, "
                                                    "updated_at = excluded.updated_at"));
  s->Bind(1, cursor.conversation_row).Bind(2, cursor.through_seq).Bind(3, cursor.updated_at);
  return s->Run();
}

Result<std::vector<ExtractionCursor>> ExcerptRepo::AllCursors() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT conversation_id, through_seq, updated_at FROM "
                                                    "extraction_cursors ORDER BY conversation_id"));
  return s->All([](const Statement& r) { return ExtractionCursor{r.Int(0), r.Int(1), r.Int(2)}; });
}

Result<std::optional<ExtractionBatch>> ExcerptRepo::GetBatch(int64_t conversation_row, int64_t first_seq) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT {} FROM extraction_batches WHERE "
                                                                "conversation_id = ? AND first_seq = ?",
                                                                kBatchColumns)));
  s->Bind(1, conversation_row).Bind(2, first_seq);
  return s->One(ReadBatch);
}

Result<bool> ExcerptRepo::SucceededBefore(std::string_view content_hash) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT 1 FROM extraction_batches WHERE content_hash = ? AND status = 'ok' LIMIT 1"));
  s->Bind(1, content_hash);
  return s->Exists();
}

Status ExcerptRepo::PutBatch(ExtractionBatch& b) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare(InsertSql("extraction_batches", kBatchColumns, b.id > 0) +
                                 " ON CONFLICT(conversation_id, first_seq) DO UPDATE SET end_seq = excluded.end_seq, "
                                 "content_hash = excluded.content_hash, attempts = excluded.attempts, "
                                 "status = excluded.status, error = excluded.error, items = excluded.items, "
                                 "updated_at = excluded.updated_at"));
  s->Bind(1, b.conversation_row).Bind(2, b.first_seq).Bind(3, b.end_seq).Bind(4, b.content_hash).Bind(5, b.attempts);
  s->Bind(6, Name(b.status)).Bind(7, b.error).Bind(8, b.items).Bind(9, b.created_at).Bind(10, b.updated_at);
  if (b.id > 0) s->Bind(11, b.id);
  CILIA_RETURN_IF_ERROR(s->Run());
  CILIA_ASSIGN_OR_RETURN(auto stored, GetBatch(b.conversation_row, b.first_seq));
  if (stored) b.id = stored->id;
  return Status::Ok();
}

Result<std::vector<ExtractionBatch>> ExcerptRepo::AllBatches() {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM extraction_batches ORDER BY id", kBatchColumns)));
  return s->All(ReadBatch);
}

Result<std::vector<int64_t>> ExcerptRepo::DeleteQuoting(int64_t conversation_row, std::optional<int64_t> message_id) {
  const char* where = message_id ? "message_id = ?" : "conversation_id = ?";
  const int64_t key = message_id.value_or(conversation_row);
  CILIA_ASSIGN_OR_RETURN(Statement * find, db_.Prepare(fmt::format("SELECT id FROM excerpts WHERE {}", where)));
  find->Bind(1, key);
  CILIA_ASSIGN_OR_RETURN(std::vector<int64_t> ids, find->All(FirstInt));
  for (int64_t id : ids) {
    CILIA_ASSIGN_OR_RETURN(Statement * history, db_.Prepare("DELETE FROM excerpt_history WHERE excerpt_id = ?"));
    history->Bind(1, id);
    CILIA_RETURN_IF_ERROR(history->Run());
    CILIA_RETURN_IF_ERROR(Delete(id));
  }
  CILIA_ASSIGN_OR_RETURN(Statement * candidates, db_.Prepare(fmt::format("DELETE FROM candidates WHERE {}", where)));
  candidates->Bind(1, key);
  CILIA_RETURN_IF_ERROR(candidates->Run());
  return ids;
}

}  // namespace cilia::store
