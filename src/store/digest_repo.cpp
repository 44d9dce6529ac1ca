#include "store/digest_repo.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "store/insert_sql.h"

namespace cilia::store {

namespace {

using nlohmann::json;

json EntriesJson(const std::vector<LogEntry>& entries) {
  json out = json::array();
  for (const LogEntry& e : entries) {
    json sources = json::array();
    for (const auto& [conversation, message] : e.sources) sources.push_back({conversation, message});
    out.push_back({{"text", e.text}, {"sources", std::move(sources)}});
  }
  return out;
}

std::vector<LogEntry> ParseEntries(std::string_view text) {
  std::vector<LogEntry> out;
  json entries = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!entries.is_array()) return out;
  for (const json& e : entries) {
    if (!e.is_object() || !e.contains("text") || !e["text"].is_string()) continue;
    LogEntry entry{e["text"].get<std::string>(), {}};
    for (const json& s : e.value("sources", json::array())) {
      if (s.is_array() && s.size() == 2 && s[0].is_string() && s[1].is_string()) {
        entry.sources.emplace_back(s[0].get<std::string>(), s[1].get<std::string>());
      }
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::vector<std::string> ParseStrings(std::string_view text) {
  std::vector<std::string> out;
  json items = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!items.is_array()) return out;
  for (const json& item : items) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

constexpr const char* kLogSelect = "SELECT day, title, entries, messages, model, created_at, updated_at FROM daily_logs";
constexpr const char* kDigestSelect = "SELECT id, through_day, text, model, created_at FROM digests";
constexpr const char* kRollupSelect =
    "SELECT kind, period, first_day, last_day, text, source_days, model, created_at FROM rollups";

DailyLog ReadLog(const Statement& s) {
  return {s.Text(0), s.Text(1), ParseEntries(s.TextView(2)), s.Int(3), s.Text(4), s.Int(5), s.Int(6)};
}

Digest ReadDigest(const Statement& s) { return {s.Int(0), s.Text(1), s.Text(2), s.Text(3), s.Int(4)}; }

Rollup ReadRollup(const Statement& s) {
  return {StoredValue<RollupKind>(s.Text(0)), s.Text(1), s.Text(2), s.Text(3), s.Text(4), ParseStrings(s.TextView(5)), s.Text(6), s.Int(7)};
}

}  // namespace

std::string DailyLog::Text() const {
  std::string out;
  for (const LogEntry& e : entries) {
    if (!out.empty()) out += '\n';
    out += "- " + e.text;
  }
  return out;
}

Status DigestRepo::PutLog(const DailyLog& log) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO daily_logs(day, title, entries, messages, "
                                                    "model, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
                                                    "ON CONFLICT (day) DO UPDATE SET title = excluded.title, "
                                                    "entries = excluded.entries, messages = excluded.messages, "
                                                    "model = excluded.model, created_at = excluded.created_at, "
                                                    "updated_at = excluded.updated_at"));
  s->Bind(1, log.day)
      .Bind(2, log.title)
      .Bind(3, EntriesJson(log.entries).dump())
      .Bind(4, log.messages)
      .Bind(5, log.model)
      .Bind(6, log.created_at)
      .Bind(7, log.updated_at);
  return s->Run();
}

Result<std::optional<DailyLog>> DigestRepo::GetLog(std::string_view day) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kLogSelect) + " WHERE day = ?"));
  s->Bind(1, day);
  return s->One(ReadLog);
}

Result<std::vector<DailyLog>> DigestRepo::Logs(std::string_view first_day, std::string_view last_day) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kLogSelect) +
                                                    " WHERE (?1 = '' OR day >= ?1) AND (?2 = '' OR day <= ?2) "
                                                    "ORDER BY day"));
  s->Bind(1, first_day).Bind(2, last_day);
  return s->All(ReadLog);
}

