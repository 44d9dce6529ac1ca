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
      ReadImportFile(ImportFixture("chatgpt_conversations.json"), ImportFormat::kChatGPT);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  return imported.ok() ? *imported : std::vector<IngestConversation>();
}

// A one-conversation export whose visible branch is `nodes` in order, each
// given as (id, message); the first node is the root.
json Export(const std::vector<std::pair<std::string, json>>& nodes) {
  json mapping = json::object();
  for (size_t i = 0; i < nodes.size(); ++i) {
    mapping[nodes[i].first] = {{"id", nodes[i].first},
                               {"message", nodes[i].second},
                               {"parent", i == 0 ? json(nullptr) : json(nodes[i - 1].first)},
                               {"children", i + 1 < nodes.size() ? json::array({nodes[i + 1].first}) : json::array()}};
  }
  return json::array({{{"title", "t"},
                       {"create_time", 1700000000.0},
                       {"mapping", mapping},
                       {"current_node", nodes.back().first},
                       {"conversation_id", "conv-1"}}});
}

json TextMessage(const std::string& role, const std::string& text) {
  return {{"author", {{"role", role}, {"name", nullptr}, {"metadata", json::object()}}},
          {"create_time", 1700000001.0},
          {"content", {{"content_type", "text"}, {"parts", json::array({text})}}},
          {"recipient", "all"},
          {"metadata", json::object()}};
}

TEST(ImportChatGPT, FollowsTheVisibleBranchInOrder) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_EQ(conversations.size(), 2u);  // the third conversation has no messages
  const IngestConversation& trip = conversations[0];
  EXPECT_EQ(trip.conversation_id, "6642f1a0-8c4b-8003-a1b2-3c4d5e6f7a80");
  EXPECT_EQ(trip.title, "周末去杭州 🏞️");
  EXPECT_EQ(trip.source, "import");
  // The regenerated-away reply, the hidden system node, the browser call and
  // the tool output are not on the visible branch or not shown.
  EXPECT_THAT(MessageIds(trip),
              ElementsAre("f3c2a1b0-2222-4d3e-8f50-6a1b8c4d3e02", "5e4d3c2b-4444-4f50-8b72-8c3d0e6f5a04",
                          "c1b2a3d4-5555-4a61-9c83-9d4e1f7a6b05", "f4e5d6c7-8888-4d94-8fb6-2a7b4c0d9e08"));
  EXPECT_THAT(MessageRoles(trip), ElementsAre("user", "assistant", "user", "assistant"));
  EXPECT_EQ(trip.messages[0].content, "我们周末去杭州吧？🚄");
  EXPECT_EQ(trip.messages[1].content, "好主意！五月的西湖很美。");
}

TEST(ImportChatGPT, KeepsImagePointersAsImageParts) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  EXPECT_EQ(conversations[0].messages[2].content,
            json::parse(R"([{"type": "image_url", "image_url": {"url": "file-service://file-Xq3vLm8Tn2Rb"}},
                            {"type": "text", "text": "这张照片是在哪里拍的？"}])"));
}

TEST(ImportChatGPT, KeepsSeveralTextPartsApart) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  EXPECT_EQ(ContentText(conversations[0].messages[3].content), "看起来是断桥残雪，\n拍得真好 📷");
}

TEST(ImportChatGPT, ConvertsCreateTimeSecondsToMilliseconds) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_FALSE(conversations.empty());
  const IngestConversation& trip = conversations[0];
  EXPECT_EQ(trip.messages[0].created_at_ms, 1715000000123);
  EXPECT_EQ(trip.messages[1].created_at_ms, 1715000005500);
  EXPECT_EQ(trip.messages[2].created_at_ms, 1715000060000);
  // The last reply has no create_time: it takes the time of the one before.
  EXPECT_EQ(trip.messages[3].created_at_ms, 1715000060000);
}

