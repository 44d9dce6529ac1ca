#include "core/system_zone.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace cilia {
namespace {

TEST(SystemZoneTest, FollowsTheTZVariable) {
  std::optional<std::string> before;
  if (const char* tz = std::getenv("TZ")) before = tz;
  setenv("TZ", "America/New_York", 1);
  EXPECT_EQ(SystemZoneName(), "America/New_York");
  if (before)
    setenv("TZ", before->c_str(), 1);
  else
    unsetenv("TZ");
}

TEST(SystemZoneTest, AnAliasHasTheSameRulesAnotherZoneAndAnUnknownNameNot) {
  EXPECT_TRUE(SameZoneRules("Asia/Shanghai", "Asia/Chongqing"));
  EXPECT_TRUE(SameZoneRules("UTC", "Etc/UTC"));
  EXPECT_FALSE(SameZoneRules("Asia/Shanghai", "UTC"));
  EXPECT_FALSE(SameZoneRules("Mars/Olympus", "Mars/Olympus"));
}

}  // namespace
}  // namespace cilia
