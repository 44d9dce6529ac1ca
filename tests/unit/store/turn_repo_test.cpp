#include "store/turn_repo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migrated_db.h"
#include "testing/temp_dir.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::Pair;

class TurnRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
  }
  TurnRecord Turn(std::string conversation, std::string day = "2026-05-28", std::string model = "main/chat") {
    TurnRecord r;
    r.started_at = 1'780'000'000'000;
    r.local_day = std::move(day);
    r.conversation_id = std::move(conversation);
    r.endpoint = "chat.completions";
    r.requested_model = "companion";
    r.upstream_model = std::move(model);
    r.input_tokens = 1000;
    r.output_tokens = 50;
    r.cache_read_tokens = 900;
    r.cache_write_tokens = 100;
    r.total_ms = 1200;
    return r;
  }
  int64_t Append(const TurnRecord& r) {
    auto id = TurnRepo(*db_).Append(r);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : 0;
  }
  std::vector<TurnRecord> All() { return *TurnRepo(*db_).List(std::nullopt, std::nullopt, 1000); }
  TurnRecord Only(int64_t id) {
    for (TurnRecord& r : All()) {
      if (r.id == id) return r;
    }
    ADD_FAILURE() << "no turn " << id;
    return {};
  }
  int64_t CountSources() {
    auto s = *db_->Prepare("SELECT count(*) FROM turn_sources");
    s->Step();
    int64_t n = s->Int(0);
    s->Reset();
    return n;
  }

};

TEST_P(TurnRepoTest, EveryFieldComesBackAsAppended) {
  TurnRecord r = Turn("trip-2023");
  r.endpoint = "messages";
  r.requested_model = "claude-haiku-4-5";
  r.upstream_model = "main/org/model:free";
  r.streamed = true;
  r.http_status = 502;
  r.error = "upstream: connection reset";
  r.first_byte_ms = 340;
  r.reasoning_tokens = 30;
  r.recall_rounds = 2;
  r.injected = {{"profile", {"persona", "user"}},
                {"menu", {"05-08 她去了支持小组 🌈", "05-09 Caroline: support group"}},
                {"recall_queries", json::array({"support group"})}};
  r.sources = {{"trip-2023", "D1:3"}, {"other", "m_17"}, {"trip-2023", "D1:1"}};
  int64_t id = Append(r);
  ASSERT_GT(id, 0);

  TurnRecord got = Only(id);
  EXPECT_EQ(got.id, id);
  EXPECT_EQ(got.started_at, r.started_at);
  EXPECT_EQ(got.local_day, "2026-05-28");
  EXPECT_EQ(got.conversation_id, "trip-2023");
  EXPECT_EQ(got.endpoint, "messages");
  EXPECT_EQ(got.requested_model, "claude-haiku-4-5");
  EXPECT_EQ(got.upstream_model, "main/org/model:free");
  EXPECT_TRUE(got.streamed);
  EXPECT_EQ(got.http_status, 502);
  EXPECT_EQ(got.error, "upstream: connection reset");
  EXPECT_EQ(got.input_tokens, 1000);
  EXPECT_EQ(got.output_tokens, 50);
  EXPECT_EQ(got.cache_read_tokens, 900);
  EXPECT_EQ(got.cache_write_tokens, 100);
  EXPECT_EQ(got.reasoning_tokens, 30);
  EXPECT_EQ(got.first_byte_ms, 340);
  EXPECT_EQ(got.total_ms, 1200);
  EXPECT_EQ(got.recall_rounds, 2);
  EXPECT_EQ(got.injected, r.injected);
  // In the order the gateway gave them.
  EXPECT_THAT(got.sources, ElementsAre(Pair("trip-2023", "D1:3"), Pair("other", "m_17"), Pair("trip-2023", "D1:1")));
}

TEST_P(TurnRepoTest, ATurnWithoutConversationOrFirstByteKeepsItsDefaults) {
  int64_t id = Append(Turn(""));
  TurnRecord got = Only(id);
  EXPECT_EQ(got.conversation_id, "");
  EXPECT_EQ(got.first_byte_ms, -1);
  EXPECT_FALSE(got.streamed);
  EXPECT_EQ(got.injected, json::object());
  EXPECT_TRUE(got.sources.empty());
}

