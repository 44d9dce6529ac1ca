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
using testing::MessageRoles;
using ::testing::StartsWith;

constexpr char kFixture[] = "Seraphina - 2024-07-12@01h31m37s.jsonl";
constexpr char kHeader[] = R"({"user_name": "You", "character_name": "Bot", "chat_metadata": {}})";

IngestConversation ImportFixtureFile() {
  Result<std::vector<IngestConversation>> imported =
      ReadImportFile(ImportFixture(kFixture), ImportFormat::kSillyTavern);
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  if (!imported.ok() || imported->size() != 1) return {};
  return (*imported)[0];
}

// The time a one-message chat gives its message when sent at `send_date`
// (a JSON value); nullopt when it has none.
std::optional<int64_t> TimeOf(const std::string& send_date) {
  std::string text = std::string(kHeader) + "\n" + R"({"name": "Bot", "is_user": false, "mes": "x", "send_date": )" +
                     send_date + "}\n";
  Result<std::vector<IngestConversation>> imported = ImportSillyTavern(text, "chat");
  EXPECT_TRUE(imported.ok()) << imported.status().ToString();
  if (!imported.ok() || imported->empty()) return std::nullopt;
  return (*imported)[0].messages[0].created_at_ms;
}

TEST(ImportSillyTavern, NamesTheChatAfterTheFileAndItsCreateDate) {
  IngestConversation chat = ImportFixtureFile();
  EXPECT_EQ(chat.conversation_id, "Seraphina - 2024-07-12@01h31m37s:2024-07-12@01h31m37s");
  EXPECT_EQ(chat.title, "Seraphina - 2024-07-12@01h31m37s");
  EXPECT_EQ(chat.source, "import");
}

TEST(ImportSillyTavern, MapsSpeakersAndNumbersMessagesByLine) {
  IngestConversation chat = ImportFixtureFile();
  // Line 6 is a comment (an is_system note): left out.
  EXPECT_THAT(MessageIds(chat), ElementsAre("m2", "m3", "m4", "m5", "m7", "m8"));
  EXPECT_THAT(MessageRoles(chat), ElementsAre("assistant", "user", "assistant", "system", "user", "assistant"));
  ASSERT_EQ(chat.messages.size(), 6u);
  EXPECT_EQ(chat.messages[0].name, "Seraphina");
  EXPECT_EQ(chat.messages[1].name, "小明");
  EXPECT_EQ(chat.messages[3].name, "System");  // the narrator
  EXPECT_EQ(chat.messages[0].content, "*你在森林中醒来……* 你还好吗？🌲");
}

TEST(ImportSillyTavern, TakesTheChosenSwipeAndKeepsHiddenMessages) {
  IngestConversation chat = ImportFixtureFile();
  ASSERT_EQ(chat.messages.size(), 6u);
  EXPECT_EQ(chat.messages[2].content, "这里是我守护的林地。");
  EXPECT_EQ(chat.messages[4].content, "（这条被隐藏了）");
}

TEST(ImportSillyTavern, ReadsEverySendDateForm) {
  IngestConversation chat = ImportFixtureFile();
  ASSERT_EQ(chat.messages.size(), 6u);
  EXPECT_EQ(chat.messages[0].created_at_ms, 1720747860000);  // "July 12, 2024 1:31am"
  EXPECT_EQ(chat.messages[1].created_at_ms, 1720747930500);  // ISO 8601
  EXPECT_EQ(chat.messages[2].created_at_ms, 1720747985042);  // "2024-7-12 @1h 33m 5s 42ms"
  EXPECT_EQ(chat.messages[3].created_at_ms, 1720748100000);  // Unix ms
  EXPECT_EQ(chat.messages[4].created_at_ms, 1720748180123);  // "2024-07-12@01h36m20s123ms"
  // "sometime after dusk" is no time: it takes the one before.
  EXPECT_EQ(chat.messages[5].created_at_ms, 1720748180123);
}

