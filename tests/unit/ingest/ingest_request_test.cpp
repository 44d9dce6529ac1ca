#include "ingest/ingest_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::ingest {
namespace {

using ::testing::HasSubstr;
using json = nlohmann::json;

json OneMessage(json message) { return {{"conversation_id", "c1"}, {"messages", json::array({std::move(message)})}}; }

// The error message of parsing `body`, or "" when it parsed.
std::string ErrorOf(const json& body) {
  Result<IngestConversation> parsed = ParseIngestRequest(body);
  if (parsed.ok()) return "";
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  return parsed.status().message();
}

TEST(ParseIngestRequest, ReadsTheContractExample) {
  json body = json::parse(R"({"conversation_id": "trip-2023-05", "title": "optional",
    "messages": [{"id": "D1:3", "role": "user", "name": "Caroline",
                  "content": "I went to a LGBTQ support group yesterday.",
                  "created_at": "2023-05-08T13:56:00Z"}]})");
  Result<IngestConversation> parsed = ParseIngestRequest(body);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->conversation_id, "trip-2023-05");
  EXPECT_EQ(parsed->title, "optional");
  EXPECT_EQ(parsed->source, "api");
  ASSERT_EQ(parsed->messages.size(), 1u);
  const IngestMessage& message = parsed->messages[0];
  EXPECT_EQ(message.id, "D1:3");
  EXPECT_EQ(message.role, "user");
  EXPECT_EQ(message.name, "Caroline");
  EXPECT_EQ(message.content, "I went to a LGBTQ support group yesterday.");
  EXPECT_EQ(message.created_at_ms, 1683554160000);
}

TEST(ParseIngestRequest, OptionalFieldsMayBeAbsentOrNull) {
  json body = {
      {"conversation_id", "c1"},
      {"title", nullptr},
      {"messages",
       json::array(
           {{{"role", "assistant"}, {"content", "hi"}},
            {{"id", nullptr}, {"role", "system"}, {"name", nullptr}, {"content", "rules"}, {"created_at", nullptr}}})}};
  Result<IngestConversation> parsed = ParseIngestRequest(body);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->title, "");
  for (const IngestMessage& message : parsed->messages) {
    EXPECT_EQ(message.id, "");
    EXPECT_EQ(message.name, "");
    EXPECT_FALSE(message.created_at_ms.has_value());
  }
}

TEST(ParseIngestRequest, KeepsChineseAndEmojiVerbatim) {
  Result<IngestConversation> parsed = ParseIngestRequest(
      OneMessage({{"role", "user"}, {"name", "小明"}, {"content", "今天去爬山了 🏔️，累死了！"}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->messages[0].name, "小明");
  EXPECT_EQ(parsed->messages[0].content, "今天去爬山了 🏔️，累死了！");
}

TEST(ParseIngestRequest, ReadsTimesWithOffsetsAndFractions) {
  Result<IngestConversation> parsed = ParseIngestRequest(
      OneMessage({{"role", "user"}, {"content", "x"}, {"created_at", "2023-05-08T21:56:00.250+08:00"}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->messages[0].created_at_ms, 1683554160250);
}

TEST(ParseIngestRequest, TheBodyMustBeAnObject) {
  EXPECT_THAT(ErrorOf(json::array()), HasSubstr("must be a JSON object"));
  EXPECT_THAT(ErrorOf("text"), HasSubstr("must be a JSON object"));
}

TEST(ParseIngestRequest, ConversationIdIsARequiredShortString) {
  json messages = json::array({{{"role", "user"}, {"content", "x"}}});
  EXPECT_EQ(ErrorOf({{"messages", messages}}), "conversation_id: is required");
  EXPECT_EQ(ErrorOf({{"conversation_id", 7}, {"messages", messages}}), "conversation_id: must be a string");
  EXPECT_EQ(ErrorOf({{"conversation_id", ""}, {"messages", messages}}), "conversation_id: must not be empty");
  EXPECT_EQ(ErrorOf({{"conversation_id", std::string(201, 'a')}, {"messages", messages}}),
            "conversation_id: must be at most 200 bytes");
  EXPECT_EQ(ErrorOf({{"conversation_id", std::string(200, 'a')}, {"messages", messages}}), "");
  // 67 three-byte characters are 201 bytes: the limit counts bytes.
  std::string chinese;
  for (int i = 0; i < 67; ++i) chinese += "会";
  EXPECT_EQ(ErrorOf({{"conversation_id", chinese}, {"messages", messages}}),
            "conversation_id: must be at most 200 bytes");
}

TEST(ParseIngestRequest, TitleMustBeAString) {
  json body = OneMessage({{"role", "user"}, {"content", "x"}});
  body["title"] = json::array();
  EXPECT_EQ(ErrorOf(body), "title: must be a string");
}

TEST(ParseIngestRequest, MessagesIsARequiredNonEmptyArrayOfObjects) {
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}}), "messages: is required");
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", "hi"}}), "messages: must be an array");
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", json::array()}}), "messages: must not be empty");
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", json::array({"hi"})}}), "messages[0]: must be an object");
}

