#include "memory/turns.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

store::TurnRecord Turn(const std::string& conversation, const std::string& day, int64_t input, int64_t cached) {
  store::TurnRecord r;
  r.started_at = 1'780'000'000'000;
  r.local_day = day;
  r.conversation_id = conversation;
  r.endpoint = "messages";
  r.upstream_model = "main/claude";
  r.input_tokens = input;
  r.cache_read_tokens = cached;
  return r;
}

TEST(TurnsTest, ListsPagesAndSumsCacheUse) {
  testing::TestNamespace t;
  for (const auto& r : {Turn("a", "2026-05-27", 100, 50), Turn("b", "2026-05-28", 100, 0), Turn("a", "2026-05-28", 100, 100)}) {
    ASSERT_TRUE(t.ns().store().Write([&](store::Database& db) { return store::TurnRepo(db).Append(r); }).ok());
  }
  auto all = ListTurns(t.ns(), std::nullopt, std::nullopt, 10);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_GT((*all)[0].id, (*all)[1].id);  // newest first
  auto of_a = ListTurns(t.ns(), std::string("a"), std::nullopt, 10);
  ASSERT_TRUE(of_a.ok());
  EXPECT_EQ(of_a->size(), 2u);
  auto older = ListTurns(t.ns(), std::nullopt, (*all)[0].id, 10);
  ASSERT_TRUE(older.ok());
  EXPECT_EQ(older->size(), 2u);

  auto stats = CacheStatsSince(t.ns(), "2026-05-28");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_EQ(stats->size(), 1u);
  EXPECT_EQ((*stats)[0].requests, 2);
  EXPECT_DOUBLE_EQ((*stats)[0].hit_rate, 0.5);
}

}  // namespace
}  // namespace cilia::memory
