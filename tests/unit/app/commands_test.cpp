#include "app/commands.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/log.h"

namespace cilia::app {
namespace {

using ::testing::HasSubstr;

class LoadConfigForCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-commands-test-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    unsetenv("CILIA_SERVER_THREADS");
    unsetenv("CILIA_LOG_LEVEL");
    SetLogLevel(LogLevel::kInfo);
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;
};

TEST_F(LoadConfigForCommandTest, FlagsFileAndEnvironmentAllCount) {
  std::string file = dir_ + "/cilia.toml";
  std::ofstream(file) << "[server]\nthreads = 12\ntime_zone = \"UTC\"\n";
  setenv("CILIA_SERVER_THREADS", "24", 1);
  CommandLine line{"serve", {}, {{"config", file}, {"data", dir_ + "/data"}, {"listen", "127.0.0.1:0"}}};
  auto config = LoadConfigForCommand(line);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->file, file);
  EXPECT_EQ(config->server.time_zone, "UTC");
  EXPECT_EQ(config->server.threads, 24);
  EXPECT_EQ(config->server.data_dir, dir_ + "/data");
  EXPECT_EQ(config->server.listen, "127.0.0.1:0");
}

TEST_F(LoadConfigForCommandTest, AppliesTheLogLevel) {
  setenv("CILIA_LOG_LEVEL", "error", 1);
  CommandLine line{"doctor", {}, {{"data", dir_}}};
  ASSERT_TRUE(LoadConfigForCommand(line).ok());
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
}

TEST_F(LoadConfigForCommandTest, AMissingConfigFileIsAnError) {
  CommandLine line{"recall", {"x"}, {{"config", dir_ + "/nope.toml"}}};
  auto config = LoadConfigForCommand(line);
  ASSERT_FALSE(config.ok());
  EXPECT_THAT(config.status().message(), HasSubstr("nope.toml: no such file"));
}

TEST(ExitWithErrorTest, ReturnsTheExitCode) {
  EXPECT_EQ(ExitWithError(Status::InvalidArgument("bad"), kExitUsage), 2);
  EXPECT_EQ(ExitWithError(Status::IOError("disk"), kExitFailure), 1);
}

TEST(UsageErrorTest, PrintsTheErrorThenTheCommandsUsageAndIsExitCode2) {
  ::testing::internal::CaptureStderr();
  const int code = UsageError("search", Status::InvalidArgument("--limit: must be a number"));
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(code, kExitUsage);
  EXPECT_EQ(said, "cilia: --limit: must be a number\n\n" + CommandUsageText("search"));
}

TEST(KeyStorePathTest, IsSystemDbInTheDataDir) {
  Config config;
  config.server.data_dir = "/srv/数据";
  EXPECT_EQ(KeyStorePath(config), "/srv/数据/system.db");
}

}  // namespace
}  // namespace cilia::app
