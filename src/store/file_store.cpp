#include "store/file_store.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>

#include "core/env.h"
#include "store/message_repo.h"

namespace cilia::store {

namespace fs = std::filesystem;

Status FileStore::Put(Database& db, std::string_view sha256, std::string_view bytes) const {
  if (in_table()) {
    CILIA_ASSIGN_OR_RETURN(Statement * s, db.Prepare("INSERT INTO file_bytes(sha256, bytes) VALUES (?, ?) "
                                                     "ON CONFLICT (sha256) DO NOTHING"));
    return s->Bind(1, sha256).BindBlob(2, bytes.data(), bytes.size()).Run();
  }
  const std::string path = dir_ + "/" + std::string(sha256);
  if (fs::exists(path)) return Status::Ok();
  return Env::Current().WriteFileAtomically(path, bytes);
}

Result<std::string> FileStore::Get(Database& db, std::string_view sha256) const {
  if (in_table()) {
    CILIA_ASSIGN_OR_RETURN(Statement * s, db.Prepare("SELECT bytes FROM file_bytes WHERE sha256 = ?"));
    CILIA_ASSIGN_OR_RETURN(auto bytes, s->Bind(1, sha256).One([](const Statement& row) {
      return std::string(static_cast<const char*>(row.Blob(0)), static_cast<size_t>(row.BlobSize(0)));
    }));
    if (!bytes) return Status::NotFound("stored file " + std::string(sha256) + " has no bytes");
    return std::move(*bytes);
  }
  const std::string path = dir_ + "/" + std::string(sha256);
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("read " + path + ": cannot open");
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return Status::IOError("read " + path + ": failed");
  return std::move(out).str();
}

Status FileStore::RemoveUnlisted(Database& db) const {
  if (in_table()) {
    return db.Exec("DELETE FROM file_bytes b WHERE NOT EXISTS "
                   "(SELECT 1 FROM files f WHERE f.ns = b.ns AND f.sha256 = b.sha256)");
  }
  CILIA_ASSIGN_OR_RETURN(auto files, MessageRepo(db).AllFiles());
  std::unordered_set<std::string> listed;
  for (const auto& f : files) listed.insert(f.sha256);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (listed.count(entry.path().filename().string())) continue;
    std::error_code rm;
    fs::remove(entry.path(), rm);
    if (rm) return Status::IOError("remove " + entry.path().string() + ": " + rm.message());
  }
  if (ec) return Status::IOError("list " + dir_ + ": " + ec.message());
  return Status::Ok();
}

}  // namespace cilia::store
