#include "memory/recall/profile.h"

#include <utility>

namespace cilia::memory {

Result<std::vector<store::ProfileDocument>> ListProfile(Namespace& ns) {
  return ns.store().Read([](store::Database& db) { return store::ProfileRepo(db).List(); });
}

Result<std::optional<store::ProfileDocument>> FindProfileDocument(Namespace& ns, const std::string& name) {
  return ns.store().Read([&](store::Database& db) { return store::ProfileRepo(db).Get(name); });
}

Result<store::ProfileDocument> PutProfileDocument(Namespace& ns, const std::string& name, std::string content) {
  store::ProfileDocument document{name, std::move(content), ns.clock().Now()};
  CILIA_RETURN_IF_ERROR(ns.store().Write([&](store::Database& db) {
    return store::ProfileRepo(db).Put(document.name, document.content, document.updated_at);
  }));
  return document;
}

Result<bool> DeleteProfileDocument(Namespace& ns, const std::string& name) {
  return ns.store().Write([&](store::Database& db) { return store::ProfileRepo(db).Delete(name); });
}

Result<std::vector<store::ProfileVersion>> ProfileVersions(Namespace& ns, const std::string& name) {
  return ns.store().Read([&](store::Database& db) { return store::ProfileVersionRepo(db).Of(name); });
}

}  // namespace cilia::memory
