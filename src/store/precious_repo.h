// Precious passages: verbatim words the owner (or an agent for the owner)
// pins, each citing the messages it was taken from. Append-only: nothing
// edits a passage (the table refuses updates); only a forget of a cited
// message removes it. Curated data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/time.h"
#include "store/db.h"
#include "store/record_values.h"

namespace cilia::store {

inline constexpr size_t kMaxPreciousBytes = size_t{64} << 10;

struct PreciousPassage {
  int64_t id = 0;  // shown as p_<id>
  std::string content;
  std::string conversation_id;           // external id
  std::vector<std::string> message_ids;  // public ids within that conversation
  Author author = Author::kOwner;        // the owner or an agent
  UnixMs created_at = 0;
};

class PreciousRepo {
 public:
  explicit PreciousRepo(Database& db) : db_(db) {}

  // Stores the passage and returns its id: a new one when p.id is 0, else
  // p.id itself (import), which must be free.
  Result<int64_t> Append(const PreciousPassage& p);
  Result<std::optional<PreciousPassage>> Get(int64_t id);
  // Oldest first, so that a list of them is a stable prefix.
  Result<std::vector<PreciousPassage>> List();
  // Whether a passage with this content, conversation and messages exists
  // (a repeated import adds nothing).
  Result<bool> Contains(const PreciousPassage& p);
  Result<int64_t> Count();
  // Forget: the passages citing the message (a public id), or, without one,
  // every passage of the conversation. Returns how many went.
  Result<int64_t> DeleteCiting(std::string_view conversation_id, std::optional<std::string_view> message_id);

 private:
  Database& db_;
};

}  // namespace cilia::store
