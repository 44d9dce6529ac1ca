#include "core/status.h"

#include <gtest/gtest.h>

namespace cilia {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  CILIA_ASSIGN_OR_RETURN(int h, Half(x));
  return Half(h);
}

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(Status, WithKeepsCodeAndPrefixesMessage) {
  Status s = Status::NotFound("message 7").With("forget");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "forget: message 7");
  EXPECT_EQ(s.ToString(), "not_found: forget: message 7");
}

TEST(Result, CarriesValueOrStatus) {
  EXPECT_EQ(*Quarter(8), 2);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "odd: 3");
}

}  // namespace
}  // namespace cilia
