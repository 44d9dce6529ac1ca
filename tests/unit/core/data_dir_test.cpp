#include "core/data_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/log.h"
#include "testing/temp_dir.h"

namespace cilia {
namespace {

using ::testing::HasSubstr;

mode_t Mode(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 0777;
}

class DataDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_umask_ = umask(022);
    SetLogSink([this](std::string_view line) { lines_.emplace_back(line); });
  }
  void TearDown() override {
    SetLogSink(nullptr);
    umask(saved_umask_);
  }
  testing::TempDir tmp_;
  std::vector<std::string> lines_;
  mode_t saved_umask_ = 0;
};

TEST_F(DataDirTest, ANewDirAndEverythingCreatedInItLaterIsOwnerOnly) {
  const std::string dir = tmp_.Sub("new/data");
  ASSERT_TRUE(PrepareDataDir(dir).ok());
  EXPECT_EQ(Mode(dir), 0700u);
  std::filesystem::create_directories(dir + "/ns/default/files");
  std::ofstream(dir + "/ns/default/cilia.db") << "x";
  EXPECT_EQ(Mode(dir + "/ns/default/files"), 0700u);
  EXPECT_EQ(Mode(dir + "/ns/default/cilia.db"), 0600u);
  EXPECT_TRUE(lines_.empty()) << "nothing was loose";
}

TEST_F(DataDirTest, AnExistingLooseDirIsTightenedWithAWarning) {
  const std::string dir = tmp_.Sub("data");
  std::filesystem::create_directories(dir + "/ns/default");
  std::ofstream(dir + "/ns/default/cilia.db") << "x";
  std::ofstream(dir + "/admin.key") << "k";
  chmod(dir.c_str(), 0755);
  chmod((dir + "/ns").c_str(), 0775);
  chmod((dir + "/ns/default").c_str(), 0755);
  chmod((dir + "/ns/default/cilia.db").c_str(), 0644);
  chmod((dir + "/admin.key").c_str(), 0600);  // already private: not counted

  ASSERT_TRUE(PrepareDataDir(dir).ok());
  EXPECT_EQ(Mode(dir), 0700u);
  EXPECT_EQ(Mode(dir + "/ns"), 0700u);
  EXPECT_EQ(Mode(dir + "/ns/default"), 0700u);
  EXPECT_EQ(Mode(dir + "/ns/default/cilia.db"), 0600u);
  EXPECT_EQ(Mode(dir + "/admin.key"), 0600u);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], HasSubstr("WARN"));
  EXPECT_THAT(lines_[0], HasSubstr("4 entries could be read by other users"));

  lines_.clear();
  ASSERT_TRUE(PrepareDataDir(dir).ok());
  EXPECT_TRUE(lines_.empty()) << "a second start finds nothing to tighten";
}

TEST_F(DataDirTest, APathThatIsAFileIsAClearError) {
  const std::string file = tmp_.Sub("plain");
  std::ofstream(file) << "x";
  Status st = PrepareDataDir(file + "/data");
  EXPECT_EQ(st.code(), Code::kIOError);
  EXPECT_THAT(st.message(), HasSubstr("create data dir"));
}

}  // namespace
}  // namespace cilia
