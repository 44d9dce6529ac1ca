#include "net/sse.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace cilia::net {
namespace {

// Feeds `pieces` in order and returns every event dispatched.
std::vector<SseEvent> Parse(const std::vector<std::string_view>& pieces) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (std::string_view piece : pieces) {
    parser.Feed(piece, [&events](const SseEvent& e) { events.push_back(e); });
  }
  return events;
}

std::vector<SseEvent> Parse(std::string_view stream) { return Parse(std::vector<std::string_view>{stream}); }

std::vector<SseEvent> ParseByteByByte(std::string_view stream) {
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < stream.size(); ++i) pieces.push_back(stream.substr(i, 1));
  return Parse(pieces);
}

bool Same(const std::vector<SseEvent>& a, const std::vector<SseEvent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].event != b[i].event || a[i].data != b[i].data || a[i].id != b[i].id) return false;
  }
  return true;
}

TEST(SseParserTest, BlankLineDispatchesAMessage) {
  auto events = Parse("data: hello\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "message");
  EXPECT_EQ(events[0].data, "hello");
  EXPECT_EQ(events[0].id, "");
}

TEST(SseParserTest, OneSpaceAfterTheColonIsDroppedAndNoMore) {
  auto events = Parse("data:x\n\ndata: y\n\ndata:  z\n\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].data, "x");
  EXPECT_EQ(events[1].data, "y");
  EXPECT_EQ(events[2].data, " z");
}

TEST(SseParserTest, DataLinesAreJoinedWithLineFeeds) {
  auto events = Parse("data: first\ndata:\ndata: third\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "first\n\nthird");
}

TEST(SseParserTest, FieldWithoutColonHasEmptyValue) {
  auto events = Parse("data\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "");
}

TEST(SseParserTest, EventTypeAppliesToOneEventOnly) {
  auto events = Parse("event: content_block_delta\ndata: {\"a\":1}\n\ndata: plain\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "content_block_delta");
  EXPECT_EQ(events[0].data, R"({"a":1})");
  EXPECT_EQ(events[1].event, "message");
}

TEST(SseParserTest, EventWithoutDataIsNotDispatchedAndItsTypeIsForgotten) {
  auto events = Parse("event: ping\n\ndata: after\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "message");
  EXPECT_EQ(events[0].data, "after");
}

TEST(SseParserTest, CommentsAndUnknownFieldsAreIgnored) {
  auto events = Parse(": ping\n:\nretry: 3000\nfoo: bar\ndata: kept\n: between\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "kept");
}

TEST(SseParserTest, IdIsRememberedAcrossEvents) {
  auto events = Parse("id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].id, "7");
  EXPECT_EQ(events[1].id, "7");
  EXPECT_EQ(events[2].id, "");
}

TEST(SseParserTest, IdWithNulIsIgnored) {
  using namespace std::string_view_literals;
  auto events = Parse("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"sv);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].id, "1");
}

TEST(SseParserTest, AllThreeLineEndingsWork) {
  auto lf = Parse("data: a\ndata: b\n\n");
  auto crlf = Parse("data: a\r\ndata: b\r\n\r\n");
  auto cr = Parse("data: a\rdata: b\r\r");
  ASSERT_EQ(lf.size(), 1u);
  EXPECT_EQ(lf[0].data, "a\nb");
  EXPECT_TRUE(Same(lf, crlf));
  EXPECT_TRUE(Same(lf, cr));
}

TEST(SseParserTest, CrLfSplitBetweenPiecesIsOneLineEnd) {
  // Were the "\n" taken as a second line end, the blank line would dispatch "a" alone.
  auto events = Parse(std::vector<std::string_view>{"data: a\r", "\ndata: b\r\n\r", "\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\nb");
}

TEST(SseParserTest, EmptyPieceBetweenCrAndLfChangesNothing) {
  auto events = Parse(std::vector<std::string_view>{"data: a\r", "", "\n\r\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a");
}

TEST(SseParserTest, UnfinishedEventAtEndOfStreamIsDropped) {
  EXPECT_TRUE(Parse("data: done\n\ndata: cut off\n").size() == 1);
  EXPECT_TRUE(Parse("data: no line end").empty());
}

TEST(SseParserTest, LeadingByteOrderMarkIsStripped) {
  auto events = Parse(std::vector<std::string_view>{"\xEF\xBB",
                                                    "\xBF"
                                                    "data: x\n\n"});
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "x");
}

TEST(SseParserTest, MultiByteCharactersSplitAcrossPiecesSurvive) {
  const std::string stream = "data: 你好，世界 🙂 café\n\n";
  auto events = ParseByteByByte(stream);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "你好，世界 🙂 café");
}

TEST(SseParserTest, OpenAiStyleStreamEndsWithDone) {
  auto events = Parse(
      "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      ": keep-alive\n\n"
      "data: [DONE]\n\n");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].data, "[DONE]");
}

TEST(SseParserTest, HugeDataLineArrivesWhole) {
  const std::string payload(1 << 20, 'x');
  const std::string stream = "data: " + payload + "\n\n";
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < stream.size(); i += 1000) pieces.push_back(std::string_view(stream).substr(i, 1000));
  auto events = Parse(pieces);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, payload);
}

TEST(SseParserTest, AnySplitOfAStreamGivesTheSameEvents) {
  const std::string stream =
      "\xEF\xBB\xBF"
      "event: a\r\ndata: 1\r\ndata: 2\r\n\r\n: c\rid: 9\rdata: 3\r\r"
      "data:4\n\nevent: b\ndata: 甲乙\n\n";
  const auto whole = Parse(stream);
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[0].event, "a");
  EXPECT_EQ(whole[0].data, "1\n2");
  EXPECT_EQ(whole[1].id, "9");
  EXPECT_EQ(whole[3].data, "甲乙");
  EXPECT_TRUE(Same(whole, ParseByteByByte(stream)));
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    std::string_view s(stream);
    EXPECT_TRUE(Same(whole, Parse({s.substr(0, cut), s.substr(cut)}))) << "cut at " << cut;
  }
}

TEST(SseParserTest, RandomBytesInRandomPiecesAreSafeAndSplitIndependent) {
  std::mt19937 rng(12345);
  // Weighted towards the bytes that matter to the parser.
  constexpr char kAlphabet[] =
      "\r\n:\0 dataevntid\xEF\xBB\xBF\xFF"
      "x";
  const std::string alphabet(kAlphabet, sizeof(kAlphabet) - 1);
  std::string stream;
  for (int i = 0; i < 200000; ++i) stream.push_back(alphabet[rng() % alphabet.size()]);

  const auto whole = Parse(stream);
  std::vector<std::string_view> pieces;
  for (size_t pos = 0; pos < stream.size();) {
    const size_t len = std::min<size_t>(rng() % 17, stream.size() - pos);
    pieces.push_back(std::string_view(stream).substr(pos, len));
    pos += len;
  }
  EXPECT_TRUE(Same(whole, Parse(pieces)));
}

}  // namespace
}  // namespace cilia::net