Result<std::vector<std::string>> DigestRepo::ForgetCiting(std::string_view conversation_id,
                                                          std::optional<std::string_view> message_id, UnixMs now) {
  CILIA_ASSIGN_OR_RETURN(std::vector<DailyLog> logs, Logs("", ""));
  std::vector<std::string> days;
  for (const DailyLog& log : logs) {
    const bool cites = std::any_of(log.entries.begin(), log.entries.end(), [&](const LogEntry& entry) {
      return std::any_of(entry.sources.begin(), entry.sources.end(), [&](const MessageRef& ref) {
        return ref.first == conversation_id && (!message_id || ref.second == *message_id);
      });
    });
    if (cites) days.push_back(log.day);
  }
  if (days.empty()) return days;
  const std::string& earliest = days.front();  // Logs() is by day
  for (const std::string& day : days) {
    CILIA_ASSIGN_OR_RETURN(Statement * drop, db_.Prepare("DELETE FROM daily_logs WHERE day = ?"));
    drop->Bind(1, day);
    CILIA_RETURN_IF_ERROR(drop->Run());
    CILIA_RETURN_IF_ERROR(PutItem({"day:" + day, NightlyStatus::kPending, 0, "a cited message was forgotten", now}));
  }
  // A digest revision carries what it read forward into every later one.
  CILIA_ASSIGN_OR_RETURN(Statement * digests, db_.Prepare("DELETE FROM digests WHERE through_day >= ?"));
  digests->Bind(1, earliest);
  CILIA_RETURN_IF_ERROR(digests->Run());
  CILIA_ASSIGN_OR_RETURN(std::vector<Rollup> rollups, AllRollups());
  for (const Rollup& r : rollups) {
    const bool read_one = std::any_of(r.source_days.begin(), r.source_days.end(), [&](const std::string& d) {
      return std::find(days.begin(), days.end(), d) != days.end();
    });
    if (!read_one) continue;
    CILIA_ASSIGN_OR_RETURN(Statement * drop, db_.Prepare("DELETE FROM rollups WHERE kind = ? AND period = ?"));
    drop->Bind(1, Name(r.kind)).Bind(2, r.period);
    CILIA_RETURN_IF_ERROR(drop->Run());
    CILIA_RETURN_IF_ERROR(PutItem({fmt::format("{}:{}", r.kind, r.period), NightlyStatus::kPending, 0, "a cited message was forgotten", now}));
  }
  // A day's pack shows the log of a day before it and the digest of its time.
  CILIA_ASSIGN_OR_RETURN(Statement * packs, db_.Prepare("DELETE FROM daily_packs WHERE day > ?"));
  packs->Bind(1, earliest);
  CILIA_RETURN_IF_ERROR(packs->Run());
  return days;
}

Result<std::vector<std::string>> DigestRepo::PendingDays() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT substr(item, 5) FROM nightly_items WHERE item LIKE 'day:%' "
                                                    "AND status = 'pending' ORDER BY item"));
  return s->All([](const Statement& r) { return r.Text(0); });
}

Result<int64_t> DigestRepo::AddDigest(const Digest& d) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(InsertSql("digests", "id, through_day, text, model, created_at", d.id > 0) + " RETURNING id"));
  s->Bind(1, d.through_day).Bind(2, d.text).Bind(3, d.model).Bind(4, d.created_at);
  if (d.id > 0) s->Bind(5, d.id);
  return s->OneInt();
}

Result<std::optional<Digest>> DigestRepo::LatestDigest() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kDigestSelect) + " ORDER BY id DESC LIMIT 1"));
  return s->One(ReadDigest);
}

Result<std::vector<Digest>> DigestRepo::AllDigests() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kDigestSelect) + " ORDER BY id"));
  return s->All(ReadDigest);
}

Status DigestRepo::PutRollup(const Rollup& r) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("INSERT INTO rollups(kind, period, first_day, last_day, text, source_days, model, "
                                     "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (kind, period) DO UPDATE "
                                     "SET first_day = excluded.first_day, last_day = excluded.last_day, "
                                     "text = excluded.text, source_days = excluded.source_days, "
                                     "model = excluded.model, created_at = excluded.created_at"));
  s->Bind(1, Name(r.kind))
      .Bind(2, r.period)
      .Bind(3, r.first_day)
      .Bind(4, r.last_day)
      .Bind(5, r.text)
      .Bind(6, json(r.source_days).dump())
      .Bind(7, r.model)
      .Bind(8, r.created_at);
  return s->Run();
}

Result<std::optional<Rollup>> DigestRepo::GetRollup(RollupKind kind, std::string_view period) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kRollupSelect) + " WHERE kind = ? AND period = ?"));
  s->Bind(1, Name(kind)).Bind(2, period);
  return s->One(ReadRollup);
}

Result<std::vector<Rollup>> DigestRepo::AllRollups() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kRollupSelect) + " ORDER BY kind, period"));
  return s->All(ReadRollup);
}