TEST_P(TurnRepoTest, InjectedTextWithBrokenUtf8IsStoredWithReplacements) {
  TurnRecord r = Turn("c");
  r.injected = {{"menu", {std::string("cut mid-character \xe4\xbd")}}};
  int64_t id = Append(r);
  ASSERT_GT(id, 0);
  EXPECT_EQ(Only(id).injected["menu"][0], "cut mid-character \xef\xbf\xbd");
}

TEST_P(TurnRepoTest, ListIsNewestFirstAndPagesBackwards) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) ids.push_back(Append(Turn("c")));
  TurnRepo repo(*db_);
  auto first = *repo.List(std::nullopt, std::nullopt, 2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].id, ids[4]);
  EXPECT_EQ(first[1].id, ids[3]);
  auto second = *repo.List(std::nullopt, first.back().id, 2);
  ASSERT_EQ(second.size(), 2u);
  EXPECT_EQ(second[0].id, ids[2]);
  EXPECT_EQ(second[1].id, ids[1]);
  auto last = *repo.List(std::nullopt, second.back().id, 2);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].id, ids[0]);
  EXPECT_TRUE(repo.List(std::nullopt, ids[0], 2)->empty());
  EXPECT_TRUE(repo.List(std::nullopt, std::nullopt, 0)->empty());
}

TEST_P(TurnRepoTest, ListKeepsOneConversationWhenAsked) {
  int64_t a1 = Append(Turn("旅行"));
  Append(Turn("other"));
  int64_t a2 = Append(Turn("旅行"));
  Append(Turn(""));
  TurnRepo repo(*db_);
  auto turns = *repo.List("旅行", std::nullopt, 10);
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].id, a2);
  EXPECT_EQ(turns[1].id, a1);
  auto paged = *repo.List("旅行", a2, 10);
  ASSERT_EQ(paged.size(), 1u);
  EXPECT_EQ(paged[0].id, a1);
  EXPECT_EQ(repo.List("", std::nullopt, 10)->size(), 1u);
  EXPECT_TRUE(repo.List("nobody", std::nullopt, 10)->empty());
}

TEST_P(TurnRepoTest, CacheStatsSumSuccessfulTurnsPerDayAndModel) {
  Append(Turn("c", "2026-05-26"));  // before the first day asked for
  Append(Turn("c", "2026-05-27"));
  TurnRecord second = Turn("c", "2026-05-27");
  second.input_tokens = 3000;
  second.cache_read_tokens = 0;
  second.cache_write_tokens = 2500;
  Append(second);
  Append(Turn("c", "2026-05-27", "anthropic/claude"));
  TurnRecord failed = Turn("c", "2026-05-27");
  failed.http_status = 500;
  Append(failed);
  TurnRecord broken_stream = Turn("c", "2026-05-27");
  broken_stream.error = "stream cut";
  Append(broken_stream);
  TurnRecord empty = Turn("c", "2026-05-28");
  empty.input_tokens = empty.cache_read_tokens = empty.cache_write_tokens = empty.output_tokens = 0;
  Append(empty);

  auto stats = TurnRepo(*db_).CacheStatsSince("2026-05-27");
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  ASSERT_EQ(stats->size(), 3u);
  const auto& claude = (*stats)[0];
  EXPECT_EQ(claude.day, "2026-05-27");
  EXPECT_EQ(claude.model, "anthropic/claude");
  EXPECT_EQ(claude.requests, 1);
  EXPECT_DOUBLE_EQ(claude.hit_rate, 0.9);
  const auto& main = (*stats)[1];
  EXPECT_EQ(main.day, "2026-05-27");
  EXPECT_EQ(main.model, "main/chat");
  EXPECT_EQ(main.requests, 2);
  EXPECT_EQ(main.input_tokens, 4000);
  EXPECT_EQ(main.output_tokens, 100);
  EXPECT_EQ(main.cache_read_tokens, 900);
  EXPECT_EQ(main.cache_write_tokens, 2600);
  EXPECT_DOUBLE_EQ(main.hit_rate, 900.0 / 4000.0);
  const auto& idle = (*stats)[2];
  EXPECT_EQ(idle.day, "2026-05-28");
  EXPECT_EQ(idle.requests, 1);
  EXPECT_EQ(idle.hit_rate, 0.0);

  EXPECT_TRUE(TurnRepo(*db_).CacheStatsSince("2026-06-01")->empty());
}

