#include "core/env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "testing/fault_env.h"
#include "testing/temp_dir.h"

namespace cilia {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(Env, WritesAFileWholeAndReplacesTheOldOne) {
  testing::TempDir tmp;
  const std::string path = tmp.Sub("image");
  ASSERT_TRUE(Env::Current().WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(Env::Current().WriteFileAtomically(path, std::string(100000, 'x')).ok());
  EXPECT_EQ(Read(path), std::string(100000, 'x'));
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(Env, AFullDiskIsDiskFullCountedAndLeavesNothing) {
  testing::TempDir tmp;
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kWrite, "image", Status::DiskFull("no space left on device"));
  Status st = Env::Current().WriteFileAtomically(tmp.Sub("image"), "bytes");
  EXPECT_EQ(st.code(), Code::kDiskFull);
  EXPECT_EQ(disk.reported(), std::vector<Code>{Code::kDiskFull}) << "reported once, for the metric";
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "neither the file nor its temporary";
}

TEST(Env, AFailedFsyncKeepsTheOldFile) {
  testing::TempDir tmp;
  const std::string path = tmp.Sub("image");
  ASSERT_TRUE(Env::Current().WriteFileAtomically(path, "old").ok());
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kSync, "image.tmp", Status::IOError("fsync image.tmp: Input/output error"));
  Status st = Env::Current().WriteFileAtomically(path, "new");
  EXPECT_EQ(st.code(), Code::kIOError);
  EXPECT_THAT(st.message(), HasSubstr("fsync"));
  EXPECT_EQ(Read(path), "old");
  EXPECT_FALSE(fs::exists(path + ".tmp"));
}

TEST(Env, ARealWriteErrorNamesThePath) {
  Status st = Env::Current().WriteFileAtomically("/nonexistent-dir/cilia/image", "x");
  EXPECT_EQ(st.code(), Code::kIOError);
  EXPECT_THAT(st.message(), HasSubstr("/nonexistent-dir/cilia/image.tmp"));
}

TEST(Env, ASlowDiskIsSlowButRight) {
  testing::TempDir tmp;
  testing::FaultEnv disk;
  disk.Slow(DiskOp::kSync, "", std::chrono::milliseconds(30));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Env::Current().WriteFileAtomically(tmp.Sub("image"), "bytes").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(60)) << "file and folder fsync";
  EXPECT_EQ(Read(tmp.Sub("image")), "bytes");
}

}  // namespace
}  // namespace cilia
