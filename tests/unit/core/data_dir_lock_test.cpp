#include "core/data_dir_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace cilia {
namespace {

using ::testing::HasSubstr;

class DataDirLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-lock-test-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(DataDirLockTest, AFreeDataDirIsTaken) {
  auto lock = DataDirLock::Acquire(dir_, "cilia serve");
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/serve.lock"));
}

TEST_F(DataDirLockTest, ASecondHolderIsToldWhoHasItAndWhatToDo) {
  auto serve = DataDirLock::Acquire(dir_, "cilia serve");
  ASSERT_TRUE(serve.ok());
  auto ingest = DataDirLock::Acquire(dir_, "cilia ingest");
  ASSERT_FALSE(ingest.ok());
  EXPECT_EQ(ingest.status().code(), Code::kBusy);
  EXPECT_EQ(ingest.status().message(), "data dir " + dir_ + " is in use by a running `cilia serve` (pid " +
                                           std::to_string(getpid()) + "); use the HTTP API");
}

TEST_F(DataDirLockTest, AWritingCommandHoldingItAsksToWait) {
  auto import = DataDirLock::Acquire(dir_, "cilia import");
  ASSERT_TRUE(import.ok());
  auto serve = DataDirLock::Acquire(dir_, "cilia serve");
  ASSERT_FALSE(serve.ok());
  EXPECT_THAT(serve.status().message(), HasSubstr("`cilia import` (pid "));
  EXPECT_THAT(serve.status().message(), HasSubstr("try again when it has finished"));
}

TEST_F(DataDirLockTest, ReleasingMakesItFreeAgain) {
  {
    auto first = DataDirLock::Acquire(dir_, "cilia serve");
    ASSERT_TRUE(first.ok());
  }
  EXPECT_TRUE(DataDirLock::Acquire(dir_, "cilia keys").ok());
}

TEST_F(DataDirLockTest, AMovedLockStillHolds) {
  auto acquired = DataDirLock::Acquire(dir_, "cilia serve");
  ASSERT_TRUE(acquired.ok());
  DataDirLock moved = std::move(acquired).value();
  EXPECT_FALSE(DataDirLock::Acquire(dir_, "cilia ingest").ok());
  DataDirLock other = std::move(moved);
  EXPECT_FALSE(DataDirLock::Acquire(dir_, "cilia ingest").ok());
}

TEST_F(DataDirLockTest, TheHolderCanBeAskedWithoutTakingTheLock) {
  EXPECT_EQ(DataDirHolder(dir_), "");
  auto serve = DataDirLock::Acquire(dir_, "cilia serve");
  ASSERT_TRUE(serve.ok());
  EXPECT_EQ(DataDirHolder(dir_), "`cilia serve` (pid " + std::to_string(getpid()) + ")");
  EXPECT_EQ(DataDirHolder(dir_ + "/does-not-exist"), "");
}

TEST_F(DataDirLockTest, TheHoldersPidAndCommandAreReadBack) {
  EXPECT_FALSE(FindDataDirHolder(dir_).has_value());
  auto jobs = DataDirLock::Acquire(dir_, "cilia jobs run nightly");
  ASSERT_TRUE(jobs.ok());
  auto holder = FindDataDirHolder(dir_);
  ASSERT_TRUE(holder.has_value());
  EXPECT_EQ(holder->pid, getpid());
  EXPECT_EQ(holder->command, "cilia jobs run nightly");
}

TEST_F(DataDirLockTest, AMissingDataDirIsAnIOError) {
  auto lock = DataDirLock::Acquire(dir_ + "/missing", "cilia serve");
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), Code::kIOError);
  EXPECT_THAT(lock.status().message(), HasSubstr("missing/serve.lock"));
}

TEST_F(DataDirLockTest, ADataDirWithUnicodeInItsNameWorks) {
  std::string unicode = dir_ + "/数据 🌸";
  std::filesystem::create_directory(unicode);
  auto lock = DataDirLock::Acquire(unicode, "cilia serve");
  ASSERT_TRUE(lock.ok());
  EXPECT_THAT(DataDirLock::Acquire(unicode, "cilia ingest").status().message(), HasSubstr("数据 🌸"));
}

}  // namespace
}  // namespace cilia
