#include "store/glossary_repo.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "text/utf8.h"

namespace cilia::store {

namespace {

using nlohmann::json;

Status CheckLine(std::string_view field, std::string_view value, size_t max_chars) {
  if (size_t bad = 0; !text::IsValidUtf8(value, &bad)) {
    return Status::InvalidArgument(fmt::format("{}: invalid UTF-8 at byte {}", field, bad));
  }
  if (value.empty()) return Status::InvalidArgument(fmt::format("{}: must not be empty", field));
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return Status::InvalidArgument(fmt::format("{}: must be one line", field));
  }
  if (text::CodePointCount(value) > max_chars) {
    return Status::InvalidArgument(fmt::format("{}: at most {} characters", field, max_chars));
  }
  return Status::Ok();
}

GlossaryEntry ReadEntry(const Statement& s) {
  GlossaryEntry e;
  e.term = s.Text(0);
  json aliases = json::parse(s.TextView(1), nullptr, /*allow_exceptions=*/false);
  if (aliases.is_array()) {
    for (const json& a : aliases) {
      if (a.is_string()) e.aliases.push_back(a.get<std::string>());
    }
  }
  e.definition = s.Text(2);
  e.created_at = s.Int(3);
  e.updated_at = s.Int(4);
  return e;
}

constexpr const char* kColumns = "term, aliases, definition, created_at, updated_at";

// Terms compare regardless of ASCII case: SQLite's column is COLLATE NOCASE;
// PostgreSQL's unique index is on this expression (lower() under "C" folds
// ASCII only, as NOCASE does), which these lookups use.
constexpr const char* kPostgresTerm = "lower(term COLLATE \"C\")";

std::string TermOrder(const Database& db) { return db.dialect() == Dialect::kPostgres ? kPostgresTerm : "term"; }

std::string TermIs(const Database& db) {
  return db.dialect() == Dialect::kPostgres ? fmt::format("{} = lower(CAST(?1 AS text) COLLATE \"C\")", kPostgresTerm)
                                            : "term = ?1";
}

}  // namespace

Status CheckGlossaryEntry(const GlossaryEntry& entry) {
  CILIA_RETURN_IF_ERROR(CheckLine("term", entry.term, kMaxGlossaryTermChars));
  if (entry.aliases.size() > kMaxGlossaryAliases) {
    return Status::InvalidArgument(fmt::format("aliases: at most {}", kMaxGlossaryAliases));
  }
  for (size_t i = 0; i < entry.aliases.size(); ++i) {
    CILIA_RETURN_IF_ERROR(CheckLine(fmt::format("aliases[{}]", i), entry.aliases[i], kMaxGlossaryTermChars));
  }
  if (size_t bad = 0; !text::IsValidUtf8(entry.definition, &bad)) {
    return Status::InvalidArgument(fmt::format("definition: invalid UTF-8 at byte {}", bad));
  }
  if (entry.definition.empty()) return Status::InvalidArgument("definition: must not be empty");
  if (text::CodePointCount(entry.definition) > kMaxGlossaryDefinitionChars) {
    return Status::InvalidArgument(fmt::format("definition: at most {} characters", kMaxGlossaryDefinitionChars));
  }
  return Status::Ok();
}

Result<std::vector<GlossaryEntry>> GlossaryRepo::List() {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM glossary ORDER BY {}", kColumns, TermOrder(db_))));
  return s->All(ReadEntry);
}

Result<std::optional<GlossaryEntry>> GlossaryRepo::Get(std::string_view term) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM glossary WHERE {}", kColumns, TermIs(db_))));
  s->Bind(1, term);
  return s->One(ReadEntry);
}

Result<GlossaryEntry> GlossaryRepo::Put(const GlossaryEntry& entry, UnixMs now) {
  CILIA_RETURN_IF_ERROR(CheckGlossaryEntry(entry));
  CILIA_ASSIGN_OR_RETURN(auto old, Get(entry.term));
  GlossaryEntry stored = entry;
  stored.created_at = old ? old->created_at : now;
  stored.updated_at = now;
  CILIA_RETURN_IF_ERROR(Restore(stored));
  return stored;
}

Status GlossaryRepo::Restore(const GlossaryEntry& entry) {
  CILIA_RETURN_IF_ERROR(CheckGlossaryEntry(entry));
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(db_.dialect() == Dialect::kPostgres
                      ? fmt::format("INSERT INTO glossary({}) VALUES (?, ?, ?, ?, ?) ON CONFLICT ({}) "
                                    "DO UPDATE SET term = excluded.term, aliases = excluded.aliases, "
                                    "definition = excluded.definition, created_at = "
                                    "excluded.created_at, updated_at = excluded.updated_at",
                                    kColumns, kPostgresTerm)
                      : fmt::format("INSERT OR REPLACE INTO glossary({}) VALUES (?, ?, ?, ?, ?)", kColumns)));
  s->Bind(1, entry.term)
      .Bind(2, json(entry.aliases).dump())
      .Bind(3, entry.definition)
      .Bind(4, entry.created_at)
      .Bind(5, entry.updated_at);
  return s->Run();
}

Result<bool> GlossaryRepo::Delete(std::string_view term) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM glossary WHERE " + TermIs(db_)));
  s->Bind(1, term);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes() > 0;
}

Result<int64_t> GlossaryRepo::Count() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM glossary"));
  return s->OneInt();
}

}  // namespace cilia::store
