#include "store/namespace_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/temp_dir.h"

namespace cilia::store {
namespace {

int64_t Pragma(NamespaceStore& store, const char* sql) {
  auto value = store.Read([&](Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(Statement * s, db.Prepare(sql));
    return s->OneInt();
  });
  EXPECT_TRUE(value.ok()) << sql;
  return value.ok() ? *value : -1;
}

TEST(NamespaceStore, ANewDatabaseGivesTheSpaceADeleteFreedBackAtTheCheckpoint) {
  testing::TempDir dir;
  auto store = std::move(NamespaceStore::Open({.name = "default", .dir = dir.Sub("ns")}).value());
  EXPECT_EQ(Pragma(*store, "PRAGMA auto_vacuum"), 2);  // incremental
  const std::string text(2000, 'x');
  const Status filled = store->Write([&](Database& db) -> Status {
    CILIA_RETURN_IF_ERROR(db.Exec("CREATE TABLE big(t TEXT); BEGIN"));
    for (int i = 0; i < 2000; ++i) {
      CILIA_ASSIGN_OR_RETURN(Statement * s, db.Prepare("INSERT INTO big(t) VALUES (?)"));
      s->Bind(1, text);
      CILIA_RETURN_IF_ERROR(s->Run());
    }
    return db.Exec("COMMIT");
  });
  ASSERT_TRUE(filled.ok());
  ASSERT_TRUE(store->Checkpoint().ok());
  const std::string file = dir.Sub("ns") + "/cilia.db";
  const auto full = std::filesystem::file_size(file);
  const int64_t full_pages = Pragma(*store, "PRAGMA page_count");
  ASSERT_GT(full, 4'000'000u);

  ASSERT_TRUE(store->Write([](Database& db) { return db.Exec("DELETE FROM big"); }).ok());
  EXPECT_GT(Pragma(*store, "PRAGMA freelist_count"), full_pages / 2);  // freed, still in the file
  ASSERT_TRUE(store->Checkpoint().ok());
  EXPECT_EQ(Pragma(*store, "PRAGMA freelist_count"), 0);
  EXPECT_LT(Pragma(*store, "PRAGMA page_count"), full_pages / 2);
  EXPECT_LT(std::filesystem::file_size(file), full / 2);
  EXPECT_EQ(std::filesystem::file_size(file + "-wal"), 0u);
}

}  // namespace
}  // namespace cilia::store
