// Small helpers shared by the importer tests.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "ingest/ingest_request.h"
#include "test_fixtures.h"

namespace cilia::ingest::testing {

// JSON Lines of one conversation of two messages, in Chinese, on 2026-05-08 (UTC).
inline constexpr char kTripChats[] =
    "{\"conversation_id\": \"旅行\", \"title\": \"去大理\", \"messages\": ["
    "{\"id\": \"a1\", \"role\": \"user\", \"content\": \"我们下周去大理看洱海。\", \"created_at\": "
    "\"2026-05-08T10:00:00Z\"},"
    "{\"id\": \"a2\", \"role\": \"assistant\", \"content\": \"好呀，记得带外套。\", \"created_at\": "
    "\"2026-05-08T10:01:00Z\"}]}\n";

inline std::string ImportFixture(const std::string& name) { return std::string(cilia::testing::kFixturesDir) + "/import/" + name; }

// Writes `contents` to a fresh file under the test temp dir and returns its path.
inline std::string WriteTempFile(const std::string& name, const std::string& contents) {
  std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << contents;
  return path;
}

inline std::vector<std::string> MessageIds(const ingest::IngestConversation& conversation) {
  std::vector<std::string> ids;
  for (const ingest::IngestMessage& message : conversation.messages) ids.push_back(message.id);
  return ids;
}

inline std::vector<std::string> MessageRoles(const ingest::IngestConversation& conversation) {
  std::vector<std::string> roles;
  for (const ingest::IngestMessage& message : conversation.messages) roles.push_back(message.role);
  return roles;
}

}  // namespace cilia::ingest::testing
