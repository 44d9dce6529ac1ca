// Earlier contents of the L2 profile documents. The table is written by
// triggers on profile_documents (migration 0005): every PUT that changes a
// document and every DELETE keeps what was there. Curated data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

struct ProfileVersion {
  int64_t id = 0;
  std::string name;
  std::string content;
  UnixMs updated_at = 0;  // when this content was written
};

class ProfileVersionRepo {
 public:
  explicit ProfileVersionRepo(Database& db) : db_(db) {}

  // The document's earlier contents, newest first.
  Result<std::vector<ProfileVersion>> Of(std::string_view name);
  // Every version of every document, oldest first.
  Result<std::vector<ProfileVersion>> All();
  // Stores an exported version unless one with the same name, content and
  // time is there already (a repeated import adds nothing).
  Status Restore(const ProfileVersion& v);

 private:
  Database& db_;
};

}  // namespace cilia::store
