#include "store/message_repo.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

namespace cilia::store {

namespace {

constexpr const char* kConversationColumns =
    "id, external_id, title, created_at, updated_at, message_count, next_seq, indexed_seq";
constexpr const char* kMessageColumns =
    "id, conversation_id, seq, caller_id, role, name, content, text, content_hash, created_at, "
    "stored_at, source";

ConversationRecord ReadConversation(const Statement& s) {
  ConversationRecord c;
  c.id = s.Int(0);
  c.external_id = s.Text(1);
  c.title = s.Text(2);
  c.created_at = s.Int(3);
  c.updated_at = s.Int(4);
  c.message_count = s.Int(5);
  c.next_seq = s.Int(6);
  c.indexed_seq = s.Int(7);
  return c;
}

// The JSON string of a text, as nlohmann::json writes it (the archive's
// content is always its dump). Invalid UTF-8 is replaced, not thrown. A
// content is left out only when it equals this, and read back as this, so
// it comes back byte for byte whatever the text holds.
std::string StringJson(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What `content` holds on disk: '' when the content is exactly the JSON
// string of the text (most messages), the verbatim JSON otherwise. '' is
// never JSON, so it cannot be mistaken for a content (0009_one_text.sql).
std::string_view StoredContent(const MessageRecord& m) {
  const std::string& c = m.content;
  if (c.size() >= m.text.size() + 2 && c.front() == '"' && c == StringJson(m.text)) {
    return std::string_view("", 0);  // not {}: a null pointer would bind SQL NULL
  }
  return c;
}

MessageRecord ReadMessage(const Statement& s) {
  MessageRecord m;
  m.id = s.Int(0);
  m.conversation_row = s.Int(1);
  m.seq = s.Int(2);
  m.caller_id = s.OptionalText(3);
  m.role = s.Text(4);
  m.name = s.Text(5);
  m.text = s.Text(7);
  m.content = s.Text(6);
  if (m.content.empty()) m.content = StringJson(m.text);
  m.content_hash = s.Text(8);
  m.created_at = s.Int(9);
  m.stored_at = s.Int(10);
  m.source = s.Text(11);
  return m;
}

}  // namespace

Result<std::optional<ConversationRecord>> MessageRepo::FindConversation(std::string_view external_id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM conversations WHERE external_id = ?",
                                                 kConversationColumns)));
  s->Bind(1, external_id);
  return s->One(ReadConversation);
}

Result<std::optional<ConversationRecord>> MessageRepo::GetConversation(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s, db_.Prepare(fmt::format("SELECT {} FROM conversations WHERE id = ?", kConversationColumns)));
  s->Bind(1, id);
  return s->One(ReadConversation);
}

Result<ConversationRecord> MessageRepo::CreateConversation(std::string_view external_id, std::string_view title,
                                                           int64_t created_at) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO conversations(external_id, title, created_at, "
                                                    "updated_at) VALUES (?, ?, ?, ?) RETURNING id"));
  s->Bind(1, external_id).Bind(2, title).Bind(3, created_at).Bind(4, created_at);
  ConversationRecord c;
  CILIA_ASSIGN_OR_RETURN(c.id, s->OneInt());
  c.external_id = std::string(external_id);
  c.title = std::string(title);
  c.created_at = c.updated_at = created_at;
  return c;
}

Status MessageRepo::SaveConversation(const ConversationRecord& c) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("UPDATE conversations SET title = ?, created_at = ?, updated_at = ?, "
                                     "message_count = ?, next_seq = ?, indexed_seq = ? WHERE id = ?"));
  s->Bind(1, c.title).Bind(2, c.created_at).Bind(3, c.updated_at).Bind(4, c.message_count);
  s->Bind(5, c.next_seq).Bind(6, c.indexed_seq).Bind(7, c.id);
  return s->Run();
}

