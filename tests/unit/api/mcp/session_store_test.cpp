#include "api/mcp/session_store.h"

#include <gtest/gtest.h>

#include <set>

namespace cilia::api::mcp {
namespace {

using namespace std::chrono_literals;

class SessionStoreTest : public ::testing::Test {
 protected:
  SessionStore::SteadyClock::time_point now_{};
  SessionStore store_{3, 60s, [this] { return now_; }};
};

TEST_F(SessionStoreTest, OpensSessionsWithRandomVisibleIdsBoundToTheKey) {
  std::set<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    auto s = store_.Open("2025-11-25", "key1", "claude-code");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->id.size(), 64u);
    EXPECT_EQ(s->id.find_first_not_of("0123456789abcdef"), std::string::npos);
    ids.insert(s->id);
  }
  EXPECT_EQ(ids.size(), 3u);
  auto used = store_.Use(*ids.begin(), "key1");
  ASSERT_TRUE(used);
  EXPECT_EQ(used->protocol_version, "2025-11-25");
  EXPECT_EQ(used->client_name, "claude-code");
  EXPECT_FALSE(store_.Use(*ids.begin(), "key2")) << "another key may not use the session";
  EXPECT_FALSE(store_.Use("unknown", "key1"));
}

TEST_F(SessionStoreTest, IdleSessionsExpireAndUseKeepsThemAlive) {
  auto a = store_.Open("2025-06-18", "k", "");
  auto b = store_.Open("2025-06-18", "k", "");
  now_ += 50s;
  EXPECT_TRUE(store_.Use(a->id, "k"));
  now_ += 50s;
  EXPECT_TRUE(store_.Use(a->id, "k")) << "used 50 s ago";
  EXPECT_FALSE(store_.Use(b->id, "k")) << "idle for 100 s";
}

TEST_F(SessionStoreTest, PastTheLimitTheLeastRecentlyUsedGoes) {
  auto a = store_.Open("2025-03-26", "k", "");
  now_ += 1s;
  auto b = store_.Open("2025-03-26", "k", "");
  now_ += 1s;
  auto c = store_.Open("2025-03-26", "k", "");
  now_ += 1s;
  EXPECT_TRUE(store_.Use(a->id, "k"));
  auto d = store_.Open("2025-03-26", "k", "");
  EXPECT_EQ(store_.size(), 3u);
  EXPECT_TRUE(store_.Use(a->id, "k"));
  EXPECT_FALSE(store_.Use(b->id, "k"));
  EXPECT_TRUE(store_.Use(c->id, "k"));
  EXPECT_TRUE(store_.Use(d->id, "k"));
}

TEST_F(SessionStoreTest, CloseEndsASessionOfTheSameKeyOnly) {
  auto a = store_.Open("2025-11-25", "k", "");
  EXPECT_FALSE(store_.Close(a->id, "other"));
  EXPECT_TRUE(store_.Use(a->id, "k"));
  store_.MarkInitialized(a->id);
  EXPECT_TRUE(store_.Use(a->id, "k")->initialized);
  EXPECT_TRUE(store_.Close(a->id, "k"));
  EXPECT_FALSE(store_.Use(a->id, "k"));
  EXPECT_FALSE(store_.Close(a->id, "k"));
}

}  // namespace
}  // namespace cilia::api::mcp
