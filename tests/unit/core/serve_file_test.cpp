// Finding the `cilia serve` that holds a data dir: absent, stale, starting, live.
#include "core/serve_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/data_dir_lock.h"
#include "testing/temp_dir.h"

namespace cilia {
namespace {

using ::testing::HasSubstr;

class ServeFileTest : public ::testing::Test {
 protected:
  std::optional<ServeInfo> Found() {
    auto found = FindRunningServer(dir_.path());
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? *found : std::nullopt;
  }
  testing::TempDir dir_;
  const ServeInfo mine_{getpid(), "http://127.0.0.1:8420"};
};

TEST_F(ServeFileTest, NoServerWhenNothingHoldsTheDataDir) { EXPECT_FALSE(Found().has_value()); }

TEST_F(ServeFileTest, AFileLeftByAServerThatDiedIsIgnored) {
  ASSERT_TRUE(WriteServeFile(dir_.path(), mine_).ok());
  {
    auto lock = DataDirLock::Acquire(dir_.path(), "cilia serve");
    ASSERT_TRUE(lock.ok());
  }  // the flock goes with its holder, however it ends
  EXPECT_FALSE(Found().has_value());
}

TEST_F(ServeFileTest, TheServerHoldingTheLockIsFoundWithItsUrl) {
  auto lock = DataDirLock::Acquire(dir_.path(), "cilia serve");
  ASSERT_TRUE(lock.ok());
  ASSERT_TRUE(WriteServeFile(dir_.path(), mine_).ok());
  auto found = Found();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->pid, getpid());
  EXPECT_EQ(found->url, "http://127.0.0.1:8420");
  RemoveServeFile(dir_.path());
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("serve.json")));
}

TEST_F(ServeFileTest, AServerStillStartingOrAFileOfAnotherPidIsBusy) {
  auto lock = DataDirLock::Acquire(dir_.path(), "cilia serve");
  ASSERT_TRUE(lock.ok());
  auto starting = FindRunningServer(dir_.path());
  ASSERT_FALSE(starting.ok());
  EXPECT_EQ(starting.status().code(), Code::kBusy);
  EXPECT_THAT(starting.status().message(), HasSubstr("has not said where it listens yet"));

  ASSERT_TRUE(WriteServeFile(dir_.path(), {getpid() + 1, "http://127.0.0.1:9"}).ok());
  EXPECT_EQ(FindRunningServer(dir_.path()).status().code(), Code::kBusy);
  std::ofstream(dir_.Sub("serve.json")) << "{not json";
  EXPECT_EQ(FindRunningServer(dir_.path()).status().code(), Code::kBusy);
}

TEST_F(ServeFileTest, AnotherCommandHoldingTheLockIsNoServer) {
  ASSERT_TRUE(WriteServeFile(dir_.path(), mine_).ok());
  auto lock = DataDirLock::Acquire(dir_.path(), "cilia ingest");
  ASSERT_TRUE(lock.ok());
  EXPECT_FALSE(Found().has_value());
}

TEST(LocalUrlForTest, AWildcardAddressIsReachedOnLoopback) {
  EXPECT_EQ(LocalUrlFor({"127.0.0.1", 8420}), "http://127.0.0.1:8420");
  EXPECT_EQ(LocalUrlFor({"0.0.0.0", 80}), "http://127.0.0.1:80");
  EXPECT_EQ(LocalUrlFor({"::", 8420}), "http://[::1]:8420");
  EXPECT_EQ(LocalUrlFor({"::1", 8420}), "http://[::1]:8420");
  EXPECT_EQ(LocalUrlFor({"localhost", 9000}), "http://localhost:9000");
}

}  // namespace
}  // namespace cilia