TEST(ImportChatGPT, ReadsVoiceTranscriptsAndSkipsContextAndThoughts) {
  std::vector<IngestConversation> conversations = ImportFixtureFile();
  ASSERT_EQ(conversations.size(), 2u);
  const IngestConversation& dinner = conversations[1];
  // An older export names the conversation only by "id".
  EXPECT_EQ(dinner.conversation_id, "0e2f9a41-7d3c-4b5a-9e8f-112233445566");
  EXPECT_THAT(MessageIds(dinner), ElementsAre("u-2a", "a-2b"));
  EXPECT_EQ(dinner.messages[0].content, "What should I cook tonight?");
  EXPECT_EQ(dinner.messages[1].content, "Try a quick shakshuka.");
  EXPECT_EQ(dinner.messages[1].created_at_ms, 1700000002250);
}

TEST(ImportChatGPT, ImportingTwiceGivesTheSameIds) {
  std::vector<IngestConversation> first = ImportFixtureFile();
  std::vector<IngestConversation> second = ImportFixtureFile();
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].conversation_id, second[i].conversation_id);
    EXPECT_EQ(MessageIds(first[i]), MessageIds(second[i]));
  }
}

TEST(ImportChatGPT, KeepsSystemMessagesThatSaySomething) {
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(Export(
      {{"root", nullptr}, {"s", TextMessage("system", "Always answer in 中文.")}, {"u", TextMessage("user", "hi")}}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_THAT(MessageRoles((*imported)[0]), ElementsAre("system", "user"));
}

TEST(ImportChatGPT, SkipsMessagesAddressedToATool) {
  json call = TextMessage("assistant", "search(\"weather\")");
  call["recipient"] = "browser";
  Result<std::vector<IngestConversation>> imported =
      ImportChatGPT(Export({{"u", TextMessage("user", "weather?")}, {"c", call}}));
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_THAT(MessageIds((*imported)[0]), ElementsAre("u"));
}

TEST(ImportChatGPT, AnEmptyExportImportsNothing) {
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(json::array());
  ASSERT_TRUE(imported.ok());
  EXPECT_TRUE(imported->empty());
}

TEST(ImportChatGPT, RejectsAnythingButAnArray) {
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(json::object());
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("JSON array of conversations"));
}

TEST(ImportChatGPT, NamesTheFieldOfAnUnknownRole) {
  json odd = TextMessage("user", "x");
  odd["author"]["role"] = "critic";
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(Export({{"n-1", odd}}));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(),
            "[0].mapping[\"n-1\"].message.author.role: must be one of user, assistant, system, "
            "tool");
}

TEST(ImportChatGPT, NamesAWrongTimestampType) {
  json message = TextMessage("user", "x");
  message["create_time"] = "2024-01-01";
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(Export({{"n1", message}}));
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[0].mapping.n1.message.create_time: must be a number");
}

TEST(ImportChatGPT, RejectsACurrentNodeThatIsNotInTheMapping) {
  json conversations = Export({{"a", TextMessage("user", "x")}});
  conversations[0]["current_node"] = "gone";
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(conversations);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[0].current_node: names no node of mapping");
}

TEST(ImportChatGPT, RejectsAParentChainThatLoops) {
  json conversations = Export({{"a", TextMessage("user", "x")}, {"b", TextMessage("assistant", "y")}});
  conversations[0]["mapping"]["a"]["parent"] = "b";
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(conversations);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("is its own ancestor"));
}

TEST(ImportChatGPT, OneBadConversationFailsTheWholeFile) {
  json conversations = Export({{"a", TextMessage("user", "fine")}});
  json broken = conversations[0];
  broken.erase("mapping");
  conversations.push_back(broken);
  Result<std::vector<IngestConversation>> imported = ImportChatGPT(conversations);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "[1].mapping: is required");
}

TEST(ImportChatGPT, AMalformedFileNamesItsPositionAndReturnsNothing) {
  std::string path =
      testing::WriteTempFile("conversations.json", "[\n  {\"title\": \"坏的\",\n   \"mapping\": {\"a\": }\n  }\n]\n");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kChatGPT);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith(path + ": line 3, column 21: "));
}

}  // namespace
}  // namespace cilia::ingest
