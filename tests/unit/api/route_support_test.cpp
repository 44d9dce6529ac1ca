#include "api/route_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::api {
namespace {

using ::testing::HasSubstr;

httplib::Request WithParam(const std::string& name, const std::string& value) {
  httplib::Request req;
  req.params.emplace(name, value);
  return req;
}

TEST(IntParamTest, AnAbsentParameterIsTheFallback) {
  EXPECT_EQ(*IntParam(httplib::Request{}, "limit", 50, 1, 500), 50);
}

TEST(IntParamTest, DigitsWithinTheRangeAreTheValue) {
  EXPECT_EQ(*IntParam(WithParam("limit", "1"), "limit", 50, 1, 500), 1);
  EXPECT_EQ(*IntParam(WithParam("limit", "500"), "limit", 50, 1, 500), 500);
  EXPECT_EQ(*IntParam(WithParam("cursor", "9007199254740993"), "cursor", 0, 1, INT64_MAX), 9007199254740993);
  EXPECT_EQ(*IntParam(WithParam("offset", "-3"), "offset", 0, -10, 10), -3);
}

TEST(IntParamTest, AnythingElseNamesTheParameterAndTheRange) {
  for (const char* bad : {"", "0", "501", "ten", "5x", " 5", "+5", "5.0", "0x10", "99999999999999999999", "五"}) {
    auto parsed = IntParam(WithParam("limit", bad), "limit", 50, 1, 500);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(parsed.status().message(), HasSubstr("limit: must be an integer 1..500")) << bad;
  }
}

}  // namespace
}  // namespace cilia::api
