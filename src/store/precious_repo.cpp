#include "store/precious_repo.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "store/insert_sql.h"

namespace cilia::store {

namespace {

using nlohmann::json;

PreciousPassage ReadPassage(const Statement& s) {
  PreciousPassage p;
  p.id = s.Int(0);
  p.content = s.Text(1);
  p.conversation_id = s.Text(2);
  json ids = json::parse(s.TextView(3), nullptr, /*allow_exceptions=*/false);
  if (ids.is_array()) {
    for (const json& id : ids) {
      if (id.is_string()) p.message_ids.push_back(id.get<std::string>());
    }
  }
  p.author = StoredValue<Author>(s.Text(4));
  p.created_at = s.Int(5);
  return p;
}

constexpr const char* kSelect = "SELECT id, content, conversation_id, message_ids, author, created_at FROM precious";

}  // namespace

Result<int64_t> PreciousRepo::Append(const PreciousPassage& p) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(InsertSql("precious", "id, content, conversation_id, message_ids, author, created_at", p.id > 0) +
                  " RETURNING id"));
  s->Bind(1, p.content)
      .Bind(2, p.conversation_id)
      .Bind(3, json(p.message_ids).dump())
      .Bind(4, Name(p.author))
      .Bind(5, p.created_at);
  if (p.id > 0) s->Bind(6, p.id);
  return s->OneInt();
}

Result<int64_t> PreciousRepo::DeleteCiting(std::string_view conversation_id,
                                           std::optional<std::string_view> message_id) {
  // message_ids is a JSON array of strings in a text column on both backends.
  const char* cited = db_.dialect() == Dialect::kPostgres
                          ? "SELECT 1 FROM jsonb_array_elements_text(precious.message_ids::jsonb) AS m(value)"
                          : "SELECT 1 FROM json_each(precious.message_ids)";
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("DELETE FROM precious WHERE conversation_id = ?1 AND (CAST(?2 AS text) IS NULL OR "
                              "EXISTS ({} WHERE value = ?2))",
                              cited)));
  s->Bind(1, conversation_id);
  if (message_id)
    s->Bind(2, *message_id);
  else
    s->BindNull(2);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes();
}

Result<std::optional<PreciousPassage>> PreciousRepo::Get(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kSelect) + " WHERE id = ?"));
  s->Bind(1, id);
  return s->One(ReadPassage);
}

Result<std::vector<PreciousPassage>> PreciousRepo::List() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(std::string(kSelect) + " ORDER BY id"));
  return s->All(ReadPassage);
}

Result<bool> PreciousRepo::Contains(const PreciousPassage& p) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT 1 FROM precious WHERE content = ? AND conversation_id = ? "
                                                    "AND message_ids = ? LIMIT 1"));
  s->Bind(1, p.content).Bind(2, p.conversation_id).Bind(3, json(p.message_ids).dump());
  return s->Exists();
}

Result<int64_t> PreciousRepo::Count() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM precious"));
  return s->OneInt();
}

}  // namespace cilia::store
