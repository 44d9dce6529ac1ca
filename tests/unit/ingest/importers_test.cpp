#include "ingest/importers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/import_test_helpers.h"

namespace cilia::ingest {
namespace {

using ::testing::HasSubstr;
using testing::ImportFixture;
using testing::MessageIds;
using ::testing::StartsWith;

ImportFormat Detected(std::string_view text) {
  Result<ImportFormat> format = DetectImportFormat(text);
  EXPECT_TRUE(format.ok()) << format.status().ToString();
  return format.ok() ? *format : ImportFormat::kAuto;
}

TEST(ParseImportFormat, KnowsTheFiveFormatsAndAuto) {
  EXPECT_EQ(*ParseImportFormat("jsonl"), ImportFormat::kJsonl);
  EXPECT_EQ(*ParseImportFormat("chatgpt"), ImportFormat::kChatGPT);
  EXPECT_EQ(*ParseImportFormat("claude"), ImportFormat::kClaude);
  EXPECT_EQ(*ParseImportFormat("chatbox"), ImportFormat::kChatbox);
  EXPECT_EQ(*ParseImportFormat("sillytavern"), ImportFormat::kSillyTavern);
  EXPECT_EQ(*ParseImportFormat("auto"), ImportFormat::kAuto);
}

TEST(ParseImportFormat, ListsTheChoicesForAnUnknownName) {
  Result<ImportFormat> format = ParseImportFormat("ChatGPT");
  ASSERT_FALSE(format.ok());
  EXPECT_EQ(format.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(format.status().message(),
            "unknown import format \"ChatGPT\": expected one of jsonl, chatgpt, claude, chatbox, "
            "sillytavern");
}

TEST(ImportFormatName, RoundTripsWithParseImportFormat) {
  for (ImportFormat format : {ImportFormat::kAuto, ImportFormat::kJsonl, ImportFormat::kChatGPT, ImportFormat::kClaude,
                              ImportFormat::kChatbox, ImportFormat::kSillyTavern}) {
    EXPECT_EQ(*ParseImportFormat(ImportFormatName(format)), format);
  }
}

TEST(DetectImportFormat, TellsEveryFixtureByItsContent) {
  // Copied under neutral names, so only the content can tell them apart.
  const std::pair<const char*, ImportFormat> kFixtures[] = {
      {"ingest.jsonl", ImportFormat::kJsonl},
      {"chatgpt_conversations.json", ImportFormat::kChatGPT},
      {"claude_conversations.json", ImportFormat::kClaude},
      {"chatbox_backup_v0.json", ImportFormat::kChatbox},
      {"chatbox_backup_v1.json", ImportFormat::kChatbox},
      {"Seraphina - 2024-07-12@01h31m37s.jsonl", ImportFormat::kSillyTavern},
  };
  int n = 0;
  for (const auto& [name, format] : kFixtures) {
    std::string copy = ::testing::TempDir() + "export_" + std::to_string(n++) + ".txt";
    std::filesystem::copy_file(ImportFixture(name), copy, std::filesystem::copy_options::overwrite_existing);
    Result<std::vector<IngestConversation>> by_content = ReadImportFile(copy, ImportFormat::kAuto);
    Result<std::vector<IngestConversation>> by_name = ReadImportFile(ImportFixture(name), format);
    ASSERT_TRUE(by_content.ok()) << name << ": " << by_content.status().ToString();
    ASSERT_TRUE(by_name.ok()) << name << ": " << by_name.status().ToString();
    ASSERT_EQ(by_content->size(), by_name->size()) << name;
    for (size_t i = 0; i < by_name->size(); ++i) {
      EXPECT_EQ(MessageIds((*by_content)[i]), MessageIds((*by_name)[i])) << name;
    }
  }
}

TEST(DetectImportFormat, ReadsTheShapeOfTheData) {
  EXPECT_EQ(Detected(R"([{"title": "t", "mapping": {}, "current_node": null}])"), ImportFormat::kChatGPT);
  EXPECT_EQ(Detected(R"(  [{"uuid": "u", "chat_messages": []}])"), ImportFormat::kClaude);
  EXPECT_EQ(Detected("{\n  \"session:abc\": {\"id\": \"abc\"}\n}"), ImportFormat::kChatbox);
  EXPECT_EQ(Detected(R"({"chat-sessions": []})"), ImportFormat::kChatbox);
  EXPECT_EQ(Detected(R"({"conversation_id": "c", "messages": []})"), ImportFormat::kJsonl);
  EXPECT_EQ(Detected("{\"conversation_id\": \"c\", \"messages\": []}\n{broken"), ImportFormat::kJsonl);
  EXPECT_EQ(Detected(R"({"user_name": "You", "character_name": "Bot", "create_date": "x"})"),
            ImportFormat::kSillyTavern);
  EXPECT_EQ(Detected("{\"chat_metadata\": {}}\n{\"mes\": \"hi\"}"), ImportFormat::kSillyTavern);
  EXPECT_EQ(Detected("\xEF\xBB\xBF[{\"mapping\": {}}]"), ImportFormat::kChatGPT);
}

TEST(DetectImportFormat, SaysWhenItCannotTell) {
  EXPECT_THAT(DetectImportFormat("").status().message(), HasSubstr("empty"));
  EXPECT_THAT(DetectImportFormat("[]").status().message(), HasSubstr("nothing to import"));
  EXPECT_THAT(DetectImportFormat(R"([{"messages": []}])").status().message(), HasSubstr("neither a ChatGPT export"));
  EXPECT_THAT(DetectImportFormat(R"({"hello": "world"})").status().message(), HasSubstr("--format"));
  EXPECT_THAT(DetectImportFormat("name,role,content\n").status().message(), HasSubstr("cannot tell the format"));
}

TEST(DetectImportFormat, ABrokenArrayNamesItsPosition) {
  Result<ImportFormat> format = DetectImportFormat("[\n  {\"mapping\": }\n]");
  ASSERT_FALSE(format.ok());
  EXPECT_THAT(format.status().message(), StartsWith("line 2, column 15: "));
}

TEST(DetectImportFormat, ABrokenObjectNamesItsPosition) {
  Result<ImportFormat> format = DetectImportFormat("{\n  \"chat-sessions\": [\n  }\n");
  ASSERT_FALSE(format.ok());
  EXPECT_THAT(format.status().message(), StartsWith("line 3, column 3: "));
}

TEST(ReadImportFile, AMissingFileIsNotFoundAndNamed) {
  std::string path = ::testing::TempDir() + "no-such-export.json";
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kAuto);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), Code::kNotFound);
  EXPECT_EQ(imported.status().message(), path + ": no such file");
}

