#include "ingest/import_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace cilia::ingest {
namespace {

using ::testing::ElementsAre;
using json = nlohmann::json;

std::vector<size_t> LineNumbers(std::string_view text) {
  std::vector<size_t> numbers;
  for (const TextLine& line : NonBlankLines(text)) numbers.push_back(line.number);
  return numbers;
}

TEST(NonBlankLines, SkipsBlankLinesButKeepsTheirNumbers) {
  EXPECT_THAT(LineNumbers("a\n\n  \nb\n"), ElementsAre(1u, 4u));
  EXPECT_THAT(LineNumbers(""), ElementsAre());
  EXPECT_THAT(LineNumbers("\n\n"), ElementsAre());
}

TEST(NonBlankLines, DropsCarriageReturnsAndAByteOrderMark) {
  std::vector<TextLine> lines = NonBlankLines("\xEF\xBB\xBF{\"a\":1}\r\n{\"b\":2}\r\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "{\"a\":1}");
  EXPECT_EQ(lines[1].text, "{\"b\":2}");
}

TEST(NonBlankLines, KeepsALastLineWithoutNewline) {
  std::vector<TextLine> lines = NonBlankLines("一\n二");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].text, "二");
  EXPECT_EQ(lines[1].number, 2u);
}

TEST(AtLine, PrefixesTheLineAndKeepsTheCode) {
  Status status = AtLine(17, Status::InvalidArgument("messages[0].role: bad"));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(), "line 17: messages[0].role: bad");
}

TEST(OptionalEpochTime, ConvertsSecondsAndMilliseconds) {
  json object = {{"s", 1715000000.123}, {"ms", 1735689600000}, {"none", nullptr}};
  EXPECT_EQ(*OptionalEpochTime(object, "s", "", EpochUnit::kSeconds), 1715000000123);
  EXPECT_EQ(*OptionalEpochTime(object, "ms", "", EpochUnit::kMilliseconds), 1735689600000);
  EXPECT_FALSE(OptionalEpochTime(object, "none", "", EpochUnit::kSeconds)->has_value());
  EXPECT_FALSE(OptionalEpochTime(object, "absent", "", EpochUnit::kSeconds)->has_value());
}

TEST(OptionalEpochTime, RejectsTimesOutsideTheCalendar) {
  json object = {{"negative", -5}, {"ms_as_seconds", 1735689600000.0}, {"text", "1715000000"}};
  EXPECT_EQ(OptionalEpochTime(object, "negative", "[0]", EpochUnit::kSeconds).status().message(),
            "[0].negative: must be a Unix time in seconds");
  EXPECT_EQ(OptionalEpochTime(object, "ms_as_seconds", "[0]", EpochUnit::kSeconds).status().message(),
            "[0].ms_as_seconds: must be a Unix time in seconds");
  EXPECT_EQ(OptionalEpochTime(object, "text", "[0]", EpochUnit::kSeconds).status().message(),
            "[0].text: must be a number");
}

TEST(PlausibleUnixMs, KeepsTheYears1970To9999) {
  EXPECT_EQ(PlausibleUnixMs(0), 0);
  EXPECT_EQ(PlausibleUnixMs(1715000000123.4), 1715000000123);
  EXPECT_EQ(PlausibleUnixMs(253402300799999.0), 253402300799999);
  EXPECT_EQ(PlausibleUnixMs(253402300800000.0), std::nullopt);
  EXPECT_EQ(PlausibleUnixMs(-1), std::nullopt);
  EXPECT_EQ(PlausibleUnixMs(std::nan("")), std::nullopt);
}

TEST(OptionalRfc3339Time, ParsesOrNamesTheField) {
  json object = {{"ok", "2024-03-15T10:23:45.987654Z"}, {"bad", "15/03/2024"}};
  EXPECT_EQ(*OptionalRfc3339Time(object, "ok", ""), 1710498225987);
  EXPECT_FALSE(OptionalRfc3339Time(object, "absent", "")->has_value());
  EXPECT_EQ(OptionalRfc3339Time(object, "bad", "m").status().message(),
            "m.bad: must be an RFC 3339 time such as 2023-05-08T13:56:00Z");
}

IngestMessage Message(std::string id, json content, std::optional<int64_t> time) {
  return {std::move(id), "user", "", std::move(content), time};
}

TEST(AppendImported, FillsMissingTimesFromTheMessageBefore) {
  IngestConversation conversation;
  conversation.conversation_id = "c";
  conversation.messages = {Message("a", "早", std::nullopt), Message("b", "中", 2000),
                           Message("c", "晚", std::nullopt)};
  std::vector<IngestConversation> out;
  ASSERT_TRUE(AppendImported(conversation, 1000, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].source, "import");
  EXPECT_EQ(out[0].messages[0].created_at_ms, 1000);
  EXPECT_EQ(out[0].messages[1].created_at_ms, 2000);
  EXPECT_EQ(out[0].messages[2].created_at_ms, 2000);
}

TEST(AppendImported, LeavesTimesAbsentWithoutAnyToGoBy) {
  IngestConversation conversation;
  conversation.conversation_id = "c";
  conversation.messages = {Message("a", "x", std::nullopt)};
  std::vector<IngestConversation> out;
  ASSERT_TRUE(AppendImported(conversation, std::nullopt, out).ok());
  EXPECT_FALSE(out[0].messages[0].created_at_ms.has_value());
}

TEST(AppendImported, DropsEmptyMessagesAndEmptyConversations) {
  IngestConversation conversation;
  conversation.conversation_id = "c";
  conversation.messages = {Message("a", "", 1), Message("b", nullptr, 2), Message("c", " ", 3)};
  std::vector<IngestConversation> out;
  ASSERT_TRUE(AppendImported(conversation, std::nullopt, out).ok());
  EXPECT_TRUE(out.empty());

  conversation.messages.push_back(Message("d", "留下", 4));
  ASSERT_TRUE(AppendImported(conversation, std::nullopt, out).ok());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].messages.size(), 1u);
  EXPECT_EQ(out[0].messages[0].id, "d");
}

TEST(AppendImported, ValidatesWhatItAppends) {
  IngestConversation conversation;
  conversation.conversation_id = std::string(300, 'x');
  conversation.messages = {Message("a", "x", 1)};
  std::vector<IngestConversation> out;
  EXPECT_EQ(AppendImported(conversation, std::nullopt, out).message(), "conversation_id: must be at most 200 bytes");
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace cilia::ingest
