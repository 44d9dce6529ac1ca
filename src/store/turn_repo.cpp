#include "store/turn_repo.h"

#include <fmt/format.h>

#include <algorithm>

namespace cilia::store {

namespace {

using nlohmann::json;

constexpr const char* kTurnColumns =
    "id, started_at, local_day, conversation_id, endpoint, requested_model, upstream_model, streamed, "
    "http_status, error, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, first_byte_ms, "
    "total_ms, recall_rounds, injected, reasoning_tokens";

TurnRecord ReadTurn(const Statement& s) {
  TurnRecord r;
  r.id = s.Int(0);
  r.started_at = s.Int(1);
  r.local_day = s.Text(2);
  r.conversation_id = s.Text(3);
  r.endpoint = s.Text(4);
  r.requested_model = s.Text(5);
  r.upstream_model = s.Text(6);
  r.streamed = s.Int(7) != 0;
  r.http_status = static_cast<int>(s.Int(8));
  r.error = s.Text(9);
  r.input_tokens = s.Int(10);
  r.output_tokens = s.Int(11);
  r.cache_read_tokens = s.Int(12);
  r.cache_write_tokens = s.Int(13);
  r.first_byte_ms = s.Int(14);
  r.total_ms = s.Int(15);
  r.recall_rounds = static_cast<int>(s.Int(16));
  // Only Append writes this column, always valid JSON; a row edited by hand
  // into something else reads as nothing injected.
  json injected = json::parse(s.TextView(17), nullptr, /*allow_exceptions=*/false);
  if (!injected.is_discarded()) r.injected = std::move(injected);
  r.reasoning_tokens = s.Int(18);
  return r;
}

// Runs `body` so that it happens whole or not at all: in a savepoint of the
// caller's transaction, or in a transaction of its own (PostgreSQL has no
// savepoint outside one).
template <typename F>
Status Atomically(Database& db, F&& body) {
  if (!db.InTransaction()) {
    Transaction tx(db);
    CILIA_RETURN_IF_ERROR(tx.Begin());
    CILIA_RETURN_IF_ERROR(body());
    return tx.Commit();
  }
  CILIA_RETURN_IF_ERROR(db.Exec("SAVEPOINT turn_repo"));
  Status st = body();
  if (st.ok()) st = db.Exec("RELEASE turn_repo");
  if (!st.ok()) {
    (void)db.Exec("ROLLBACK TO turn_repo");
    (void)db.Exec("RELEASE turn_repo");
  }
  return st;
}

}  // namespace

Result<int64_t> TurnRepo::Append(const TurnRecord& r) {
  int64_t id = 0;
  Status stored = Atomically(db_, [&]() -> Status {
    CILIA_ASSIGN_OR_RETURN(Statement * insert,
                           db_.Prepare(fmt::format(
                               "INSERT INTO turns({}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id",
                               kTurnColumns + 4)));  // all but the id
    insert->Bind(1, r.started_at).Bind(2, r.local_day).Bind(3, r.conversation_id).Bind(4, r.endpoint);
    insert->Bind(5, r.requested_model).Bind(6, r.upstream_model).Bind(7, r.streamed ? 1 : 0);
    insert->Bind(8, r.http_status).Bind(9, r.error).Bind(10, r.input_tokens).Bind(11, r.output_tokens);
    insert->Bind(12, r.cache_read_tokens).Bind(13, r.cache_write_tokens).Bind(14, r.first_byte_ms);
    insert->Bind(15, r.total_ms).Bind(16, r.recall_rounds);
    // Text the gateway quoted may hold broken UTF-8; dump() would throw on it.
    insert->Bind(17, r.injected.dump(-1, ' ', false, json::error_handler_t::replace));
    insert->Bind(18, r.reasoning_tokens);
    CILIA_ASSIGN_OR_RETURN(id, insert->OneInt());
    CILIA_ASSIGN_OR_RETURN(Statement * source, db_.Prepare("INSERT INTO turn_sources(turn_id, position, "
                                                           "conversation_id, message_id) VALUES (?, ?, ?, ?)"));
    for (size_t i = 0; i < r.sources.size(); ++i) {
      source->Reset();
      source->Bind(1, id).Bind(2, static_cast<int64_t>(i)).Bind(3, r.sources[i].first).Bind(4, r.sources[i].second);
      CILIA_RETURN_IF_ERROR(source->Run());
    }
    return Status::Ok();
  });
  CILIA_RETURN_IF_ERROR(stored);
  return id;
}

Result<std::vector<TurnRecord>> TurnRepo::List(std::optional<std::string> conversation_id,
                                               std::optional<int64_t> before_id, int limit) {
  // Only the parameters used: PostgreSQL cannot type one the text leaves out.
  std::string where = "true";
  if (conversation_id) where += " AND conversation_id = ?";
  if (before_id) where += " AND id < ?";
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM turns WHERE {} ORDER BY id DESC LIMIT ?", kTurnColumns, where)));
  int next = 1;
  if (conversation_id) s->Bind(next++, *conversation_id);
  if (before_id) s->Bind(next++, *before_id);
  s->Bind(next, std::max(limit, 0));
  CILIA_ASSIGN_OR_RETURN(std::vector<TurnRecord> turns, s->All(ReadTurn));
  for (TurnRecord& turn : turns) {
    CILIA_ASSIGN_OR_RETURN(turn.sources, SourcesOf(turn.id));
  }
  return turns;
}

Result<std::vector<std::pair<std::string, std::string>>> TurnRepo::SourcesOf(int64_t turn_id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT conversation_id, message_id FROM turn_sources "
                                                    "WHERE turn_id = ? ORDER BY position"));
  s->Bind(1, turn_id);
  return s->All([](const Statement& r) { return std::pair(r.Text(0), r.Text(1)); });
}

