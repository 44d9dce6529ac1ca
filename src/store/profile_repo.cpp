#include "store/profile_repo.h"

#include <fmt/format.h>

#include "text/utf8.h"

namespace cilia::store {

namespace {

ProfileDocument ReadDocument(const Statement& s) { return {s.Text(0), s.Text(1), s.Int(2)}; }

}  // namespace

bool IsValidProfileName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!alnum(name.front())) return false;
  for (char c : name) {
    if (!alnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

Status CheckProfileName(std::string_view name) {
  if (IsValidProfileName(name)) return Status::Ok();
  return Status::InvalidArgument(fmt::format(
      "name: \"{}\" is not a profile document name: 1 to 64 of a-z, 0-9, '_' and '-', starting with a letter or digit",
      text::ToValidUtf8(name)));
}

Result<std::vector<ProfileDocument>> ProfileRepo::List() {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT name, content, updated_at FROM profile_documents ORDER BY name"));
  return s->All(ReadDocument);
}

Result<std::optional<ProfileDocument>> ProfileRepo::Get(std::string_view name) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT name, content, updated_at FROM profile_documents WHERE name = ?"));
  s->Bind(1, name);
  return s->One(ReadDocument);
}

Status ProfileRepo::Put(std::string_view name, std::string_view content, UnixMs now) {
  CILIA_RETURN_IF_ERROR(CheckProfileName(name));
  if (content.size() > kMaxProfileContentBytes) {
    return Status::TooLarge(
        fmt::format("content: at most {} bytes (256 KiB), got {}", kMaxProfileContentBytes, content.size()));
  }
  if (size_t bad = 0; !text::IsValidUtf8(content, &bad)) {
    return Status::InvalidArgument(fmt::format("content: invalid UTF-8 at byte {}", bad));
  }
  // SQLite's history triggers expect the replacing INSERT; PostgreSQL's one
  // trigger keeps the old content on the upsert's UPDATE.
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(db_.dialect() == Dialect::kPostgres
                      ? "INSERT INTO profile_documents(name, content, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) "
                        "DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at"
                      : "INSERT OR REPLACE INTO profile_documents(name, content, updated_at) VALUES (?, ?, ?)"));
  s->Bind(1, name).Bind(2, content).Bind(3, now);
  return s->Run();
}

Result<bool> ProfileRepo::Delete(std::string_view name) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM profile_documents WHERE name = ?"));
  s->Bind(1, name);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes() > 0;
}

}  // namespace cilia::store
