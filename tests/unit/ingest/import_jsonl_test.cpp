#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/import_test_helpers.h"
#include "ingest/importers.h"

namespace cilia::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ImportFixture;
using testing::MessageIds;
using ::testing::StartsWith;

TEST(ImportJsonLines, ReadsOneIngestObjectPerLine) {
  Result<std::vector<IngestConversation>> imported =
      ReadImportFile(ImportFixture("ingest.jsonl"), ImportFormat::kJsonl);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  ASSERT_EQ(imported->size(), 2u);
  const IngestConversation& trip = (*imported)[0];
  EXPECT_EQ(trip.conversation_id, "trip-2023-05");
  EXPECT_EQ(trip.title, "Trip");
  EXPECT_EQ(trip.source, "import");
  EXPECT_THAT(MessageIds(trip), ElementsAre("D1:3", "D1:4"));
  EXPECT_EQ(trip.messages[0].name, "Caroline");
  EXPECT_EQ(trip.messages[0].created_at_ms, 1683554160000);
  EXPECT_EQ(trip.messages[1].created_at_ms, 1683554220000);
  EXPECT_EQ(ContentText(trip.messages[1].content), "那太好了！🌈");
  // The second line ends in "\r\n"; its message has no id and no time, as in the API.
  const IngestConversation& notes = (*imported)[1];
  EXPECT_EQ(notes.conversation_id, "notes");
  EXPECT_EQ(notes.messages[0].id, "");
  EXPECT_FALSE(notes.messages[0].created_at_ms.has_value());
  EXPECT_EQ(notes.messages[0].content, "没有 id 的消息");
}

TEST(ImportJsonLines, AnEmptyFileImportsNothing) {
  Result<std::vector<IngestConversation>> imported = ImportJsonLines("\n  \n");
  ASSERT_TRUE(imported.ok());
  EXPECT_TRUE(imported->empty());
}

TEST(ImportJsonLines, NamesTheLineOfAnInvalidObject) {
  std::string text;
  for (int i = 0; i < 16; ++i) {
    text += R"({"conversation_id": "c)" + std::to_string(i) + R"(", "messages": [{"role": "user", "content": "第)" +
            std::to_string(i) + "条\"}]}\n";
  }
  text += R"({"conversation_id": "c16", "messages": [{"role": "human", "content": "x"}]})";
  Result<std::vector<IngestConversation>> imported = ImportJsonLines(text);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(imported.status().message(), "line 17: messages[0].role: must be one of user, assistant, system");
}

TEST(ImportJsonLines, NamesTheLineAndColumnOfBrokenJson) {
  Result<std::vector<IngestConversation>> imported = ImportJsonLines(
      "{\"conversation_id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"x\"}]}\n"
      "\n"
      "{\"conversation_id\": \"b\", \"messages\": [}\n");
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith("line 3, column 39: "));
}

TEST(ImportJsonLines, APrettyPrintedObjectIsNotJsonLines) {
  Result<std::vector<IngestConversation>> imported =
      ImportJsonLines("{\n  \"conversation_id\": \"a\",\n  \"messages\": []\n}\n");
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith("line 1, column"));
}

TEST(ImportJsonLines, AFileErrorNamesTheFileAndReturnsNothing) {
  std::string path = testing::WriteTempFile(
      "broken_ingest.jsonl",
      "{\"conversation_id\": \"ok\", \"messages\": [{\"role\": \"user\", \"content\": \"fine\"}]}\n"
      "{\"conversation_id\": \"bad\", \"messages\": [{\"id\": 9, \"role\": \"user\", \"content\": "
      "\"x\"}]}\n");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kJsonl);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), path + ": line 2: messages[0].id: must be a string");
}

}  // namespace
}  // namespace cilia::ingest
