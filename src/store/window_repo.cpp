#include "store/window_repo.h"

#include <fmt/format.h>

#include <algorithm>

#include "text/segmenter.h"

namespace cilia::store {

namespace {

// Reads leave out `words`: only the in-memory index uses it (ForEachMeta),
// and it is a large part of a row's bytes, so reading them made
// every recall touch overflow pages it did not need.
constexpr const char* kWindowColumns =
    "id, conversation_id, first_seq, first_segment, last_seq, created_at, ended_at, spans, body, access_count";

WindowRecord ReadWindow(const Statement& s) {
  WindowRecord w;
  w.id = s.Int(0);
  w.conversation_row = s.Int(1);
  w.first_seq = s.Int(2);
  w.first_segment = s.Int(3);
  w.last_seq = s.Int(4);
  w.created_at = s.Int(5);
  w.ended_at = s.Int(6);
  w.spans = s.Text(7);
  w.body = s.Text(8);
  w.access_count = s.Int(9);
  return w;
}

// SQL for the filter's conditions on windows aliased `w`, and their binder.
// A window is in a span when its messages' times [created_at, ended_at]
// reach into it.
std::string FilterSql(const WindowFilter& f) {
  std::string sql;
  if (f.from_ms) sql += " AND w.ended_at >= ?";
  if (f.to_ms) sql += " AND w.created_at < ?";
  if (f.conversation_row) sql += " AND w.conversation_id = ?";
  return sql;
}

int BindFilter(Statement* s, int index, const WindowFilter& f) {
  if (f.from_ms) s->Bind(index++, *f.from_ms);
  if (f.to_ms) s->Bind(index++, *f.to_ms);
  if (f.conversation_row) s->Bind(index++, *f.conversation_row);
  return index;
}

Result<std::vector<ScoredId>> ReadScored(Statement* s) {
  return s->All([](const Statement& r) { return ScoredId{r.Int(0), r.Double(1)}; });
}

// The phrases of an FTS5 expression `"a" AND "b" ...` (index/lexical.h
// writes them), for PostgreSQL, which has no FTS5.
std::vector<std::string> Phrases(std::string_view match) {
  std::vector<std::string> out;
  for (size_t i = 0; i < match.size(); ++i) {
    if (match[i] != '"') continue;
    std::string phrase;
    for (++i; i < match.size(); ++i) {
      if (match[i] == '"') {
        if (i + 1 < match.size() && match[i + 1] == '"') {
          phrase += '"';
          ++i;
          continue;
        }
        break;
      }
      phrase += match[i];
    }
    out.push_back(std::move(phrase));
  }
  return out;
}

// An ILIKE pattern for text anywhere in the value.
std::string ContainsPattern(std::string_view text) {
  std::string out = "%";
  for (char c : text) {
    if (c == '%' || c == '_' || c == '\\') out += '\\';
    out += c;
  }
  return out + "%";
}

// The Han unigrams and bigrams of `body`, space-separated: what PostgreSQL's
// windows_cjk index holds.
std::string ShortCjkTerms(std::string_view body) {
  std::string out;
  text::ForEachShortCjkToken(body, [&](std::string_view token, bool) {
    if (!out.empty()) out += ' ';
    out += token;
  });
  return out;
}

}  // namespace

Status WindowRepo::Insert(WindowRecord& w) { return InsertAll({&w, 1}); }

Status WindowRepo::InsertAll(std::span<WindowRecord> windows) {
  // Statements are cached by text, so rows go in chunks of a fixed size and
  // one remainder: at most kChunk distinct statements ever.
  constexpr size_t kChunk = 32;
  // PostgreSQL keeps the Han n-grams as a column for its GIN index; SQLite's
  // FTS5 tokenizer reads them from body (store/cjk_tokenizer.h).
  const bool postgres = db_.dialect() == Dialect::kPostgres;
  const int columns = postgres ? 10 : 9;
  const std::string placeholders = postgres ? "?,?,?,?,?,?,?,?,?,?" : "?,?,?,?,?,?,?,?,?";
  while (!windows.empty()) {
    const size_t n = std::min(kChunk, windows.size());
    std::string sql = fmt::format(
        "INSERT INTO windows(conversation_id, first_seq, first_segment, last_seq, created_at, ended_at, spans, body, "
        "words{}) VALUES ", postgres ? ", cjk" : "");
    for (size_t i = 0; i < n; ++i) sql += fmt::format("{}({})", i == 0 ? "" : ",", placeholders);
    sql += " RETURNING id";
    CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(sql));
    for (size_t i = 0; i < n; ++i) {
      const WindowRecord& w = windows[i];
      const int at = static_cast<int>(i) * columns;
      s->Bind(at + 1, w.conversation_row).Bind(at + 2, w.first_seq).Bind(at + 3, w.first_segment);
      s->Bind(at + 4, w.last_seq).Bind(at + 5, w.created_at).Bind(at + 6, w.ended_at).Bind(at + 7, w.spans);
      s->Bind(at + 8, w.body).Bind(at + 9, w.words);
      if (postgres) s->Bind(at + 10, ShortCjkTerms(w.body));
    }
    // Ids grow row by row (SQLite's max(id)+1, PostgreSQL's identity), and
    // RETURNING promises no order: the i-th smallest is the i-th row's.
    CILIA_ASSIGN_OR_RETURN(std::vector<int64_t> ids, s->All(FirstInt));
    if (ids.size() != n) return Status::Internal(fmt::format("{} windows inserted, {} ids returned", n, ids.size()));
    std::sort(ids.begin(), ids.end());
    for (size_t i = 0; i < n; ++i) windows[i].id = ids[i];
    windows = windows.subspan(n);
  }
  return Status::Ok();
}