TEST(ImportSillyTavern, UnderstandsTheHistoricDateFormats) {
  EXPECT_EQ(TimeOf(R"("June 19, 2023 4:20pm")"), 1687191600000);
  EXPECT_EQ(TimeOf(R"("Jun 19, 2023 12:05am")"), 1687133100000);
  EXPECT_EQ(TimeOf(R"("June 19, 2023 12:00PM")"), 1687176000000);
  EXPECT_EQ(TimeOf(R"("2023-6-19 @16h 20m 30s 123ms")"), 1687191630123);
  EXPECT_EQ(TimeOf(R"("2023-06-19@16h20m30s")"), 1687191630000);
  EXPECT_EQ(TimeOf(R"("1687191630123")"), 1687191630123);
  EXPECT_EQ(TimeOf("1687191630123"), 1687191630123);
  EXPECT_EQ(TimeOf(R"("2023-06-19T16:20:30")"), 1687191630000);  // no zone: read as UTC
  EXPECT_EQ(TimeOf(R"("2023-06-19T18:20:30+02:00")"), 1687191630000);
}

TEST(ImportSillyTavern, LeavesImpossibleOrUnknownDatesAbsent) {
  EXPECT_EQ(TimeOf(R"("February 30, 2023 1:00pm")"), std::nullopt);
  EXPECT_EQ(TimeOf(R"("Smarch 1, 2023 1:00pm")"), std::nullopt);
  EXPECT_EQ(TimeOf(R"("2023-13-01@01h00m00s")"), std::nullopt);
  EXPECT_EQ(TimeOf(R"("")"), std::nullopt);
  EXPECT_EQ(TimeOf("null"), std::nullopt);
  EXPECT_EQ(TimeOf("-5"), std::nullopt);
  EXPECT_EQ(TimeOf(R"("999999999999999")"), std::nullopt);  // past the year 9999
}

TEST(ImportSillyTavern, AMessageWithoutTimeTakesTheCreateDate) {
  std::string text = R"({"user_name": "You", "create_date": "2023-6-19 @16h 20m 30s 123ms"})"
                     "\n"
                     R"({"name": "You", "is_user": true, "mes": "hi"})";
  Result<std::vector<IngestConversation>> imported = ImportSillyTavern(text, "chat");
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ((*imported)[0].conversation_id, "chat:2023-6-19 @16h 20m 30s 123ms");
  EXPECT_EQ((*imported)[0].messages[0].created_at_ms, 1687191630123);
}

TEST(ImportSillyTavern, AHeaderAloneOrAnEmptyFileImportsNothing) {
  Result<std::vector<IngestConversation>> header_only = ImportSillyTavern(kHeader, "chat");
  ASSERT_TRUE(header_only.ok()) << header_only.status().ToString();
  EXPECT_TRUE(header_only->empty());
  Result<std::vector<IngestConversation>> empty = ImportSillyTavern("", "chat");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(ImportSillyTavern, DropsMessagesWithNoText) {
  std::string text = std::string(kHeader) + "\n" +
                     R"({"name": "You", "is_user": true, "mes": "", "extra": {"image": "/user/images/a.png"}})";
  Result<std::vector<IngestConversation>> imported = ImportSillyTavern(text, "chat");
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_TRUE(imported->empty());
}

TEST(ImportSillyTavern, TheFirstLineMustBeTheHeader) {
  Result<std::vector<IngestConversation>> imported =
      ImportSillyTavern(R"({"name": "Bot", "is_user": false, "mes": "hi"})", "chat");
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith("line 1: must be the chat header"));
}

TEST(ImportSillyTavern, NamesTheLineOfABadMessage) {
  std::string text =
      std::string(kHeader) + "\n" + R"({"name": "Bot", "mes": "fine"})" + "\n\n" + R"({"name": "Bot", "mes": 42})";
  Result<std::vector<IngestConversation>> imported = ImportSillyTavern(text, "chat");
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "line 4: mes: must be a string");

  text = std::string(kHeader) + "\n" + R"({"name": "Bot", "mes": "x", "is_user": "yes"})";
  imported = ImportSillyTavern(text, "chat");
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().message(), "line 2: is_user: must be true or false");
}

TEST(ImportSillyTavern, AMalformedFileNamesItsLineAndReturnsNothing) {
  std::string path = testing::WriteTempFile("Bot - 2024-01-01@00h00m00s.jsonl",
                                            std::string(kHeader) + "\n" + R"({"name": "Bot", "mes": "第一句"})" + "\n" +
                                                R"({"name": "Bot", "mes": "断掉的)" + "\n");
  Result<std::vector<IngestConversation>> imported = ReadImportFile(path, ImportFormat::kSillyTavern);
  ASSERT_FALSE(imported.ok());
  EXPECT_THAT(imported.status().message(), StartsWith(path + ": line 3, column "));
  EXPECT_THAT(imported.status().message(), HasSubstr("string"));
}

}  // namespace
}  // namespace cilia::ingest
