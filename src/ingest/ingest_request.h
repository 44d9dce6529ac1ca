// The ingest shape (CONTRACT.md "Ingest"): one conversation and its messages,
// as the API, the JSON Lines loader and every importer hand them to the archive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace cilia::ingest {

// Longest conversation id and message id, in bytes.
inline constexpr size_t kMaxIngestIdBytes = 200;

struct IngestMessage {
  std::string id;                        // the caller's id; empty when not given
  std::string role;                      // "user", "assistant" or "system"
  std::string name;                      // speaker; empty when not given
  nlohmann::json content;                // a string, or a parts array (text, image_url, image)
  std::optional<int64_t> created_at_ms;  // Unix ms; absent means "now" at store time
};

struct IngestConversation {
  std::string conversation_id;
  std::string title;           // optional
  std::string source = "api";  // api, import, gateway, mcp
  std::vector<IngestMessage> messages;
};

// Parses and validates one ingest object. Errors are InvalidArgument and start
// with the JSON path of the offending field, e.g.
// "messages[3].role: must be one of user, assistant, system".
// Strings are taken as valid UTF-8: nlohmann::json::parse (which every caller
// uses on outside bytes) already rejects anything else; Validate... checks again
// for values built in code.
Result<IngestConversation> ParseIngestRequest(const nlohmann::json& body);

// The checks ParseIngestRequest makes once the JSON types are right: ids and
// their lengths, roles, content shape, UTF-8, and that no caller id is used
// twice with different content. Importers run their output through it too.
Status ValidateIngestConversation(const IngestConversation& conversation);

// Whether a content value holds some visible text or an image, the least a
// message must carry.
bool HasTextOrImage(const nlohmann::json& content);

// The plain text of a content value: the string itself, or the text parts
// joined by "\n" (image parts contribute nothing).
std::string ContentText(const nlohmann::json& content);

// Content parts in the ingest shape, for code that builds messages.
nlohmann::json TextPart(std::string text);
nlohmann::json ImageUrlPart(std::string url);
// The content for these parts: a plain string when they are a single text
// part, the parts array otherwise, null when there are none.
nlohmann::json ContentFromParts(std::vector<nlohmann::json> parts);

}  // namespace cilia::ingest