Result<std::optional<Rollup>> DigestRepo::LatestRollup(RollupKind kind) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(std::string(kRollupSelect) + " WHERE kind = ? ORDER BY period DESC LIMIT 1"));
  s->Bind(1, Name(kind));
  return s->One(ReadRollup);
}

Result<std::optional<NightlyItem>> DigestRepo::GetItem(std::string_view item) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT item, status, attempts, error, updated_at FROM "
                                                    "nightly_items WHERE item = ?"));
  s->Bind(1, item);
  return s->One([](const Statement& r) {
    return NightlyItem{r.Text(0), StoredValue<NightlyStatus>(r.Text(1)), static_cast<int>(r.Int(2)), r.Text(3), r.Int(4)};
  });
}

Status DigestRepo::PutItem(const NightlyItem& item) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO nightly_items(item, status, attempts, error, "
                                                    "updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (item) DO "
                                                    "UPDATE SET status = excluded.status, attempts = "
                                                    "excluded.attempts, error = excluded.error, updated_at = "
                                                    "excluded.updated_at"));
  s->Bind(1, item.item).Bind(2, Name(item.status)).Bind(3, item.attempts).Bind(4, item.error).Bind(5, item.updated_at);
  return s->Run();
}

Result<std::vector<NightlyItem>> DigestRepo::FailedItems(int limit) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT item, status, attempts, error, updated_at FROM "
                                                    "nightly_items WHERE status = 'failed' ORDER BY updated_at DESC "
                                                    "LIMIT ?"));
  s->Bind(1, limit);
  return s->All([](const Statement& r) {
    return NightlyItem{r.Text(0), StoredValue<NightlyStatus>(r.Text(1)), static_cast<int>(r.Int(2)), r.Text(3), r.Int(4)};
  });
}

Result<std::optional<std::string>> DigestRepo::GetState(std::string_view key) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT value FROM upkeep_state WHERE key = ?"));
  s->Bind(1, key);
  return s->One([](const Statement& r) { return r.Text(0); });
}

Status DigestRepo::PutState(std::string_view key, std::string_view value) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO upkeep_state(key, value) VALUES (?, ?) "
                                                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value"));
  s->Bind(1, key).Bind(2, value);
  return s->Run();
}

Result<std::optional<std::string>> DigestRepo::GetPack(std::string_view day) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT text FROM daily_packs WHERE day = ?"));
  s->Bind(1, day);
  return s->One([](const Statement& r) { return r.Text(0); });
}

Status DigestRepo::PutPack(std::string_view day, std::string_view text, UnixMs now, bool replace) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(replace ? "INSERT INTO daily_packs(day, text, created_at) "
                                                              "VALUES (?, ?, ?) ON CONFLICT (day) DO UPDATE SET "
                                                              "text = excluded.text, created_at = excluded.created_at"
                                                            : "INSERT INTO daily_packs(day, text, created_at) "
                                                              "VALUES (?, ?, ?) ON CONFLICT DO NOTHING"));
  s->Bind(1, day).Bind(2, text).Bind(3, now);
  return s->Run();
}

Result<int64_t> DigestRepo::DeletePacksBefore(std::string_view day) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM daily_packs WHERE day < ?"));
  s->Bind(1, day);
  CILIA_RETURN_IF_ERROR(s->Run());
  return int64_t{db_.Changes()};
}

Result<std::vector<DayMessage>> DigestRepo::MessagesBetween(UnixMs begin, UnixMs end) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT c.external_id, coalesce(m.caller_id, 'm_' || m.id), m.role, m.name, "
                                     "m.text, m.created_at FROM messages m JOIN conversations c ON c.id = "
                                     "m.conversation_id WHERE m.created_at >= ? AND m.created_at < ? AND m.text <> '' "
                                     "ORDER BY m.created_at, m.id"));
  s->Bind(1, begin).Bind(2, end);
  return s->All([](const Statement& r) {
    return DayMessage{r.Text(0), r.Text(1), r.Text(2), r.Text(3), r.Text(4), r.Int(5)};
  });
}

Result<std::optional<UnixMs>> DigestRepo::FirstMessageAt() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT min(created_at) FROM messages"));
  CILIA_ASSIGN_OR_RETURN(auto row, s->One([](const Statement& r) { return r.OptionalInt(0); }));
  return row.value_or(std::nullopt);
}

}  // namespace cilia::store