TEST_P(TurnRepoTest, UsageCountsEveryTurnPerDayAndModelWithFailuresRoundsAndLatency) {
  Append(Turn("c", "2026-05-26"));  // before the first day asked for
  TurnRecord quick = Turn("c", "2026-05-27");
  quick.reasoning_tokens = 30;
  quick.first_byte_ms = 200;
  quick.total_ms = 1000;
  quick.recall_rounds = 2;
  Append(quick);
  TurnRecord slow = Turn("c", "2026-05-27");
  slow.first_byte_ms = 600;
  slow.total_ms = 3000;
  slow.recall_rounds = 1;
  slow.reasoning_tokens = 12;
  Append(slow);
  TurnRecord failed = Turn("c", "2026-05-27");
  failed.http_status = 502;
  failed.first_byte_ms = -1;
  failed.total_ms = 5000;
  failed.input_tokens = failed.output_tokens = failed.cache_read_tokens = failed.cache_write_tokens = 0;
  Append(failed);
  TurnRecord other = Turn("c", "2026-05-28", "anthropic/claude");
  other.error = "stream cut";
  other.first_byte_ms = -1;
  Append(other);

  auto usage = TurnRepo(*db_).UsageSince("2026-05-27");
  ASSERT_TRUE(usage.ok()) << usage.status().ToString();
  ASSERT_EQ(usage->size(), 2u);
  const auto& main = (*usage)[0];
  EXPECT_EQ(main.day, "2026-05-27");
  EXPECT_EQ(main.model, "main/chat");
  EXPECT_EQ(main.requests, 3);
  EXPECT_EQ(main.failed, 1);
  EXPECT_EQ(main.input_tokens, 2000);
  EXPECT_EQ(main.output_tokens, 100);
  EXPECT_EQ(main.cache_read_tokens, 1800);
  EXPECT_EQ(main.cache_write_tokens, 200);
  EXPECT_EQ(main.reasoning_tokens, 42);
  EXPECT_EQ(main.recall_rounds, 3);
  EXPECT_DOUBLE_EQ(main.first_byte_ms_avg, 400);  // the failed turn sent no byte: not averaged
  EXPECT_DOUBLE_EQ(main.total_ms_avg, 3000);
  EXPECT_EQ(main.total_ms_max, 5000);
  const auto& claude = (*usage)[1];
  EXPECT_EQ(claude.day, "2026-05-28");
  EXPECT_EQ(claude.failed, 1);
  EXPECT_DOUBLE_EQ(claude.first_byte_ms_avg, -1);

  EXPECT_TRUE(TurnRepo(*db_).UsageSince("2026-06-01")->empty());
}

TEST_P(TurnRepoTest, ForgettingAMessageScrubsTheRecordsThatCarryItsWords) {
  TurnRecord same_conversation = Turn("trip");
  same_conversation.injected = {{"recall_queries", {"what did she say about the group"}}};
  int64_t own = Append(same_conversation);
  TurnRecord quoting = Turn("later-chat");
  quoting.injected = {{"menu", {"05-08 I went to a support group"}}};
  quoting.sources = {{"trip", "D1:3"}, {"trip", "D1:4"}};
  int64_t quoted = Append(quoting);
  TurnRecord unrelated = Turn("cooking");
  unrelated.injected = {{"menu", {"pasta"}}};
  unrelated.sources = {{"trip", "D1:9"}, {"cooking", "m_1"}};
  int64_t kept = Append(unrelated);

  ASSERT_TRUE(TurnRepo(*db_).ForgetMessage("trip", "D1:3").ok());

  const json forgotten = json::parse(kForgottenInjected);
  for (int64_t id : {own, quoted}) {
    TurnRecord got = Only(id);
    EXPECT_EQ(got.injected, forgotten) << id;
    EXPECT_TRUE(got.sources.empty()) << id;
    EXPECT_EQ(got.input_tokens, 1000) << "usage stays";
  }
  TurnRecord untouched = Only(kept);
  EXPECT_EQ(untouched.injected, unrelated.injected);
  EXPECT_EQ(untouched.sources.size(), 2u);
  EXPECT_EQ(All().size(), 3u);
}