Result<std::optional<WindowRecord>> WindowRepo::Get(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM windows WHERE id = ?", kWindowColumns)));
  s->Bind(1, id);
  return s->One(ReadWindow);
}

Result<std::vector<WindowRecord>> WindowRepo::ForConversation(int64_t conversation_row) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format(
                                            "SELECT {} FROM windows WHERE conversation_id = ? "
                                            "ORDER BY first_seq, first_segment",
                                            kWindowColumns)));
  s->Bind(1, conversation_row);
  return s->All(ReadWindow);
}

Result<std::optional<WindowRecord>> WindowRepo::LastOf(int64_t conversation_row) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format(
                                            "SELECT {} FROM windows WHERE conversation_id = ? "
                                            "ORDER BY first_seq DESC, first_segment DESC LIMIT 1",
                                            kWindowColumns)));
  s->Bind(1, conversation_row);
  return s->One(ReadWindow);
}

Result<std::optional<WindowRecord>> WindowRepo::FirstCovering(int64_t conversation_row, int64_t seq) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format(
                                            "SELECT {} FROM windows WHERE conversation_id = ? AND first_seq <= ? "
                                            "AND last_seq >= ? ORDER BY first_seq, first_segment LIMIT 1",
                                            kWindowColumns)));
  s->Bind(1, conversation_row).Bind(2, seq).Bind(3, seq);
  return s->One(ReadWindow);
}

Result<std::vector<int64_t>> WindowRepo::DeleteFrom(int64_t conversation_row, int64_t first_seq,
                                                    int64_t first_segment) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("DELETE FROM windows WHERE conversation_id = ? AND "
                                     "(first_seq > ? OR (first_seq = ? AND first_segment >= ?)) RETURNING id"));
  s->Bind(1, conversation_row).Bind(2, first_seq).Bind(3, first_seq).Bind(4, first_segment);
  return s->All(FirstInt);
}

namespace {
constexpr char kMetaSelect[] = "SELECT id, conversation_id, created_at, ended_at, access_count, words FROM windows ";
}  // namespace

Status WindowRepo::ForEachMeta(const std::function<void(const Meta&, std::string_view words)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kMetaSelect) + "ORDER BY id"));
  return s->Each([&](const Statement& r) { visit({r.Int(0), r.Int(1), r.Int(2), r.Int(3), r.Int(4)}, r.TextView(5)); });
}

Result<bool> WindowRepo::VisitMeta(int64_t id, const std::function<void(const Meta&, std::string_view words)>& visit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kMetaSelect) + "WHERE id = ?"));
  s->Bind(1, id);
  bool found = false;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& r) {
    found = true;
    visit({r.Int(0), r.Int(1), r.Int(2), r.Int(3), r.Int(4)}, r.TextView(5));
  }));
  return found;
}

Result<int64_t> WindowRepo::Count() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM windows"));
  return s->OneInt();
}

Status WindowRepo::RecordRecall(int64_t id, int64_t at_ms, std::string_view query, double score) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("UPDATE windows SET access_count = access_count + 1, "
                                                    "last_accessed = ? WHERE id = ?"));
  s->Bind(1, at_ms).Bind(2, id);
  CILIA_RETURN_IF_ERROR(s->Run());
  CILIA_ASSIGN_OR_RETURN(Statement * log, db_.Prepare("INSERT INTO recall_log(at, query, layer, item_id, score) "
                                                      "VALUES (?, ?, 'archive', ?, ?)"));
  log->Bind(1, at_ms).Bind(2, query.substr(0, 500)).Bind(3, id).Bind(4, score);
  return log->Run();
}

