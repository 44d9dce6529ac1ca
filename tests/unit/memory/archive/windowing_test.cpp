#include "memory/archive/windowing.h"

#include <gtest/gtest.h>

#include "text/segmenter.h"
#include "text/utf8.h"

namespace cilia::memory {
namespace {

store::MessageRecord Msg(int64_t id, int64_t seq, std::string text, std::string name = "A") {
  store::MessageRecord m;
  m.id = id;
  m.seq = seq;
  m.text = std::move(text);
  m.name = std::move(name);
  m.role = "user";
  m.created_at = 1000 * seq;
  return m;
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(SegmentMessages, SpansPointIntoTheMessageText) {
  auto segs = SegmentMessages({Msg(7, 0, "你好。今天跑了10公里！"), Msg(8, 1, "Nice. Keep going")});
  ASSERT_GE(segs.size(), 2u);
  for (const auto& s : segs) {
    const std::string& text = s.message_id == 7 ? std::string("你好。今天跑了10公里！") : std::string("Nice. Keep going");
    EXPECT_EQ(text::SubstrCodePoints(text, s.begin, s.end - s.begin), s.text);
  }
  EXPECT_EQ(segs.back().message_id, 8);
}

TEST(SegmentMessages, EmptyMessagesGiveNoSegments) {
  EXPECT_TRUE(SegmentMessages({Msg(1, 0, ""), Msg(2, 1, "   \n ")}).empty());
}

TEST(SegmentMessages, HarnessBlocksAreInNoSegment) {
  const std::string text = "<system-reminder>\nAttribution for git commits.\n</system-reminder>\nMy cat is Miso. She is grey.";
  auto segs = SegmentMessages({Msg(1, 0, text), Msg(2, 1, "<environment_context>/tmp</environment_context>")});
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].text, "My cat is Miso. She is grey.");
  EXPECT_EQ(text::SubstrCodePoints(text, segs[0].begin, segs[0].end - segs[0].begin), segs[0].text);
  store::WindowRecord w = MakeWindow(1, segs, {0, 0});
  EXPECT_EQ(w.body, "My cat is Miso. She is grey.");
  EXPECT_EQ(w.words.find("attribution"), std::string::npos) << w.words;
}

TEST(SegmentMessages, SkipDropsTheFirstSegmentsOfTheFirstMessageOnly) {
  std::string long_text = Repeat("这是一个很长的句子。", 80);  // 800 code points, several segments
  auto all = SegmentMessages({Msg(1, 0, long_text), Msg(2, 1, "end.")});
  auto skipped = SegmentMessages({Msg(1, 0, long_text), Msg(2, 1, "end.")}, 1);
  ASSERT_EQ(skipped.size() + 1, all.size());
  EXPECT_EQ(skipped.front().index_in_message, 1);
}

TEST(PackWindows, RespectsTheBudgetAndOverlapsOneSegment) {
  std::vector<Segment> segs;
  for (int i = 0; i < 10; ++i) {
    Segment s;
    s.begin = 0;
    s.end = 300;
    segs.push_back(s);
  }
  auto windows = PackWindows(segs, 700);
  // 300 + 300 fit, a third does not: [0,1], [1,2], ..., [8,9].
  ASSERT_EQ(windows.size(), 9u);
  for (size_t i = 0; i < windows.size(); ++i) {
    EXPECT_EQ(windows[i].first, i);
    EXPECT_EQ(windows[i].last, i + 1);
  }
}

TEST(PackWindows, SmallSegmentsFillAWindow) {
  std::vector<Segment> segs(100);
  for (auto& s : segs) s.end = 10;
  auto windows = PackWindows(segs, 700);
  ASSERT_EQ(windows.size(), 2u);
  EXPECT_EQ(windows[0].last, 69u);
  EXPECT_EQ(windows[1].first, 69u);
  EXPECT_EQ(windows[1].last, 99u);
}

TEST(PackWindows, OneSegmentAndNone) {
  std::vector<Segment> one(1);
  one[0].end = 5;
  auto w = PackWindows(one);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].first, 0u);
  EXPECT_EQ(w[0].last, 0u);
  EXPECT_TRUE(PackWindows({}).empty());
}

TEST(MakeWindow, BodyJoinsSegmentsAndSpansNameMessages) {
  auto segs = SegmentMessages({Msg(3, 0, "I ran 10k today.", "Caroline"), Msg(4, 1, "配速是多少？", "")});
  auto w = MakeWindow(9, segs, {0, segs.size() - 1});
  EXPECT_EQ(w.conversation_row, 9);
  EXPECT_EQ(w.body, "I ran 10k today.\n配速是多少？");
  // The speakers are indexed with the words (a nameless one by its role), not shown in the body.
  EXPECT_EQ(w.words, text::IndexText(w.body) + " caroline user");
  auto spans = ParseSpans(w.spans);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].message_id, 3);
  EXPECT_EQ(spans[1].message_id, 4);
  EXPECT_EQ(spans[1].end, 6u);
  EXPECT_EQ(w.first_seq, 0);
  EXPECT_EQ(w.last_seq, 1);
}

TEST(ParseSpans, SkipsEntriesThatAreNotThreeWholeNumbersInsteadOfThrowing) {
  const auto spans = ParseSpans(R"([[1,0,5],["x",1,2],[2,-1,3],[3,1.5,2],[4,0],null,[5,2,9]])");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].message_id, 1);
  EXPECT_EQ(spans[1].message_id, 5);
  EXPECT_EQ(spans[1].end, 9u);
  EXPECT_TRUE(ParseSpans("not json").empty());
  EXPECT_TRUE(ParseSpans(R"({"a":1})").empty());
}

TEST(MakeWindow, ASpeakerIsIndexedOncePerMessageStartingInTheWindow) {
  // Three sentences of ~200 characters make three segments of one message.
  const std::string sentence = Repeat("word ", 40) + "end. ";
  auto segs = SegmentMessages({Msg(1, 0, Repeat(sentence, 3), "Melanie")});
  ASSERT_GT(segs.size(), 1u);
  EXPECT_EQ(segs[0].speaker, "Melanie");
  // A window starting inside the message names no speaker.
  auto tail = MakeWindow(1, segs, {1, segs.size() - 1});
  EXPECT_EQ(tail.words, text::IndexText(tail.body));
  auto whole = MakeWindow(1, segs, {0, segs.size() - 1});
  EXPECT_EQ(whole.words, text::IndexText(whole.body) + " melanie");
}

TEST(WindowHeader, UsesLocalDateAndTidiedTitle) {
  TimeZone tz = *TimeZone::Load("Asia/Shanghai");
  // 2023-05-08T20:00:00Z is already the 9th in Shanghai.
  UnixMs at = *ParseRfc3339("2023-05-08T20:00:00Z");
  EXPECT_EQ(WindowHeader(at, tz, "  Trip \n plans  ", "c1"), "[2023-05-09 · Trip plans]");
  EXPECT_EQ(WindowHeader(at, tz, "", "c1"), "[2023-05-09 · c1]");
  std::string long_title = Repeat("长", 80);
  EXPECT_EQ(WindowHeader(at, tz, long_title, "c1"), "[2023-05-09 · " + Repeat("长", 50) + "]");
}

TEST(SpeakerLabel, NameElseRole) {
  EXPECT_EQ(SpeakerLabel("Caroline", "user"), "Caroline");
  EXPECT_EQ(SpeakerLabel("", "user"), "User");
  EXPECT_EQ(SpeakerLabel("", "assistant"), "Assistant");
}

}  // namespace
}  // namespace cilia::memory
