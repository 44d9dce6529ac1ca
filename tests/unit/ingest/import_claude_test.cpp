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

std::vector<IngestConversation> ImportFixtureFile() {
  Result<std::vector<IngestConversation>> imported =
      ReadImportFile(ImportFixture("claude_conversations.json"), ImportFormat::kClaude);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  return imported.ok() ? *imported : std::vector<IngestConversation>();
}

json OneConversation(json message) {
  return json::array({{{"uuid", "c-1"},
                       {"name", "n"},
                       {"created_at", "2024-01-01T00:00:00Z"},
                       {"chat_messages", json::array({std::move(message)})}}});
}

TEST(ImportClaude, MapsConversationsAndSenders) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_EQ(conversations.size(), 2u);  // the conversation without messages is dropped
  const IngestConversation& plan = conversations[0];
  EXPECT_EQ(plan.conversation_id, "28c4e0a2-5f1b-4d8e-9a3c-7b6d5e4f3a21");
  EXPECT_EQ(plan.title, "学习计划 📚");
  EXPECT_EQ(plan.source, "import");
  EXPECT_THAT(MessageIds(plan),
              ElementsAre("5b1d9a2e-1c3f-4e5a-8b7d-0a1b2c3d4e01", "5b1d9a2e-1c3f-4e5a-8b7d-0a1b2c3d4e02",
                          "5b1d9a2e-1c3f-4e5a-8b7d-0a1b2c3d4e03"));
  EXPECT_THAT(MessageRoles(plan), ElementsAre("user", "assistant", "user"));
  EXPECT_EQ(conversations[1].title, "Haiku about rain");
  EXPECT_EQ(conversations[1].messages[1].content,
            "Soft rain on the roof\nthe kettle hums in answer\nspring is listening");
}

TEST(ImportClaude, TakesTextBlocksAndLeavesThinkingAndToolsOut) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  const json& reply = conversations[0].messages[1].content;
  EXPECT_EQ(reply, json::parse(R"([{"type": "text", "text": "好的！先定一个目标："},
                                   {"type": "text", "text": "每天学习两小时 ⏰"}])"));
  EXPECT_EQ(conversations[0].messages[0].content, "帮我做一个学习计划");
}

TEST(ImportClaude, FallsBackToTheFlatTextAndLeavesAttachmentsOut) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  EXPECT_EQ(conversations[0].messages[2].content, "谢谢！🙏");
}

TEST(ImportClaude, ReadsIsoTimesWithMicrosecondsAndOffsets) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  const IngestConversation& plan = conversations[0];
  EXPECT_EQ(plan.messages[0].created_at_ms, 1710498225987);  // 2024-03-15T10:23:45.987654Z
  EXPECT_EQ(plan.messages[1].created_at_ms, 1710498241500);
  EXPECT_EQ(plan.messages[2].created_at_ms, 1710469500000);  // 10:25:00+08:00
}

TEST(ImportClaude, AMessageWithoutTimeTakesTheConversationStart) {
  json message = {{"uuid", "m-1"}, {"sender", "human"}, {"text", "hello"}};
  Result<std::vector<IngestConversation>> imported = ImportClaude(OneConversation(message));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ((*imported)[0].messages[0].created_at_ms, 1704067200000);
}

TEST(ImportClaude, SkipsMessagesWithNothingToSay) {
  json message = {{"uuid", "m-1"},
                  {"sender", "assistant"},
                  {"text", ""},
                  {"content", json::array({{{"type", "tool_use"}, {"name", "x"}}})}};
  Result<std::vector<IngestConversation>> imported = ImportClaude(OneConversation(message));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE(imported->empty());
}

TEST(ImportClaude, NamesAnUnknownSender) {
  json message = {{"uuid", "m-1"}, {"sender", "user"}, {"text", "hi"}};
  Result<std::vector<IngestConversation>> imported = ImportClaude(OneConversation(message));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[0].chat_messages[0].sender: must be human or assistant");
}

TEST(ImportClaude, NamesAMissingUuid) {
  json message = {{"sender", "human"}, {"text", "hi"}};
  Result<std::vector<IngestConversation>> imported = ImportClaude(OneConversation(message));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[0].chat_messages[0].uuid: is required");
}

TEST(ImportClaude, NamesAnUnreadableTime) {
  json message = {{"uuid", "m-1"}, {"sender", "human"}, {"text", "hi"}, {"created_at", "昨天"}};
  Result<std::vector<IngestConversation>> imported = ImportClaude(OneConversation(message));
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith("[0].chat_messages[0].created_at: must be an RFC 3339 time"));
}

TEST(ImportClaude, RejectsAnythingButAnArray) {
  Result<std::vector<IngestConversation>> imported = ImportClaude(json::object({{"uuid", "x"}}));
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("JSON array of conversations"));
}

TEST(ImportClaude, AMalformedFileNamesItsPositionAndReturnsNothing) {
  std::string path = testing::WriteTempFile("claude_broken.json",
                                            "[{\"uuid\": \"a\", \"chat_messages\": [\n  {\"uuid\": \"b\",, }]}]");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kClaude);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith(path + ": line 2, column 16: "));
}

}  // namespace
}  // namespace cilia::ingest
