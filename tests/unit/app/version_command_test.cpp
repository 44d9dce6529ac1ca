#include <gtest/gtest.h>

#include "app/commands.h"
#include "core/version.h"

namespace cilia::app {
namespace {

TEST(VersionCommandTest, PrintsCiliaAndTheVersion) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(RunVersion(CommandLine{"version", {}, {}}), kExitOk);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), std::string("cilia ") + kVersion + "\n");
  EXPECT_STREQ(kVersion, "0.1.0");
}

}  // namespace
}  // namespace cilia::app
