// L2 profile documents: hand-kept markdown (persona, user, relationship,
// rules, or any other name) that the gateway puts into every turn's cached
// prefix. Curated data: only the owner (API, MCP, admin page) writes it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"

namespace cilia::store {

// A document's content may be this large; it is sent with every turn.
inline constexpr size_t kMaxProfileContentBytes = size_t{256} << 10;

struct ProfileDocument {
  std::string name;
  std::string content;
  UnixMs updated_at = 0;
};

// [a-z0-9][a-z0-9_-]{0,63}
bool IsValidProfileName(std::string_view name);
// Ok for a valid name, else an InvalidArgument naming the field `name`.
Status CheckProfileName(std::string_view name);

class ProfileRepo {
 public:
  explicit ProfileRepo(Database& db) : db_(db) {}

  // Every document, by name.
  Result<std::vector<ProfileDocument>> List();
  Result<std::optional<ProfileDocument>> Get(std::string_view name);
  // Inserts or replaces. CheckProfileName's error for a bad name;
  // InvalidArgument naming `content` for text that is not UTF-8, TooLarge
  // naming it past kMaxProfileContentBytes.
  Status Put(std::string_view name, std::string_view content, UnixMs now);
  // True when there was such a document.
  Result<bool> Delete(std::string_view name);

 private:
  Database& db_;
};

}  // namespace cilia::store