TEST(ParseIngestRequest, NumericIdsAreRejectedNotConverted) {
  json messages = json::array();
  for (int i = 0; i < 2; ++i) messages.push_back({{"role", "user"}, {"content", "x"}});
  messages.push_back({{"id", 3}, {"role", "user"}, {"content", "x"}});
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", messages}}), "messages[2].id: must be a string");
}

TEST(ParseIngestRequest, AGivenIdMustBeNonEmptyAndShort) {
  EXPECT_EQ(ErrorOf(OneMessage({{"id", ""}, {"role", "user"}, {"content", "x"}})), "messages[0].id: must not be empty");
  EXPECT_EQ(ErrorOf(OneMessage({{"id", std::string(201, 'x')}, {"role", "user"}, {"content", "x"}})),
            "messages[0].id: must be at most 200 bytes");
}

TEST(ParseIngestRequest, RoleMustBeUserAssistantOrSystem) {
  json messages = json::array();
  for (int i = 0; i < 3; ++i) messages.push_back({{"role", "user"}, {"content", "x"}});
  messages.push_back({{"role", "tool"}, {"content", "x"}});
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", messages}}),
            "messages[3].role: must be one of user, assistant, system");
  EXPECT_EQ(ErrorOf(OneMessage({{"content", "x"}})), "messages[0].role: is required");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "User"}, {"content", "x"}})),
            "messages[0].role: must be one of user, assistant, system");
}

TEST(ParseIngestRequest, NameMustBeAString) {
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"name", 5}, {"content", "x"}})),
            "messages[0].name: must be a string");
}

TEST(ParseIngestRequest, ContentMustHoldTextOrAnImage) {
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}})), "messages[0].content: is required");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", 42}})),
            "messages[0].content: must be a string or an array of content parts");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", ""}})),
            "messages[0].content: must contain text or an image");
  // Spaces, a newline and an ideographic space (U+3000) are no text.
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", " \n\u3000"}})),
            "messages[0].content: must contain text or an image");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", json::array()}})),
            "messages[0].content: must contain text or an image");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", " "}}})}})),
            "messages[0].content: must contain text or an image");
}

TEST(ParseIngestRequest, AcceptsOpenAIAndAnthropicParts) {
  json parts = json::parse(R"([
    {"type": "text", "text": "这是什么花？🌸"},
    {"type": "image_url", "image_url": {"url": "https://example.invalid/flower.jpg", "detail": "low"}},
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
    {"type": "image", "source": {"type": "url", "url": "https://example.invalid/b.png"}}])");
  Result<IngestConversation> parsed = ParseIngestRequest(OneMessage({{"role", "user"}, {"content", parts}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->messages[0].content, parts);
}

TEST(ParseIngestRequest, AnImageAloneIsEnough) {
  json parts = json::parse(R"([{"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}])");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", parts}})), "");
}