TEST_P(TurnRepoTest, ForgettingAConversationDeletesItsTurnsAndScrubsThoseQuotingIt) {
  Append(Turn("trip"));
  TurnRecord quoting = Turn("later-chat");
  quoting.injected = {{"menu", {"05-08 support group"}}};
  quoting.sources = {{"trip", "D1:3"}, {"cooking", "m_1"}};
  int64_t quoted = Append(quoting);
  TurnRecord unrelated = Turn("cooking");
  unrelated.sources = {{"cooking", "m_1"}};
  int64_t kept = Append(unrelated);
  TurnRecord own_with_sources = Turn("trip");
  own_with_sources.sources = {{"cooking", "m_2"}};
  Append(own_with_sources);

  ASSERT_TRUE(TurnRepo(*db_).ForgetConversation("trip").ok());

  std::vector<int64_t> left;
  for (const TurnRecord& r : All()) left.push_back(r.id);
  EXPECT_THAT(left, ElementsAre(kept, quoted));
  EXPECT_EQ(Only(quoted).injected, json::parse(kForgottenInjected));
  EXPECT_TRUE(Only(quoted).sources.empty());
  EXPECT_THAT(Only(kept).sources, ElementsAre(Pair("cooking", "m_1")));
  EXPECT_EQ(CountSources(), 1) << "no source row of a deleted or scrubbed turn remains";
}

TEST_P(TurnRepoTest, ForgettingWhatNoTurnMentionsChangesNothing) {
  TurnRecord r = Turn("c");
  r.injected = {{"menu", {"x"}}};
  r.sources = {{"c", "m_1"}};
  int64_t id = Append(r);
  ASSERT_TRUE(TurnRepo(*db_).ForgetMessage("elsewhere", "m_1").ok());
  ASSERT_TRUE(TurnRepo(*db_).ForgetConversation("nobody").ok());
  EXPECT_EQ(Only(id).injected, r.injected);
  EXPECT_EQ(Only(id).sources.size(), 1u);
}

TEST_P(TurnRepoTest, AForgetInsideTheCallersTransactionRollsBackWithIt) {
  TurnRecord r = Turn("c");
  r.injected = {{"menu", {"x"}}};
  int64_t id = Append(r);
  {
    Transaction tx(*db_);
    ASSERT_TRUE(tx.Begin().ok());
    ASSERT_TRUE(TurnRepo(*db_).ForgetConversation("c").ok());
    ASSERT_TRUE(TurnRepo(*db_).Append(Turn("d")).ok());
    EXPECT_EQ(All().size(), 1u);
  }  // not committed
  ASSERT_EQ(All().size(), 1u);
  EXPECT_EQ(All()[0].id, id);
  EXPECT_EQ(All()[0].injected, r.injected);
}

TEST_P(TurnRepoTest, RetentionDropsOldTurnsWithTheirSources) {
  TurnRecord old_turn = Turn("c");
  old_turn.started_at = 1000;
  old_turn.sources = {{"c", "m_1"}, {"c", "m_2"}};
  Append(old_turn);
  Append(old_turn);
  TurnRecord boundary = Turn("c");
  boundary.started_at = 2000;
  boundary.sources = {{"c", "m_3"}};
  int64_t kept = Append(boundary);

  auto dropped = TurnRepo(*db_).DeleteBefore(2000);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 2);
  ASSERT_EQ(All().size(), 1u);
  EXPECT_EQ(All()[0].id, kept);
  EXPECT_EQ(CountSources(), 1);
  EXPECT_EQ(*TurnRepo(*db_).DeleteBefore(0), 0);
}

CILIA_ON_EACH_BACKEND(TurnRepoTest);

}  // namespace
}  // namespace cilia::store
