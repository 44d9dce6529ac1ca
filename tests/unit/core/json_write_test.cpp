#include "core/json_write.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace cilia {
namespace {

TEST(OrNull, AnOptionalIsItsValueOrNull) {
  EXPECT_EQ(OrNull(std::optional<int64_t>(7)), nlohmann::json(7));
  EXPECT_TRUE(OrNull(std::optional<int64_t>()).is_null());
  EXPECT_EQ(OrNull(std::optional<std::string>("x_1")), nlohmann::json("x_1"));
  EXPECT_TRUE(OrNull(std::optional<std::string>()).is_null());
}

TEST(OrNull, AConverterShapesAPresentValueOnly) {
  int calls = 0;
  auto twice = [&calls](int v) {
    ++calls;
    return v * 2;
  };
  EXPECT_EQ(OrNull(std::optional<int>(21), twice), nlohmann::json(42));
  EXPECT_TRUE(OrNull(std::optional<int>(), twice).is_null());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace cilia