TEST(ParseIngestRequest, BadPartsAreNamedByTheirPath) {
  auto error_for_part = [](const char* part_json) {
    json parts = json::array({{{"type", "text"}, {"text", "ok"}}, json::parse(part_json)});
    return ErrorOf(OneMessage({{"role", "user"}, {"content", parts}}));
  };
  EXPECT_EQ(error_for_part(R"("just text")"), "messages[0].content[1]: must be an object");
  EXPECT_EQ(error_for_part(R"({"text": "no type"})"), "messages[0].content[1].type: is required");
  EXPECT_EQ(error_for_part(R"({"type": "audio", "data": "x"})"),
            "messages[0].content[1].type: must be one of text, image_url, image");
  EXPECT_EQ(error_for_part(R"({"type": "text", "text": 3})"), "messages[0].content[1].text: must be a string");
  EXPECT_EQ(error_for_part(R"({"type": "image_url"})"), "messages[0].content[1].image_url: is required");
  EXPECT_EQ(error_for_part(R"({"type": "image_url", "image_url": {"detail": "low"}})"),
            "messages[0].content[1].image_url.url: is required");
  EXPECT_EQ(error_for_part(R"({"type": "image_url", "image_url": "https://x.invalid/a.png"})"),
            "messages[0].content[1].image_url: must be an object");
  EXPECT_EQ(error_for_part(R"({"type": "image", "source": {"type": "base64", "data": "AA=="}})"),
            "messages[0].content[1].source.media_type: is required");
  EXPECT_EQ(error_for_part(R"({"type": "image", "source": {"type": "ftp"}})"),
            "messages[0].content[1].source.type: must be one of base64, url, file");
}

TEST(ParseIngestRequest, CreatedAtMustBeRfc3339) {
  EXPECT_THAT(ErrorOf(OneMessage({{"role", "user"}, {"content", "x"}, {"created_at", "2023-05-08"}})),
              HasSubstr("messages[0].created_at: must be an RFC 3339 time"));
  EXPECT_THAT(ErrorOf(OneMessage({{"role", "user"}, {"content", "x"}, {"created_at", "yesterday"}})),
              HasSubstr("messages[0].created_at: must be an RFC 3339 time"));
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", "x"}, {"created_at", 1683554160}})),
            "messages[0].created_at: must be a string");
  EXPECT_EQ(ErrorOf(OneMessage({{"role", "user"}, {"content", "x"}, {"created_at", ""}})),
            "messages[0].created_at: must not be empty");
}

TEST(ParseIngestRequest, ARepeatedIdWithTheSameContentIsFine) {
  json message = {{"id", "a"}, {"role", "user"}, {"content", "same"}};
  Result<IngestConversation> parsed =
      ParseIngestRequest({{"conversation_id", "c"}, {"messages", json::array({message, message})}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->messages.size(), 2u);
}

TEST(ParseIngestRequest, ARepeatedIdWithOtherContentNamesTheId) {
  json messages = json::array({{{"id", "D1:3"}, {"role", "user"}, {"content", "first"}},
                               {{"id", "D1:4"}, {"role", "user"}, {"content", "other"}},
                               {{"id", "D1:3"}, {"role", "user"}, {"content", "changed"}}});
  EXPECT_EQ(ErrorOf({{"conversation_id", "c"}, {"messages", messages}}),
            "messages[2].id: \"D1:3\" is already used by messages[0] with different content");
}

TEST(ParseIngestRequest, IgnoresFieldsItDoesNotKnow) {
  json body = OneMessage({{"role", "user"}, {"content", "x"}, {"metadata", {{"k", 1}}}});
  body["extra"] = true;
  EXPECT_EQ(ErrorOf(body), "");
}

TEST(ParseIngestRequest, TakesAHugeMessage) {
  std::string big;
  for (int i = 0; i < 100000; ++i) big += "长文本🙂";
  Result<IngestConversation> parsed = ParseIngestRequest(OneMessage({{"role", "user"}, {"content", big}}));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->messages[0].content, big);
}

