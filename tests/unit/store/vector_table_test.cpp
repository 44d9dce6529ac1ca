#include "store/vector_table.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/half.h"

namespace cilia::store {
namespace {

TEST(VectorTable, EncodesFloat16AndDecodesEitherFormByLength) {
  const std::vector<float> v = {1.0f, -0.1f, 0.0f};
  const std::string blob = EncodeVector(v);
  ASSERT_EQ(blob.size(), 6u);
  EXPECT_EQ(blob, std::string("\x00\x3c\x66\xae\x00\x00", 6));
  EXPECT_EQ(DecodeVector(blob, 3), (std::vector<float>{1.0f, RoundToHalf(-0.1f), 0.0f}));

  std::string float32(v.size() * sizeof(float), '\0');
  std::memcpy(float32.data(), v.data(), float32.size());
  EXPECT_EQ(DecodeVector(float32, 3), v);

  EXPECT_EQ(DecodeVector(blob, 4), std::nullopt);
  EXPECT_EQ(DecodeVector(blob.substr(1), 3), std::nullopt);
  EXPECT_EQ(DecodeVector("", 0), std::vector<float>{});
}

}  // namespace
}  // namespace cilia::store