Result<std::vector<ScoredId>> WindowRepo::SearchFts(const char* table, const std::string& match,
                                                    const WindowFilter& filter, int limit) {
  std::string sql;
  bool filtered = filter.from_ms || filter.to_ms || filter.conversation_row;
  if (filtered) {
    sql = fmt::format("SELECT f.rowid, f.rowid FROM {0} f JOIN windows w ON w.id = f.rowid WHERE {0} MATCH ?{1} "
                      "ORDER BY f.rowid DESC LIMIT ?",
                      table, FilterSql(filter));
  } else {
    sql = fmt::format("SELECT f.rowid, f.rowid FROM {0} f WHERE {0} MATCH ? ORDER BY f.rowid DESC LIMIT ?", table);
  }
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(sql));
  s->Bind(1, match);
  int next = BindFilter(s, 2, filter);
  s->Bind(next, limit);
  return ReadScored(s);
}

// PostgreSQL's FTS5: windows whose body holds every trigram (ILIKE, served
// by the pg_trgm index), or whose cjk terms hold the phrase (the GIN index
// over them). Candidates either way, as FTS5's are.
Result<std::vector<ScoredId>> WindowRepo::SearchPostgres(bool cjk, const std::string& match,
                                                         const WindowFilter& filter, int limit) {
  const std::vector<std::string> phrases = Phrases(match);
  if (phrases.empty()) return std::vector<ScoredId>{};
  std::string where;
  if (cjk) {
    where = "string_to_array(w.cjk, ' ') @> ARRAY[?::text]";
  } else {
    for (size_t i = 0; i < phrases.size(); ++i) where += i == 0 ? "w.body ILIKE ?" : " AND w.body ILIKE ?";
  }
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT w.id, w.id FROM windows w WHERE {}{} "
                                                                "ORDER BY w.id DESC LIMIT ?",
                                                                where, FilterSql(filter))));
  int next = 1;
  if (cjk) {
    s->Bind(next++, phrases.front());
  } else {
    for (const std::string& p : phrases) s->Bind(next++, ContainsPattern(p));
  }
  next = BindFilter(s, next, filter);
  s->Bind(next, limit);
  return ReadScored(s);
}

Result<std::vector<ScoredId>> WindowRepo::SearchTrigram(const std::string& match, const WindowFilter& filter,
                                                        int limit) {
  if (db_.dialect() == Dialect::kPostgres) return SearchPostgres(false, match, filter, limit);
  return SearchFts("windows_trigram", match, filter, limit);
}

Result<std::vector<ScoredId>> WindowRepo::SearchCjk(const std::string& match, const WindowFilter& filter,
                                                    int limit) {
  if (db_.dialect() == Dialect::kPostgres) return SearchPostgres(true, match, filter, limit);
  return SearchFts("windows_cjk", match, filter, limit);
}

Result<std::vector<int64_t>> WindowRepo::IdsWhere(const WindowFilter& filter) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT w.id FROM windows w WHERE true{}", FilterSql(filter))));
  BindFilter(s, 1, filter);
  return s->All(FirstInt);
}

Result<std::vector<ScoredId>> WindowRepo::Recent(const WindowFilter& filter, int limit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format("SELECT w.id, w.created_at FROM windows w WHERE true"
                                                                "{} ORDER BY w.created_at DESC LIMIT ?",
                                                                FilterSql(filter))));
  int next = BindFilter(s, 1, filter);
  s->Bind(next, limit);
  return ReadScored(s);
}

Status WindowRepo::PutVector(int64_t window_id, std::string_view embedder, const std::vector<float>& vec) {
  return VectorTable::Windows(db_).Put(window_id, embedder, vec);
}

Result<std::vector<KeyedVector>> WindowRepo::VectorsOf(std::string_view embedder) {
  return VectorTable::Windows(db_).Of(embedder);
}

Result<std::optional<int64_t>> WindowRepo::NarrowVectors(int64_t after, int limit) {
  return VectorTable::Windows(db_).Narrow(after, limit);
}

Result<std::pair<int64_t, int64_t>> WindowRepo::VectorStats(std::string_view embedder) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*), coalesce(max(window_id), 0) FROM "
                                                    "window_vectors WHERE embedder = ?"));
  s->Bind(1, embedder);
  CILIA_ASSIGN_OR_RETURN(auto row, s->One([](const Statement& r) { return std::pair(r.Int(0), r.Int(1)); }));
  return row.value_or(std::pair<int64_t, int64_t>{0, 0});
}

Result<std::vector<int64_t>> WindowRepo::MissingVectors(std::string_view embedder, int limit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT w.id FROM windows w LEFT JOIN window_vectors v ON v.window_id = w.id "
                                     "AND v.embedder = ? WHERE v.window_id IS NULL ORDER BY w.id LIMIT ?"));
  s->Bind(1, embedder).Bind(2, limit);
  return s->All(FirstInt);
}

Status WindowRepo::OptimizeIndexes() {
  if (db_.dialect() == Dialect::kPostgres) return Status::Ok();  // GIN merges its pending list itself
  return db_.Exec(
      "INSERT INTO windows_trigram(windows_trigram) VALUES ('optimize');"
      "INSERT INTO windows_cjk(windows_cjk) VALUES ('optimize');");
}

}  // namespace cilia::store
