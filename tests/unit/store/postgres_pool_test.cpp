// The gateway's PostgreSQL connections: leased and given back, bounded, a
// broken one replaced, each lease in its own namespace.
#include "store/postgres_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/process_identity.h"
#include "migrated_db.h"

namespace cilia::store {
namespace {

using namespace std::chrono_literals;

class PostgresPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { CILIA_REQUIRE_POSTGRES(url_, "CILIA_TEST_PG_URL"); }
  std::shared_ptr<PostgresPool> Open(int size, std::chrono::milliseconds wait = 5s) {
    auto pool = PostgresPool::Open(url_, "test db", {.size = size, .statement_timeout_ms = 30'000, .wait = wait});
    EXPECT_TRUE(pool.ok()) << pool.status().ToString();
    return pool.ok() ? *pool : nullptr;
  }
  static int64_t BackendPid(PostgresDatabase& db) { return PQbackendPID(db.raw()); }
  // The next lease of `pool` is a working connection other than `dead`'s.
  static void ExpectANewWorkingConnection(PostgresPool& pool, int64_t dead) {
    auto lease = pool.Acquire("a");
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    EXPECT_NE(BackendPid(**lease), dead);
    EXPECT_TRUE((*lease)->Exec("SELECT 1").ok());
  }
  static std::string NamespaceOf(PostgresDatabase& db) {
    auto ns = (*db.Prepare("SELECT current_setting('cilia.ns')"))->One([](const Statement& r) { return r.Text(0); });
    return ns.ok() && *ns ? **ns : "?";
  }
  std::string url_;
};

TEST_F(PostgresPoolTest, ALeaseGivesItsConnectionBackForTheNext) {
  auto pool = Open(2);
  ASSERT_TRUE(pool);
  int64_t pid = 0;
  {
    auto lease = pool->Acquire("a");
    ASSERT_TRUE(lease.ok()) << lease.status().ToString();
    pid = BackendPid(**lease);
  }
  auto again = pool->Acquire("a");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(BackendPid(**again), pid) << "the idle connection is reused, not a new one opened";
  EXPECT_EQ(pool->open_connections(), 1);
}

TEST_F(PostgresPoolTest, EachLeaseActsForItsOwnNamespace) {
  auto pool = Open(1);
  ASSERT_TRUE(pool);
  const std::string a = testing::FreshNamespace(), b = testing::FreshNamespace();
  {
    auto lease = pool->Acquire(a);
    ASSERT_TRUE(lease.ok());
    EXPECT_EQ(NamespaceOf(**lease), a);
    ASSERT_TRUE((*lease)->Exec("INSERT INTO files(sha256, mime, size, created_at) VALUES ('x', 'image/png', 1, 0)").ok());
  }
  auto lease = pool->Acquire(b);  // the same connection (size 1), now for b
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(NamespaceOf(**lease), b);
  EXPECT_EQ(*(*(*lease)->Prepare("SELECT count(*) FROM files"))->OneInt(), 0) << "b sees none of a's rows";
}

TEST_F(PostgresPoolTest, EachPoolsConnectionsWriteAsItsOwnWriter) {
  auto one = Open(1), two = Open(1);
  ASSERT_TRUE(one && two);
  EXPECT_NE(one->writer(), two->writer()) << "two gateways in one test process still tell their changes apart";
  EXPECT_EQ(one->writer().rfind(ProcessIdentity() + ":", 0), 0u) << one->writer();
  auto lease = one->Acquire("a");
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  auto writer = (*(*lease)->Prepare("SELECT current_setting('cilia.writer')"))->One([](const Statement& r) {
    return r.Text(0);
  });
  ASSERT_TRUE(writer.ok() && *writer);
  EXPECT_EQ(**writer, one->writer());
}

TEST_F(PostgresPoolTest, WhenAllAreLeasedALeaseWaitsThenIsBusy) {
  auto pool = Open(2, 200ms);
  ASSERT_TRUE(pool);
  auto first = pool->Acquire("a");
  auto second = pool->Acquire("b");
  ASSERT_TRUE(first.ok() && second.ok());
  const auto start = std::chrono::steady_clock::now();
  auto third = pool->Acquire("c");
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), Code::kBusy) << third.status().ToString();
  EXPECT_NE(third.status().message().find("pool_size"), std::string::npos) << third.status().message();
  EXPECT_GE(waited, 190ms);
  EXPECT_LT(waited, 2s);
  EXPECT_EQ(pool->open_connections(), 2);
  first->reset();  // given back: the next lease has it at once
  EXPECT_TRUE(pool->Acquire("c").ok());
}

TEST_F(PostgresPoolTest, ABrokenConnectionIsClosedAndReplaced) {
  auto pool = Open(2);
  ASSERT_TRUE(pool);
  int64_t dead = 0;
  {
    auto lease = pool->Acquire("a");
    ASSERT_TRUE(lease.ok());
    dead = BackendPid(**lease);
    (void)(*lease)->Exec("SELECT pg_terminate_backend(pg_backend_pid())");
    Status st = (*lease)->Exec("SELECT 1");
    EXPECT_EQ(st.code(), Code::kBusy) << st.ToString();  // unreachable: 503, not an upstream's 502
  }
  EXPECT_EQ(pool->open_connections(), 0) << "the broken connection was closed, not given back";
  ExpectANewWorkingConnection(*pool, dead);
}

TEST_F(PostgresPoolTest, AnIdleConnectionThatDiedIsReplacedOnTheNextLease) {
  auto pool = Open(2);
  ASSERT_TRUE(pool);
  int64_t idle = 0;
  {
    auto lease = pool->Acquire("a");
    ASSERT_TRUE(lease.ok());
    idle = BackendPid(**lease);
  }
  auto killer = PostgresDatabase::Open(url_, "a");
  ASSERT_TRUE(killer.ok());
  ASSERT_TRUE((*killer)->Exec("SELECT pg_terminate_backend(" + std::to_string(idle) + ")").ok());
  std::this_thread::sleep_for(100ms);  // the backend exits
  ExpectANewWorkingConnection(*pool, idle);
}

TEST_F(PostgresPoolTest, ADatabaseThatCannotBeReachedIsBusyNamingTheStore) {
  auto pool = PostgresPool::Open("postgresql:///nowhere?host=/nonexistent-dir", "postgresql:///nowhere", {});
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), Code::kBusy) << pool.status().ToString();
  EXPECT_NE(pool.status().message().find("store postgresql:///nowhere"), std::string::npos) << pool.status().message();
}

TEST_F(PostgresPoolTest, RegisteredNamespacesAreListedByEveryPool) {
  auto one = Open(1), two = Open(1);
  ASSERT_TRUE(one && two);
  const std::string ns = testing::FreshNamespace();
  ASSERT_TRUE(one->Register(ns).ok());
  ASSERT_TRUE(one->Register(ns).ok()) << "registering twice is no error";
  auto names = two->Names();
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(std::count(names->begin(), names->end(), ns), 1);
}

}  // namespace
}  // namespace cilia::store