Result<std::vector<ConversationRecord>> MessageRepo::ListConversations(
    int limit, std::optional<std::pair<int64_t, int64_t>> after) {
  Statement* s = nullptr;
  if (after) {
    CILIA_ASSIGN_OR_RETURN(s, db_.Prepare(fmt::format(
                                  "SELECT {} FROM conversations WHERE (updated_at, id) < (?, ?) "
                                  "ORDER BY updated_at DESC, id DESC LIMIT ?",
                                  kConversationColumns)));
    s->Bind(1, after->first).Bind(2, after->second).Bind(3, limit);
  } else {
    CILIA_ASSIGN_OR_RETURN(s, db_.Prepare(fmt::format(
                                  "SELECT {} FROM conversations ORDER BY updated_at DESC, id DESC LIMIT ?",
                                  kConversationColumns)));
    s->Bind(1, limit);
  }
  return s->All(ReadConversation);
}

Result<std::vector<ConversationRecord>> MessageRepo::AllConversations() {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM conversations ORDER BY id", kConversationColumns)));
  return s->All(ReadConversation);
}

Result<std::optional<MessageRecord>> MessageRepo::FindByCallerId(int64_t conversation_row,
                                                                 std::string_view caller_id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare(fmt::format(
                                            "SELECT {} FROM messages WHERE conversation_id = ? AND caller_id = ?",
                                            kMessageColumns)));
  s->Bind(1, conversation_row).Bind(2, caller_id);
  return s->One(ReadMessage);
}

Result<std::optional<MessageRecord>> MessageRepo::GetMessage(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("SELECT {} FROM messages WHERE id = ?", kMessageColumns)));
  s->Bind(1, id);
  return s->One(ReadMessage);
}

Status MessageRepo::Insert(MessageRecord& m) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(m.id ? "INSERT INTO messages(conversation_id, seq, caller_id, role, name, content, text, "
                         "content_hash, created_at, stored_at, source, id) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id"
                       : "INSERT INTO messages(conversation_id, seq, caller_id, role, name, content, text, "
                         "content_hash, created_at, stored_at, source) VALUES (?,?,?,?,?,?,?,?,?,?,?) RETURNING id"));
  s->Bind(1, m.conversation_row).Bind(2, m.seq);
  if (m.caller_id) s->Bind(3, *m.caller_id); else s->BindNull(3);
  s->Bind(4, m.role).Bind(5, m.name).Bind(6, StoredContent(m)).Bind(7, m.text).Bind(8, m.content_hash);
  s->Bind(9, m.created_at).Bind(10, m.stored_at).Bind(11, m.source);
  if (m.id) s->Bind(12, m.id);
  CILIA_ASSIGN_OR_RETURN(m.id, s->OneInt());
  return Status::Ok();
}

Status MessageRepo::Append(ConversationRecord& conv, MessageRecord& m) {
  m.conversation_row = conv.id;
  CILIA_RETURN_IF_ERROR(Insert(m));
  ++conv.message_count;
  conv.created_at = std::min(conv.created_at, m.created_at);
  conv.updated_at = std::max(conv.updated_at, m.created_at);
  return Status::Ok();
}

Result<std::vector<MessageRecord>> MessageRepo::MessagesFrom(int64_t conversation_row, int64_t from_seq, int limit) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM messages WHERE conversation_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
                              kMessageColumns)));
  s->Bind(1, conversation_row).Bind(2, from_seq).Bind(3, limit > 0 ? int64_t{limit} : std::numeric_limits<int64_t>::max());
  return s->All(ReadMessage);
}

Result<std::vector<MessageRecord>> MessageRepo::MessagesBefore(int64_t conversation_row, int64_t before_seq, int limit) {
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format("SELECT {} FROM messages WHERE conversation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
                              kMessageColumns)));
  s->Bind(1, conversation_row).Bind(2, before_seq).Bind(3, int64_t{limit});
  CILIA_ASSIGN_OR_RETURN(auto messages, s->All(ReadMessage));
  std::reverse(messages.begin(), messages.end());
  return messages;
}

Result<std::optional<MessageRecord>> MessageRepo::LastSystemMessage(int64_t conversation_row) {
  // Served by the partial index messages_system (0008_system_prompts.sql).
  CILIA_ASSIGN_OR_RETURN(
      Statement * s,
      db_.Prepare(fmt::format(
          "SELECT {} FROM messages WHERE conversation_id = ? AND role = 'system' ORDER BY seq DESC LIMIT 1",
          kMessageColumns)));
  s->Bind(1, conversation_row);
  return s->One(ReadMessage);
}