Result<std::vector<TurnRepo::CacheStats>> TurnRepo::CacheStatsSince(std::string_view first_day) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare("SELECT local_day, upstream_model, count(*), sum(input_tokens), sum(output_tokens), "
                                 "sum(cache_read_tokens), sum(cache_write_tokens) FROM turns "
                                 "WHERE local_day >= ? AND http_status BETWEEN 200 AND 299 AND error = '' "
                                 "GROUP BY local_day, upstream_model ORDER BY local_day, upstream_model"));
  s->Bind(1, first_day);
  return s->All([](const Statement& r) {
    CacheStats day{r.Text(0), r.Text(1), r.Int(2), r.Int(3), r.Int(4), r.Int(5), r.Int(6), 0.0};
    if (day.input_tokens > 0) day.hit_rate = static_cast<double>(day.cache_read_tokens) / day.input_tokens;
    return day;
  });
}

Result<std::vector<TurnRepo::Usage>> TurnRepo::UsageSince(std::string_view first_day) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare("SELECT local_day, upstream_model, count(*), "
                  "sum(CASE WHEN http_status BETWEEN 200 AND 299 AND error = '' THEN 0 ELSE 1 END), "
                  "sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), sum(cache_write_tokens), "
                  "sum(reasoning_tokens), sum(recall_rounds), "
                  "coalesce(avg(CASE WHEN first_byte_ms >= 0 THEN first_byte_ms END), -1), "
                  "avg(total_ms), max(total_ms) FROM turns WHERE local_day >= ? "
                  "GROUP BY local_day, upstream_model ORDER BY local_day, upstream_model"));
  s->Bind(1, first_day);
  return s->All([](const Statement& r) {
    return Usage{r.Text(0), r.Text(1), r.Int(2), r.Int(3),    r.Int(4),     r.Int(5),     r.Int(6),
                 r.Int(7),  r.Int(8),  r.Int(9), r.Double(10), r.Double(11), r.Int(12)};
  });
}

Status TurnRepo::Scrub(std::string_view turn_ids, std::string_view conversation_id,
                       std::optional<std::string_view> message_id) {
  // Sources are read by the first statement and dropped by the second.
  for (const std::string& sql :
       {fmt::format("UPDATE turns SET injected = '{0}' WHERE injected != '{0}' AND id IN ({1})", kForgottenInjected,
                    turn_ids),
        fmt::format("DELETE FROM turn_sources WHERE turn_id IN ({})", turn_ids)}) {
    CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(sql));
    s->Bind(1, conversation_id);
    if (message_id) s->Bind(2, *message_id);
    CILIA_RETURN_IF_ERROR(s->Run());
  }
  return Status::Ok();
}

Status TurnRepo::ForgetMessage(std::string_view conversation_id, std::string_view message_id) {
  return Atomically(db_, [&] {
    return Scrub(
        "SELECT id FROM turns WHERE conversation_id = ?1 "
        "UNION SELECT turn_id FROM turn_sources WHERE conversation_id = ?1 AND message_id = ?2",
        conversation_id, message_id);
  });
}

Status TurnRepo::ForgetConversation(std::string_view conversation_id) {
  return Atomically(db_, [&]() -> Status {
    CILIA_RETURN_IF_ERROR(
        Scrub("SELECT turn_id FROM turn_sources WHERE conversation_id = ?1", conversation_id, std::nullopt));
    CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM turns WHERE conversation_id = ?"));
    s->Bind(1, conversation_id);
    return s->Run();
  });
}

Result<int64_t> TurnRepo::DeleteBefore(UnixMs before) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM turns WHERE started_at < ?"));
  s->Bind(1, before);
  CILIA_RETURN_IF_ERROR(s->Run());
  return int64_t{db_.Changes()};
}

}  // namespace cilia::store