TEST(ParseIngestRequest, InvalidUtf8NeverGetsThisFarFromOutsideBytes) {
  // The API and the loaders parse outside bytes with nlohmann::json::parse,
  // which refuses ill-formed UTF-8 before any field is read.
  json parsed;
  EXPECT_THROW(parsed = json::parse("{\"conversation_id\": \"\xff\"}"), json::parse_error);
}

TEST(ValidateIngestConversation, RejectsInvalidUtf8BuiltInCode) {
  IngestConversation conversation;
  conversation.conversation_id = "c";
  conversation.messages.push_back({"", "user", "bad\xC3", "hi", std::nullopt});
  EXPECT_EQ(ValidateIngestConversation(conversation).message(), "messages[0].name: must be valid UTF-8");
  conversation.messages[0].name = "ok";
  conversation.messages[0].content = "surrogate \xED\xA0\x80";
  EXPECT_EQ(ValidateIngestConversation(conversation).message(), "messages[0].content: must be valid UTF-8");
  conversation.conversation_id = "overlong \xC0\xAF";
  EXPECT_EQ(ValidateIngestConversation(conversation).message(), "conversation_id: must be valid UTF-8");
}

TEST(ValidateIngestConversation, AcceptsAWellFormedConversation) {
  IngestConversation conversation;
  conversation.conversation_id = "c";
  conversation.messages.push_back({"m1", "assistant", "", "好的 👌", 1});
  EXPECT_TRUE(ValidateIngestConversation(conversation).ok());
}

TEST(ContentText, IsTheStringItself) { EXPECT_EQ(ContentText("你好 👋"), "你好 👋"); }

TEST(ContentText, JoinsTextPartsAndSkipsImages) {
  json parts = json::parse(R"([{"type": "text", "text": "第一段"},
    {"type": "image_url", "image_url": {"url": "https://x.invalid/a.png"}},
    {"type": "text", "text": "second"},
    {"type": "image", "source": {"type": "url", "url": "https://x.invalid/b.png"}}])");
  EXPECT_EQ(ContentText(parts), "第一段\nsecond");
}

TEST(ContentText, IsEmptyForImagesOnlyAndForNonContent) {
  EXPECT_EQ(ContentText(json::parse(R"([{"type": "image_url", "image_url": {"url": "u"}}])")), "");
  EXPECT_EQ(ContentText(nullptr), "");
  EXPECT_EQ(ContentText(17), "");
  EXPECT_EQ(ContentText(json::parse(R"([{"type": 3, "text": "x"}, "loose"])")), "");
}

TEST(ContentFromParts, IsAPlainStringForOneTextPart) {
  EXPECT_EQ(ContentFromParts({TextPart("只有一段")}), "只有一段");
}

TEST(ContentFromParts, KeepsTheArrayOtherwise) {
  json content = ContentFromParts({ImageUrlPart("file-service://file-1"), TextPart("看图")});
  EXPECT_EQ(content, json::parse(R"([{"type": "image_url", "image_url": {"url": "file-service://file-1"}},
                                     {"type": "text", "text": "看图"}])"));
  EXPECT_TRUE(ContentFromParts({}).is_null());
}

TEST(HasTextOrImage, SaysWhetherAMessageWouldBeAccepted) {
  EXPECT_TRUE(HasTextOrImage("x"));
  EXPECT_FALSE(HasTextOrImage(" \t"));
  EXPECT_FALSE(HasTextOrImage(nullptr));
  EXPECT_TRUE(HasTextOrImage(json::array({ImageUrlPart("u")})));
  EXPECT_FALSE(HasTextOrImage(json::array({TextPart("\u3000")})));
}

}  // namespace
}  // namespace cilia::ingest
