// Rows of the L0 archive tables, as the repositories hand them out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cilia::store {

struct ConversationRecord {
  int64_t id = 0;
  std::string external_id;
  std::string title;
  int64_t created_at = 0;
  int64_t updated_at = 0;
  int64_t message_count = 0;
  int64_t next_seq = 0;
  int64_t indexed_seq = 0;
};

struct MessageRecord {
  int64_t id = 0;
  int64_t conversation_row = 0;
  int64_t seq = 0;
  std::optional<std::string> caller_id;
  std::string role;
  std::string name;
  // Verbatim JSON text. On disk '' when it is the JSON string of `text`
  // (0009_one_text.sql); the repository writes and reads it whole.
  std::string content;
  std::string text;
  std::string content_hash;
  int64_t created_at = 0;
  int64_t stored_at = 0;
  std::string source;
};

struct FileRecord {
  std::string sha256;
  std::string mime;
  int64_t size = 0;
  int64_t created_at = 0;
};

struct WindowRecord {
  int64_t id = 0;
  int64_t conversation_row = 0;
  int64_t first_seq = 0;
  int64_t first_segment = 0;
  int64_t last_seq = 0;
  int64_t created_at = 0;
  int64_t ended_at = 0;
  std::string spans;  // JSON [[message id, begin, end], ...]
  std::string body;
  // Derived from body for the indexes; written on insert, left empty by the
  // repository's reads (WindowRepo::ForEachMeta serves `words`).
  std::string words;
  int64_t access_count = 0;
};

}  // namespace cilia::store
