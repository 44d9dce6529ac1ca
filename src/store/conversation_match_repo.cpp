#include "store/conversation_match_repo.h"

#include <fmt/format.h>

#include "text/utf8.h"

namespace cilia::store {

namespace {

constexpr std::string_view kAsciiWhitespace = " \t\n\v\f\r";

// The indexed prefix length, in characters: SQLite's substr counts code
// points, as SubstrCodePoints does.
constexpr size_t kOpeningChars = 64;

}  // namespace

std::string_view TrimForMatch(std::string_view text) {
  const size_t begin = text.find_first_not_of(kAsciiWhitespace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kAsciiWhitespace) - begin + 1);
}

Result<std::vector<MessageMatch>> ConversationMatchRepo::FindMessages(std::string_view client_user,
                                                                      std::string_view role,
                                                                      std::string_view trimmed_text, int limit) {
  // The opening expression is the one of the messages_opening index
  // (0003_conversation_match.sql, each dialect's), character for character.
  const char* trimmed = db_.dialect() == Dialect::kPostgres ? "btrim(m.text, E' \\t\\n\\x0B\\f\\r')"
                                                            : "trim(m.text, char(9, 10, 11, 12, 13, 32))";
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare(fmt::format("SELECT m.conversation_id, m.seq, c.updated_at FROM messages m "
                                             "JOIN conversation_users u ON u.conversation_id = m.conversation_id "
                                             "JOIN conversations c ON c.id = m.conversation_id "
                                             "WHERE m.role = ?1 AND substr({0}, 1, 64) = ?2 "
                                             "AND {0} = ?3 AND u.client_user = ?4 ORDER BY m.id DESC LIMIT ?5",
                                             trimmed)));
  const std::string opening = text::SubstrCodePoints(trimmed_text, 0, kOpeningChars);
  s->Bind(1, role).Bind(2, opening).Bind(3, trimmed_text).Bind(4, client_user).Bind(5, limit);
  return s->All([](const Statement& r) { return MessageMatch{r.Int(0), r.Int(1), r.Int(2)}; });
}

Status ConversationMatchRepo::TagUser(int64_t conversation_row, std::string_view client_user) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("INSERT INTO conversation_users(conversation_id, client_user) VALUES (?, ?) "
                                     "ON CONFLICT(conversation_id) DO UPDATE SET client_user = excluded.client_user"));
  s->Bind(1, conversation_row).Bind(2, client_user);
  return s->Run();
}

}  // namespace cilia::store
