#include "memory/namespace.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

constexpr int64_t kDay = kMsPerDay;
const int64_t kJune1 = *ParseRfc3339("2026-06-01T00:00:00Z");

store::WindowFilter Between(std::optional<int64_t> from, std::optional<int64_t> to,
                            std::optional<int64_t> conversation = std::nullopt) {
  store::WindowFilter f;
  f.from_ms = from;
  f.to_ms = to;
  f.conversation_row = conversation;
  return f;
}

class CatalogueTest : public ::testing::Test {
 protected:
  // Windows 1-3 on June 1 (conversation 7), 4 on June 2 at noon (7), 5 on
  // June 5 (8), 6 in 1969 (8).
  void SetUp() override {
    for (int64_t id : {1, 2, 3}) ns().PutWindowMeta(id, {7, kJune1 + id * 1000, kJune1 + id * 1000, 0});
    ns().PutWindowMeta(4, {7, kJune1 + kDay + kDay / 2, kJune1 + kDay + kDay / 2, 0});
    ns().PutWindowMeta(5, {8, kJune1 + 4 * kDay, kJune1 + 4 * kDay, 0});
    ns().PutWindowMeta(6, {8, -kDay / 2, -kDay / 2, 0});
  }
  Namespace& ns() { return t_.ns(); }

  testing::TestNamespace t_;
};

TEST_F(CatalogueTest, CountsWhatADayAlignedFilterAllowsExactly) {
  EXPECT_EQ(ns().AllowedAtMost({}), 6u);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1, kJune1 + kDay)), 3u);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1, std::nullopt)), 5u);
  EXPECT_EQ(ns().AllowedAtMost(Between(std::nullopt, kJune1)), 1u) << "the 1969 window";
  EXPECT_EQ(ns().AllowedAtMost(Between(-kDay, 0)), 1u);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + 2 * kDay, kJune1 + 4 * kDay)), 0u) << "days without windows";
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + kDay, kJune1)), 0u) << "an empty range";
}

TEST_F(CatalogueTest, ATimeInsideADayCountsTheWholeDay) {
  // 12:00 on June 2 to the end of time: window 4 (exactly at noon) and 5.
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + kDay + kDay / 2, std::nullopt)), 2u);
  // From 00:00:02 on June 1: windows 2 and 3 pass, but all of June 1 is counted.
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + 2000, kJune1 + kDay)), 3u);
}

TEST_F(CatalogueTest, ConversationAndTimeTogetherCountTheSmallerSide) {
  EXPECT_EQ(ns().AllowedAtMost(Between(std::nullopt, std::nullopt, 7)), 4u);
  EXPECT_EQ(ns().AllowedAtMost(Between(std::nullopt, std::nullopt, 8)), 2u);
  EXPECT_EQ(ns().AllowedAtMost(Between(std::nullopt, std::nullopt, 9)), 0u);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + 4 * kDay, kJune1 + 5 * kDay, 7)), 1u) << "an upper bound";
}

TEST_F(CatalogueTest, RemovedAndMovedWindowsLeaveTheCounts) {
  ns().RemoveWindowMeta(2);
  ns().RemoveWindowMeta(2);  // twice: nothing more happens
  ns().RemoveWindowMeta(99);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1, kJune1 + kDay)), 2u);
  ns().PutWindowMeta(3, {8, kJune1 + 4 * kDay, kJune1 + 4 * kDay, 0});  // replaced: another day and conversation
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1, kJune1 + kDay)), 1u);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1 + 4 * kDay, kJune1 + 5 * kDay)), 2u);
  EXPECT_EQ(ns().AllowedAtMost(Between(std::nullopt, std::nullopt, 7)), 2u);
  EXPECT_EQ(ns().AllowedAtMost({}), 5u);
  ns().AddAccess(1);
  EXPECT_EQ(ns().AllowedAtMost(Between(kJune1, kJune1 + kDay)), 1u) << "access counts change nothing";
}

TEST_F(CatalogueTest, AllowsTestsEachBoundOfTheFilter) {
  const store::WindowFilter june1 = Between(kJune1 + 2000, kJune1 + kDay);
  EXPECT_FALSE(ns().Allows(june1, 1));
  EXPECT_TRUE(ns().Allows(june1, 2)) << "from is inclusive";
  EXPECT_FALSE(ns().Allows(Between(std::nullopt, kJune1 + 2000), 2)) << "to is exclusive";
  EXPECT_FALSE(ns().Allows(june1, 4));
  EXPECT_TRUE(ns().Allows(Between(std::nullopt, std::nullopt, 8), 6));
  EXPECT_FALSE(ns().Allows(Between(std::nullopt, std::nullopt, 8), 4));
  EXPECT_FALSE(ns().Allows(Between(kJune1, std::nullopt, 7), 5));
  EXPECT_TRUE(ns().Allows({}, 6));
  EXPECT_FALSE(ns().Allows({}, 99)) << "not in the catalogue";
}

}  // namespace
}  // namespace cilia::memory
