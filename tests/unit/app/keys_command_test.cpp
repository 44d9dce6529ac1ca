#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "app/commands.h"
#include "store/key_store.h"

namespace cilia::app {
namespace {

using ::testing::ElementsAre;

class FirstKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-first-key-test-XXXXXX";
    config_.server.data_dir = mkdtemp(pattern);
    keys_ = std::move(store::KeyStore::Open(KeyStorePath(config_))).value();
  }
  void TearDown() override {
    keys_.reset();
    std::filesystem::remove_all(config_.server.data_dir);
  }
  std::string KeyFile() const { return config_.server.data_dir + "/admin.key"; }
  std::string ReadKeyFile() const {
    std::string key;
    std::ifstream(KeyFile()) >> key;
    return key;
  }

  Config config_;
  std::unique_ptr<store::KeyStore> keys_;
};

TEST_F(FirstKeyTest, AFirstStartWritesAFullKeyOnlyTheOwnerCanRead) {
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  struct stat info {};
  ASSERT_EQ(stat(KeyFile().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  auto verified = keys_->Verify(ReadKeyFile());
  ASSERT_TRUE(verified.ok()) << verified.status().ToString();
  EXPECT_EQ(verified->name_space, "default");
  EXPECT_THAT(verified->scopes, ElementsAre("chat", "memory:read", "memory:write", "admin"));
}

TEST_F(FirstKeyTest, ASecondStartCreatesNothing) {
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  std::string first = ReadKeyFile();
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  EXPECT_EQ(ReadKeyFile(), first);
  EXPECT_EQ(keys_->List().size(), 1u);
}

TEST_F(FirstKeyTest, AnEnvironmentKeyMeansNoKeyIsCreated) {
  config_.client_api_key = "cilia_test_from_env";
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  EXPECT_TRUE(keys_->List().empty());
  EXPECT_FALSE(std::filesystem::exists(KeyFile()));
}

TEST_F(FirstKeyTest, AnExistingKeyMeansNoKeyIsCreated) {
  ASSERT_TRUE(keys_->Create("mine", "default", {"chat"}).ok());
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  EXPECT_EQ(keys_->List().size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(KeyFile()));
}

TEST_F(FirstKeyTest, WhenEveryKeyIsRevokedANewOneIsMade) {
  auto old = keys_->Create("old", "default", {"admin"});
  ASSERT_TRUE(keys_->Revoke(old->info.id).ok());
  ASSERT_TRUE(CreateFirstKeyIfNone(*keys_, config_).ok());
  EXPECT_TRUE(keys_->Verify(ReadKeyFile()).ok());
  EXPECT_EQ(keys_->ActiveCount(), 1u);
}

TEST_F(FirstKeyTest, AKeyThatCannotBeWrittenIsTakenBack) {
  std::filesystem::create_directory(KeyFile());  // a directory where the file should go
  EXPECT_FALSE(CreateFirstKeyIfNone(*keys_, config_).ok());
  EXPECT_EQ(keys_->ActiveCount(), 0u);
}

}  // namespace
}  // namespace cilia::app
