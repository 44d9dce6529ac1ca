// A migrated database in a temporary folder, for the repository tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "testing/temp_dir.h"
#include "store/db.h"
#include "store/migrations.h"

namespace cilia::testing {

class MigratedDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = std::move(*store::Database::Open(dir_.Sub("t.db"), {}));
    ASSERT_TRUE(store::Migrate(*db_).ok());
  }
  store::Database& db() { return *db_; }

  TempDir dir_;
  std::unique_ptr<store::Database> db_;
};

}  // namespace cilia::testing
