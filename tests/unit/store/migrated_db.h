// Migrated databases for the repository tests: SQLite in a temporary folder
// (MigratedDbTest), or each backend in turn (BackendTest, parameterised):
// SQLite always, PostgreSQL when CILIA_TEST_PG_URL names one (scripts/
// pg-test.sh starts it; `make test` does). Under CI=true a PostgreSQL case
// without the URL fails instead of skipping, so CI cannot pass without it.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "testing/temp_dir.h"
#include "store/db.h"
#include "store/migrations.h"
#include "store/postgres_db.h"
#include "store/window_repo.h"

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

enum class Backend { kSqlite, kPostgres };

inline std::string BackendName(const ::testing::TestParamInfo<Backend>& info) {
  return info.param == Backend::kSqlite ? "Sqlite" : "Postgres";
}

inline std::string EnvOr(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// Sets `url` from environment variable `var`, or skips the test when it is
// unset, or fails it when that happens under CI=true.
#define CILIA_REQUIRE_POSTGRES(url, var)                                                          \
  do {                                                                                             \
    url = ::cilia::testing::EnvOr(var);                                                            \
    if (url.empty()) {                                                                             \
      if (::cilia::testing::EnvOr("CI") == "true") FAIL() << "CI=true but " var " is unset";       \
      GTEST_SKIP() << var " is unset: no PostgreSQL to test against (scripts/pg-test.sh start)";   \
    }                                                                                              \
  } while (0)

// A namespace no other test case (of this run or an earlier one against the
// same server) has used, so that cases do not see each other's rows.
inline std::string FreshNamespace() {
  static std::atomic<int> next{0};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
  return "t" + std::to_string(ms) + "_" + std::to_string(getpid()) + "_" + std::to_string(next++);
}

class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  // Subclasses call this first and return when IsSkipped() || HasFatalFailure().
  void SetUp() override {
    if (GetParam() == Backend::kSqlite) {
      auto db = store::Database::Open(dir_.Sub("t.db"), {});
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      db_ = std::move(*db);
    } else {
      std::string url;
      CILIA_REQUIRE_POSTGRES(url, "CILIA_TEST_PG_URL");
      ns_ = FreshNamespace();
      auto db = store::PostgresDatabase::Open(url, ns_);
      ASSERT_TRUE(db.ok()) << db.status().ToString();
      db_ = std::move(*db);
    }
    Status migrated = store::Migrate(*db_);
    ASSERT_TRUE(migrated.ok()) << migrated.ToString();
  }
  bool Skipped() const { return IsSkipped() || HasFatalFailure(); }
  bool OnPostgres() const { return GetParam() == Backend::kPostgres; }
  store::Database& db() { return *db_; }

  TempDir dir_;
  std::string ns_;  // PostgreSQL's
  std::unique_ptr<store::Database> db_;
};

// The ids of the windows the Han n-gram lookup `match` finds, sorted.
inline std::vector<int64_t> CjkIds(store::WindowRepo& repo, const char* match) {
  std::vector<int64_t> out;
  auto hits = repo.SearchCjk(match, {}, 10);
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  if (hits.ok()) {
    for (const store::ScoredId& h : *hits) out.push_back(h.id);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Runs every TEST_P of `fixture` on each backend.
#define CILIA_ON_EACH_BACKEND(fixture)                                                                       \
  INSTANTIATE_TEST_SUITE_P(Backends, fixture,                                                                \
                           ::testing::Values(::cilia::testing::Backend::kSqlite,                             \
                                             ::cilia::testing::Backend::kPostgres),                          \
                           ::cilia::testing::BackendName)

}  // namespace cilia::testing
