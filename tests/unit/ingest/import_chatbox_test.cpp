#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/import_test_helpers.h"
#include "ingest/importers.h"

namespace cilia::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using json = nlohmann::json;
using testing::ImportFixture;
using testing::MessageIds;
using testing::MessageRoles;

std::vector<IngestConversation> ImportFixtureFile(const std::string& name) {
  Result<std::vector<IngestConversation>> imported = ReadImportFile(ImportFixture(name), ImportFormat::kChatbox);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  return imported.ok() ? *imported : std::vector<IngestConversation>();
}

TEST(ImportChatbox, ReadsTheOlderChatSessionsArray) {
  std::vector<IngestConversation> conversations = ImportFixtureFile("chatbox_backup_v0.json");
  ASSERT_EQ(conversations.size(), 2u);
  EXPECT_EQ(conversations[0].conversation_id, "justchat-b612-406a-985b-3ab4d2c482ff");
  EXPECT_THAT(MessageRoles(conversations[0]), ElementsAre("system"));
  const IngestConversation& cat = conversations[1];
  EXPECT_EQ(cat.conversation_id, "c1e0a7d2-4b3f-4e8a-9d6c-5f2b1a0e9d8c");
  EXPECT_EQ(cat.title, "小猫起名字 🐱");
  EXPECT_EQ(cat.source, "import");
  // The failed reply with empty content is left out.
  EXPECT_THAT(MessageIds(cat),
              ElementsAre("0f9e8d7c-0001-4000-8000-aaaaaaaaaaa1", "0f9e8d7c-0002-4000-8000-aaaaaaaaaaa2",
                          "0f9e8d7c-0003-4000-8000-aaaaaaaaaaa3"));
  EXPECT_THAT(MessageRoles(cat), ElementsAre("system", "user", "assistant"));
  EXPECT_EQ(cat.messages[1].content, "帮我的小猫起个名字 🐱");
  EXPECT_EQ(cat.messages[1].created_at_ms, 1696150012345);
  EXPECT_EQ(cat.messages[2].content, "叫它“团子”怎么样？");
}

TEST(ImportChatbox, ReadsNewerSessionKeysWithContentParts) {
  std::vector<IngestConversation> conversations = ImportFixtureFile("chatbox_backup_v1.json");
  ASSERT_EQ(conversations.size(), 2u);
  const IngestConversation& stringified = conversations[0];  // keys are read in sorted order
  EXPECT_EQ(stringified.conversation_id, "2b3c4d5e-6f70-4182-93a4-b5c6d7e8f901");
  EXPECT_THAT(MessageIds(stringified), ElementsAre("s2-u", "s2-a"));
  EXPECT_EQ(stringified.messages[1].content, "still imported 👍");

  const IngestConversation& trip = conversations[1];
  EXPECT_EQ(trip.conversation_id, "8f7e6d5c-4b3a-4291-8f0e-1d2c3b4a5f6e");
  EXPECT_EQ(trip.title, "旅行清单 ✈️");
  // The older thread comes first; tool messages, image-only messages and the
  // fork are left out.
  EXPECT_THAT(MessageIds(trip), ElementsAre("t1-u", "t1-a", "m-sys", "m-u1", "m-a1"));
  EXPECT_THAT(MessageRoles(trip), ElementsAre("user", "assistant", "system", "user", "assistant"));
  EXPECT_EQ(trip.messages[1].content, "预算大约一万元。");
}

TEST(ImportChatbox, KeepsOnlyTheTextOfContentParts) {
  std::vector<IngestConversation> conversations = ImportFixtureFile("chatbox_backup_v1.json");
  ASSERT_EQ(conversations.size(), 2u);
  const IngestConversation& trip = conversations[1];
  EXPECT_EQ(trip.messages[3].content, "去东京要带什么？🗼");
  EXPECT_EQ(trip.messages[4].content, "护照、转换插头、西瓜卡。");
}

TEST(ImportChatbox, ReadsMillisecondTimestamps) {
  std::vector<IngestConversation> conversations = ImportFixtureFile("chatbox_backup_v1.json");
  ASSERT_EQ(conversations.size(), 2u);
  const IngestConversation& trip = conversations[1];
  EXPECT_EQ(trip.messages[0].created_at_ms, 1735600000000);
  EXPECT_EQ(trip.messages[4].created_at_ms, 1735689665000);
}

TEST(ImportChatbox, AnOldSessionWithoutTimesLeavesThemAbsent) {
  std::vector<IngestConversation> conversations = ImportFixtureFile("chatbox_backup_v0.json");
  ASSERT_FALSE(conversations.empty());
  EXPECT_FALSE(conversations[0].messages[0].created_at_ms.has_value());
}

TEST(ImportChatbox, RejectsAnythingButAnObject) {
  Result<std::vector<IngestConversation>> imported = ImportChatbox(json::array());
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("must be a JSON object"));
}

TEST(ImportChatbox, NamesTheFieldOfABadMessage) {
  json backup = json::parse(R"({"session:s1": {"id": "s1", "name": "x",
      "messages": [{"id": "m1", "role": "user", "contentParts": [{"type": "text", "text": "ok"}]},
                   {"id": "m2", "role": "bot", "contentParts": []}]}})");
  Result<std::vector<IngestConversation>> imported = ImportChatbox(backup);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(),
            "[\"session:s1\"].messages[1].role: must be one of user, assistant, system, tool");
}

TEST(ImportChatbox, NamesABrokenStringifiedSession) {
  json backup = {{"session:s1", "{\"id\": \"s1\", \"messages\": [}"}};
  Result<std::vector<IngestConversation>> imported = ImportChatbox(backup);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith("[\"session:s1\"]: line 1, column 27: "));
}

TEST(ImportChatbox, NamesAMissingMessageId) {
  json backup = json::parse(R"({"chat-sessions": [{"id": "s", "messages": [{"role": "user", "content": "x"}]}]})");
  Result<std::vector<IngestConversation>> imported = ImportChatbox(backup);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[\"chat-sessions\"][0].messages[0].id: is required");
}

TEST(ImportChatbox, AMalformedFileNamesItsPositionAndReturnsNothing) {
  std::string path = testing::WriteTempFile("chatbox-exported-data-2025-1-5.json",
                                            "{\"chat-sessions\": [\n{\"id\": \"s\" \"name\": 1}]}");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kChatbox);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith(path + ": line 2, column 17: "));
}

}  // namespace
}  // namespace cilia::ingest
