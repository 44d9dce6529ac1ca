#include "core/half.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace cilia {
namespace {

TEST(Half, EveryHalfComesBackBitForBit) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const float f = HalfToFloat(static_cast<uint16_t>(h));
    ASSERT_EQ(FloatToHalf(f), h) << std::hex << h;
  }
}

TEST(Half, KnownValues) {
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(0.5f), 0x3800);
  EXPECT_EQ(FloatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(FloatToHalf(1.0f / 3), 0x3555);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);   // the largest finite half
  EXPECT_EQ(FloatToHalf(65519.996f), 0x7bff);  // just under halfway to 2^16
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);   // halfway: ties to even, which is infinity
  EXPECT_EQ(FloatToHalf(1e10f), 0x7c00);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(FloatToHalf(0x1p-14f), 0x0400);  // the smallest normal
  EXPECT_EQ(FloatToHalf(0x1p-24f), 0x0001);  // the smallest subnormal
  EXPECT_EQ(FloatToHalf(0x1p-25f), 0x0000);  // halfway to it: ties to zero, the even one
  EXPECT_EQ(FloatToHalf(-0x1.8p-25f), 0x8001);
  EXPECT_EQ(FloatToHalf(0x1p-26f), 0x0000);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(FloatToHalf(0x1.ff8p-15f), 0x03ff);  // the largest subnormal
  EXPECT_EQ(FloatToHalf(0x1.ffcp-15f), 0x0400);  // and half a unit more: ties up to the smallest normal, even
  EXPECT_EQ(FloatToHalf(1.0f + 0x1p-11f), 0x3c00);      // halfway between 1 and the next: even, down
  EXPECT_EQ(FloatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02);  // halfway between odd and even: up
  EXPECT_EQ(FloatToHalf(1.0f + 0x1.02p-11f), 0x3c01);   // past halfway: up

  EXPECT_EQ(HalfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(HalfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(HalfToFloat(0x0001), 0x1p-24f);
  EXPECT_EQ(HalfToFloat(0x03ff), 0x1.ff8p-15f);
  EXPECT_TRUE(std::signbit(HalfToFloat(0x8000)));
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(Half, NanStaysNan) {
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::numeric_limits<float>::quiet_NaN()))));
  const uint16_t h = FloatToHalf(-std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(h & 0xfc00, 0xfc00);
  EXPECT_NE(h & 0x3ff, 0);
  // A payload only in the bits float16 drops is still a NaN, not infinity.
  EXPECT_EQ(FloatToHalf(std::bit_cast<float>(0x7f800001u)), 0x7e00);
}

// Each positive finite half's midpoint with the next one is a float: it must
// go to the even neighbour, and a float just either side of it to the near one.
TEST(Half, MidpointsTieToEven) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    const float low = HalfToFloat(static_cast<uint16_t>(h));
    const float high = HalfToFloat(static_cast<uint16_t>(h + 1));
    const float mid = (low + high) / 2;  // exact: 12 significant bits at most
    ASSERT_EQ(FloatToHalf(mid), (h & 1) == 0 ? h : h + 1) << std::hex << h;
    ASSERT_EQ(FloatToHalf(std::nextafter(mid, 0.0f)), h) << std::hex << h;
    ASSERT_EQ(FloatToHalf(std::nextafter(mid, 1e9f)), h + 1) << std::hex << h;
  }
}

// Random floats in the half's range go to a nearest half.
TEST(Half, RandomFloatsGoToANearestHalf) {
  std::mt19937 rng(16);
  std::uniform_int_distribution<uint32_t> bits;
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>(bits(rng));
    if (!std::isfinite(x) || std::fabs(x) >= 65504.0f) continue;
    const uint16_t h = FloatToHalf(x);
    const double error = std::fabs(static_cast<double>(HalfToFloat(h)) - x);
    const uint16_t magnitude = h & 0x7fff;
    const uint16_t sign = h & 0x8000;
    if (magnitude > 0) {
      ASSERT_LE(error, std::fabs(static_cast<double>(HalfToFloat(static_cast<uint16_t>(h - 1))) - x)) << x;
    }
    ASSERT_LE(error, std::fabs(static_cast<double>(HalfToFloat(static_cast<uint16_t>(sign | (magnitude + 1)))) - x))
        << x;
  }
}

TEST(Half, VectorsAreLittleEndianBytes) {
  const std::vector<float> values = {1.0f, -2.0f, 0.1f};
  std::string bytes = "x";  // appended after what is there
  AppendHalves(values, bytes);
  EXPECT_EQ(bytes, std::string("x\x00\x3c\x00\xc0\x66\x2e", 7));

  std::vector<float> back(3);
  ASSERT_TRUE(DecodeHalves(std::string_view(bytes).substr(1), back));
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -2.0f);
  EXPECT_EQ(back[2], RoundToHalf(0.1f));

  std::vector<float> wrong(2, 7.0f);
  EXPECT_FALSE(DecodeHalves(std::string_view(bytes).substr(1), wrong));
  EXPECT_EQ(wrong[0], 7.0f);
}

}  // namespace
}  // namespace cilia
