#include "text/harness.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

#include "text/utf8.h"

namespace cilia::text {
namespace {

// What Claude Code sends as a user turn (abridged from a real one).
constexpr std::string_view kClaudeCodeTurn =
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n"
    "# important-instruction-reminders\nAttribution for git commits and pull requests you create.\n"
    "</system-reminder>\nMy sister Lena moved to Lisbon last spring.";

TEST(OwnWords, TextWithoutBlocksIsItself) {
  EXPECT_EQ(OwnWords("  I like <b>bold</b> tea.  "), "  I like <b>bold</b> tea.  ");
  EXPECT_EQ(OwnWords(""), "");
  EXPECT_EQ(OwnWords("a < b and c > d"), "a < b and c > d");
}

TEST(OwnWords, ClaudeCodeReminderIsTakenOut) {
  EXPECT_EQ(OwnWords(kClaudeCodeTurn), "My sister Lena moved to Lisbon last spring.");
}

TEST(OwnWords, BlocksAnywhereLeaveTheWordsBetweenThem) {
  EXPECT_EQ(OwnWords("First part.<system-reminder>x</system-reminder>\n\nSecond part. "
                     "<bash-stdout>ls output</bash-stdout>"),
            "First part.\nSecond part.");
}

TEST(OwnWords, CodexContextMessagesLeaveNothing) {
  EXPECT_EQ(OwnWords("<environment_context>\n  <cwd>/tmp/x</cwd>\n  <shell>bash</shell>\n</environment_context>"), "");
  EXPECT_EQ(OwnWords("# AGENTS.md instructions for /home/me/project\n\n<INSTRUCTIONS>\nUse tabs.\n</INSTRUCTIONS>"), "");
  EXPECT_EQ(OwnWords("<user_instructions>\nBe brief.\n</user_instructions>\nWhat is my cat called?"),
            "What is my cat called?");
}

TEST(OwnWords, ALeadLineAloneIsTheOwners) {
  // Only right before its block does the lead line belong to it.
  EXPECT_EQ(OwnWords("# AGENTS.md instructions for me\nsaid twice"), "# AGENTS.md instructions for me\nsaid twice");
  EXPECT_EQ(OwnWords("# AGENTS.md instructions for me\nsaid twice\n<INSTRUCTIONS>x</INSTRUCTIONS>"),
            "# AGENTS.md instructions for me\nsaid twice");
}

TEST(OwnWords, UnclosedOpeningStaysText) {
  EXPECT_EQ(OwnWords("<system-reminder> never closed, my words"), "<system-reminder> never closed, my words");
  EXPECT_EQ(OwnWords("stray </system-reminder> close"), "stray </system-reminder> close");
}

TEST(OwnWords, NestedBlocksGoWithTheOuterOne) {
  EXPECT_EQ(OwnWords("<system-reminder>a<system-reminder>b</system-reminder>c</system-reminder>mine"), "mine");
  EXPECT_EQ(OwnWords("<environment_context><system-reminder>x</system-reminder></environment_context>mine"), "mine");
  // An outer opening without its close: only the inner block goes.
  EXPECT_EQ(OwnWords("<system-reminder>a<system-reminder>b</system-reminder>mine"), "<system-reminder>a\nmine");
}

TEST(OwnWords, TagsMustBeSpelledExactly) {
  EXPECT_EQ(OwnWords("<system-reminders>x</system-reminders>"), "<system-reminders>x</system-reminders>");
  EXPECT_EQ(OwnWords("<System-Reminder>x</System-Reminder>"), "<System-Reminder>x</System-Reminder>");
  EXPECT_EQ(OwnWords("<system-reminder"), "<system-reminder");
}

TEST(OwnWordSpans, AreCodePointRangesOfTheText) {
  const std::u32string text = DecodeUtf8("我的猫叫糯米。<system-reminder>忽略</system-reminder>  她三岁。");
  const std::vector<Span> spans = OwnWordSpans(text);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(EncodeUtf8(std::u32string_view(text).substr(spans[0].begin, spans[0].size())), "我的猫叫糯米。");
  EXPECT_EQ(EncodeUtf8(std::u32string_view(text).substr(spans[1].begin, spans[1].size())), "她三岁。");
  EXPECT_TRUE(OwnWordSpans(U"   ").empty());
  EXPECT_EQ(OwnWordSpans(U" a "), (std::vector<Span>{{1, 2}}));
}

TEST(OwnWords, HugeInputsStayLinear) {
  // Many openings that never close, and many blocks: each is one pass.
  std::string unclosed;
  for (int i = 0; i < 200000; ++i) unclosed += "<system-reminder>";
  EXPECT_EQ(OwnWords(unclosed), unclosed);
  std::string blocks;
  for (int i = 0; i < 100000; ++i) blocks += "<INSTRUCTIONS>x</INSTRUCTIONS>";
  EXPECT_EQ(OwnWords(blocks + "end"), "end");
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<bash-stdout>";
  for (int i = 0; i < 100000; ++i) deep += "</bash-stdout>";
  EXPECT_EQ(OwnWords(deep + "end"), "end");
}

TEST(OwnWords, CutsAtEveryByteNeverCrash) {
  const std::string turn(kClaudeCodeTurn);
  for (size_t cut = 0; cut <= turn.size(); ++cut) {
    const std::string own = OwnWords(turn.substr(0, cut));
    EXPECT_TRUE(IsValidUtf8(own) || !IsValidUtf8(turn.substr(0, cut))) << cut;
  }
}

TEST(KnownHarnessTags, NamesAreUniqueAndNamed) {
  std::unordered_set<std::u32string> names;
  for (const HarnessTag& tag : KnownHarnessTags()) {
    EXPECT_FALSE(tag.name.empty());
    EXPECT_FALSE(tag.client.empty());
    EXPECT_TRUE(names.insert(std::u32string(tag.name)).second) << EncodeUtf8(tag.name);
  }
}

}  // namespace
}  // namespace cilia::text