Result<int64_t> MessageRepo::CountConversations() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM conversations"));
  return s->OneInt();
}

Result<int64_t> MessageRepo::CountMessages() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM messages"));
  return s->OneInt();
}

Result<std::optional<int64_t>> MessageRepo::NewestStoredAt() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT stored_at FROM messages ORDER BY id DESC LIMIT 1"));
  std::optional<int64_t> out;
  CILIA_RETURN_IF_ERROR(s->Each([&](const Statement& r) { out = r.Int(0); }));
  return out;
}

Result<int64_t> MessageRepo::CountMessagesFrom(int64_t conversation_row, int64_t from_seq) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT count(*) FROM messages WHERE conversation_id = ? AND seq >= ?"));
  s->Bind(1, conversation_row).Bind(2, from_seq);
  return s->OneInt();
}

Result<int64_t> MessageRepo::LastMessageId() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT max(id) FROM messages"));
  return s->OneInt();
}

Result<std::vector<std::pair<int64_t, int64_t>>> MessageRepo::CountsPerQuarterHour() {
  constexpr int64_t kQuarterHourMs = 15 * 60 * 1000;
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT created_at / ?1 AS bucket, count(*) FROM messages "
                                                    "GROUP BY bucket ORDER BY bucket"));
  s->Bind(1, kQuarterHourMs);
  return s->All([](const Statement& r) { return std::pair<int64_t, int64_t>{r.Int(0) * kQuarterHourMs, r.Int(1)}; });
}

Result<std::vector<MessageRepo::ConversationSpan>> MessageRepo::ConversationsBetween(int64_t from, int64_t to) {
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare("SELECT conversation_id, count(*), min(seq), min(created_at) AS first FROM messages "
                                     "WHERE created_at >= ? AND created_at < ? GROUP BY conversation_id ORDER BY first"));
  s->Bind(1, from).Bind(2, to);
  return s->All([](const Statement& r) { return ConversationSpan{r.Int(0), r.Int(1), r.Int(2)}; });
}

Status MessageRepo::PutFile(std::string_view sha256, std::string_view mime, int64_t size, int64_t at_ms) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("INSERT INTO files(sha256, mime, size, created_at) "
                                                    "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"));
  s->Bind(1, sha256).Bind(2, mime).Bind(3, size).Bind(4, at_ms);
  return s->Run();
}

Result<std::vector<FileRecord>> MessageRepo::AllFiles() {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("SELECT sha256, mime, size, created_at FROM files ORDER BY sha256"));
  return s->All([](const Statement& r) { return FileRecord{r.Text(0), r.Text(1), r.Int(2), r.Int(3)}; });
}

Result<bool> MessageRepo::DropFileUnlessReferenced(std::string_view sha256) {
  // SQLite's instr is PostgreSQL's strpos.
  CILIA_ASSIGN_OR_RETURN(Statement * s,
                         db_.Prepare(fmt::format("DELETE FROM files WHERE sha256 = ?1 AND NOT EXISTS (SELECT 1 FROM "
                                                 "messages WHERE {0}(content, 'cilia-file:' || ?1) > 0 OR "
                                                 "(content = '' AND {0}(text, 'cilia-file:' || ?1) > 0))",
                                                 db_.dialect() == Dialect::kPostgres ? "strpos" : "instr")));
  s->Bind(1, sha256);
  CILIA_RETURN_IF_ERROR(s->Run());
  return db_.Changes() > 0;
}

Status MessageRepo::DeleteMessage(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM messages WHERE id = ?"));
  s->Bind(1, id);
  return s->Run();
}

Status MessageRepo::DeleteConversation(int64_t id) {
  CILIA_ASSIGN_OR_RETURN(Statement * s, db_.Prepare("DELETE FROM conversations WHERE id = ?"));
  s->Bind(1, id);
  return s->Run();
}

}  // namespace cilia::store
