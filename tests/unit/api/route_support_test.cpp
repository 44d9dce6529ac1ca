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

TEST(BoolParamTest, TrueOrFalseExactlyElseTheParameterIsNamed) {
  EXPECT_FALSE(*BoolParam(httplib::Request{}, "backfill", false));
  EXPECT_TRUE(*BoolParam(httplib::Request{}, "backfill", true));
  EXPECT_TRUE(*BoolParam(WithParam("backfill", "true"), "backfill", false));
  EXPECT_FALSE(*BoolParam(WithParam("backfill", "false"), "backfill", true));
  for (const char* bad : {"", "1", "yes", "TRUE", "true "}) {
    auto parsed = BoolParam(WithParam("backfill", bad), "backfill", false);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_THAT(parsed.status().message(), HasSubstr("backfill: must be true or false")) << bad;
  }
}

}  // namespace
}  // namespace cilia::api
