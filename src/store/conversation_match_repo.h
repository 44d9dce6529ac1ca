// The lookups behind finding which stored conversation a chat request
// continues (memory/conversation_match.h): messages by their text, through
// the messages_opening index, and the client user a conversation belongs to.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/db.h"

namespace cilia::store {

// `text` without ASCII whitespace at either end: the form in which a resent
// message and its stored copy are compared (the index trims the same way).
std::string_view TrimForMatch(std::string_view text);

struct MessageMatch {
  int64_t conversation_row = 0;
  int64_t seq = 0;
  int64_t conversation_updated_at = 0;
};

class ConversationMatchRepo {
 public:
  explicit ConversationMatchRepo(Database& db) : db_(db) {}

  // Messages of `role` whose text, trimmed (TrimForMatch), is `trimmed_text`,
  // in conversations tagged `client_user`; newest first, at most `limit`.
  Result<std::vector<MessageMatch>> FindMessages(std::string_view client_user, std::string_view role,
                                                 std::string_view trimmed_text, int limit);

  // Tags the conversation as `client_user`'s, replacing an earlier tag.
  Status TagUser(int64_t conversation_row, std::string_view client_user);

 private:
  Database& db_;
};

}  // namespace cilia::store
