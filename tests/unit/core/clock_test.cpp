#include "core/clock.h"

#include <gtest/gtest.h>

namespace cilia {
namespace {

TEST(FakeClock, ReadsWhatItWasSetTo) {
  FakeClock clock(1683554160000);
  EXPECT_EQ(clock.Now(), 1683554160000);
  clock.Set(-1);
  EXPECT_EQ(clock.Now(), -1);
  clock.Advance(86'400'000);
  EXPECT_EQ(clock.Now(), 86'399'999);
}

TEST(FakeClock, StandsInForAnyClock) {
  FakeClock fake(42);
  const Clock& clock = fake;
  EXPECT_EQ(clock.Now(), 42);
  fake.Advance(1);
  EXPECT_EQ(clock.Now(), 43);
}

TEST(SystemClock, IsOneInstanceTellingThePresent) {
  EXPECT_EQ(&Clock::System(), &Clock::System());
  const UnixMs now = Clock::System().Now();
  EXPECT_GT(now, 1704067200000);  // after 2024-01-01
  EXPECT_LT(now, 4102444800000);  // before 2100-01-01
  EXPECT_LE(now, Clock::System().Now());
}

}  // namespace
}  // namespace cilia
