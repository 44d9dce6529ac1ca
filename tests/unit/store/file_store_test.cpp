// Image bytes on each backend: SQLite's folder, PostgreSQL's file_bytes table.
#include "store/file_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "migrated_db.h"
#include "store/message_repo.h"

namespace cilia::store {
namespace {

class FileStoreTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
    std::filesystem::create_directories(dir_.Sub("files"));
  }
  FileStore Files() { return OnPostgres() ? FileStore::Table() : FileStore::Directory(dir_.Sub("files")); }
};

TEST_P(FileStoreTest, WhatIsPutIsGotBackByteForByte) {
  if (Skipped()) return;
  const std::string bytes("\x89PNG\r\n\x1a\n\0\xff binary", 18);
  ASSERT_TRUE(Files().Put(db(), "abc", bytes).ok());
  ASSERT_TRUE(Files().Put(db(), "abc", bytes).ok()) << "a second put of the same file is no error";
  auto got = Files().Get(db(), "abc");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, bytes);
  EXPECT_FALSE(Files().Get(db(), "missing").ok());
}

TEST_P(FileStoreTest, RemoveUnlistedKeepsOnlyTheFilesWithARow) {
  if (Skipped()) return;
  ASSERT_TRUE(Files().Put(db(), "kept", "K").ok());
  ASSERT_TRUE(Files().Put(db(), "forgotten", "F").ok());
  ASSERT_TRUE(MessageRepo(db()).PutFile("kept", "image/png", 1, 0).ok());
  ASSERT_TRUE(Files().RemoveUnlisted(db()).ok());
  EXPECT_EQ(*Files().Get(db(), "kept"), "K");
  EXPECT_FALSE(Files().Get(db(), "forgotten").ok()) << "no trace of a file without a row";
  if (OnPostgres()) {
    EXPECT_EQ(*(*db().Prepare("SELECT count(*) FROM file_bytes"))->OneInt(), 1);
  } else {
    EXPECT_FALSE(std::filesystem::exists(dir_.Sub("files/forgotten")));
  }
}

CILIA_ON_EACH_BACKEND(FileStoreTest);

}  // namespace
}  // namespace cilia::store
