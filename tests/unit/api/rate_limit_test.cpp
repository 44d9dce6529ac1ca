#include "api/rate_limit.h"

#include <gtest/gtest.h>

namespace cilia::api {
namespace {

TEST(RateLimiterTest, OffTakesEverything) {
  FakeClock clock(1'000'000);
  RateLimiter off(0, 0, clock);
  EXPECT_FALSE(off.enabled());
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(off.TakeRequest("k").has_value());
  EXPECT_FALSE(off.TakeTokens("k", 1'000'000).has_value());
}

TEST(RateLimiterTest, AMinutesRequestsThenAWaitThatRefillsOne) {
  FakeClock clock(1'000'000);
  RateLimiter limiter(3, 0, clock);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(limiter.TakeRequest("k").has_value()) << i;
  std::optional<int64_t> wait = limiter.TakeRequest("k");
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(*wait, 20);  // one request in 60/3 s
  clock.Advance(19'000);
  EXPECT_TRUE(limiter.TakeRequest("k").has_value());
  clock.Advance(1'500);
  EXPECT_FALSE(limiter.TakeRequest("k").has_value());
}

TEST(RateLimiterTest, KeysHaveTheirOwnAllowance) {
  FakeClock clock(1'000'000);
  RateLimiter limiter(1, 0, clock);
  EXPECT_FALSE(limiter.TakeRequest("a").has_value());
  EXPECT_TRUE(limiter.TakeRequest("a").has_value());
  EXPECT_FALSE(limiter.TakeRequest("b").has_value());
}

TEST(RateLimiterTest, TokensAreTakenByAmount) {
  FakeClock clock(1'000'000);
  RateLimiter limiter(0, 600, clock);
  EXPECT_FALSE(limiter.TakeTokens("k", 500).has_value());
  std::optional<int64_t> wait = limiter.TakeTokens("k", 200);
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(*wait, 10);  // 100 tokens short at 10 a second
  // A request over a whole minute's allowance waits for a full bucket, not forever.
  clock.Advance(60'000);
  EXPECT_FALSE(limiter.TakeTokens("k", 5'000).has_value());
}

}  // namespace
}  // namespace cilia::api
