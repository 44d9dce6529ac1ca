#include "store/profile_version_repo.h"

namespace cilia::store {

namespace {

Result<std::vector<ProfileVersion>> ReadAll(Statement* s) {
  return s->All([](const Statement& r) { return ProfileVersion{r.Int(0), r.Text(1), r.Text(2), r.Int(3)}; });
}

}  // namespace

Result<std::vector<ProfileVersion>> ProfileVersionRepo::Of(std::string_view name) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT id, name, content, updated_at FROM profile_versions "
                                                    "WHERE name = ? ORDER BY id DESC"));
  s->Bind(1, name);
  return ReadAll(s);
}

Result<std::vector<ProfileVersion>> ProfileVersionRepo::All() {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT id, name, content, updated_at FROM profile_versions ORDER BY id"));
  return ReadAll(s);
}

Status ProfileVersionRepo::Restore(const ProfileVersion& v) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("INSERT INTO profile_versions(name, content, updated_at) SELECT ?1, ?2, ?3 "
                                     "WHERE NOT EXISTS (SELECT 1 FROM profile_versions WHERE name = ?1 AND "
                                     "content = ?2 AND updated_at = ?3)"));
  s->Bind(1, v.name).Bind(2, v.content).Bind(3, v.updated_at);
  return s->Run();
}

}  // namespace cilia::store