TEST(ReadImportFile, ADirectoryIsRefused) {
  Result<std::vector<IngestConversation>> imported = ReadImportFile(::testing::TempDir(), ImportFormat::kJsonl);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("is a directory"));
}

TEST(ReadImportFile, TheWrongFormatIsAnErrorNotAGuess) {
  Result<std::vector<IngestConversation>> imported =
      ReadImportFile(ImportFixture("claude_conversations.json"), ImportFormat::kChatGPT);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("[0].id: is required"));

  imported = ReadImportFile(ImportFixture("chatgpt_conversations.json"), ImportFormat::kJsonl);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), HasSubstr("line 1, column"));
}

TEST(ReadImportFile, AnErrorLateInTheFileReturnsNoConversations) {
  std::string path =
      testing::WriteTempFile("late_error.jsonl",
                             "{\"conversation_id\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"一\"}]}\n"
                             "{\"conversation_id\": \"b\", \"messages\": [{\"role\": \"user\", \"content\": \"二\"}]}\n"
                             "{\"conversation_id\": \"c\", \"messages\": [{\"role\": \"user\", \"content\": \"\"}]}\n");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kAuto);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), path + ": line 3: messages[0].content: must contain text or an image");
}

TEST(ImportText, ReadsAnUploadWithoutAFileAndABrokenOneIsInvalid) {
  Result<std::vector<IngestConversation>> imported = ImportText(
      "{\"conversation_id\": \"上传\", \"messages\": [{\"role\": \"user\", \"content\": \"你好\"}]}\n", "",
      ImportFormat::kAuto);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  ASSERT_EQ(imported->size(), 1u);
  EXPECT_EQ((*imported)[0].conversation_id, "上传");

  imported = ImportText(
      "{\"user_name\": \"A\", \"character_name\": \"B\", \"create_date\": \"2026-05-01@12h00m00s\"}\n"
      "{\"mes\": \"hi\", \"name\": \"A\", \"is_user\": true}\n",
      "my-chat", ImportFormat::kSillyTavern);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_THAT((*imported)[0].conversation_id, HasSubstr("my-chat"));

  imported = ImportText("[1, 2", "", ImportFormat::kAuto);
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace cilia::ingest
