#include "store/window_repo.h"

#include <gtest/gtest.h>

#include "core/half.h"
#include "testing/float32_vectors.h"
#include "migrated_db.h"
#include "testing/temp_dir.h"
#include "store/message_repo.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

class WindowRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
    conv_ = MessageRepo(*db_).CreateConversation("c", "", 0)->id;
  }
  int64_t Add(int64_t seq, std::string body, std::string words, int64_t at) {
    WindowRecord w;
    w.conversation_row = conv_;
    w.first_seq = seq;
    w.last_seq = seq;
    w.created_at = w.ended_at = at;
    w.spans = "[]";
    w.body = std::move(body);
    w.words = std::move(words);
    EXPECT_TRUE(WindowRepo(*db_).Insert(w).ok());
    return w.id;
  }
  int64_t conv_ = 0;
};

TEST_P(WindowRepoTest, ForEachMetaVisitsEveryWindowWithItsWords) {
  WindowRepo repo(*db_);
  int64_t a = Add(0, "我报了天府锦江半马", "我 报 了 天府 锦江 半马", 10);
  int64_t b = Add(1, "today I ran ten km", "today i ran ten km", 20);
  std::vector<std::pair<int64_t, std::string>> seen;
  ASSERT_TRUE(repo.ForEachMeta([&](const WindowRepo::Meta& m, std::string_view words) {
                    seen.emplace_back(m.id, std::string(words));
                    EXPECT_EQ(m.conversation_id, conv_);
                  }).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(a, std::string("我 报 了 天府 锦江 半马")));
  EXPECT_EQ(seen[1].first, b);
}

TEST_P(WindowRepoTest, VisitMetaReadsOneWindowWithItsWordsOrSaysThereIsNone) {
  WindowRepo repo(*db_);
  Add(0, "first", "first", 10);
  const int64_t b = Add(1, "today I ran ten km", "today i ran ten km", 20);
  std::string words;
  int64_t created_at = 0;
  auto found = repo.VisitMeta(b, [&](const WindowRepo::Meta& m, std::string_view w) {
    words = w;
    created_at = m.created_at;
  });
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(*found);
  EXPECT_EQ(words, "today i ran ten km");
  EXPECT_EQ(created_at, 20);
  auto missing = repo.VisitMeta(b + 100, [](const WindowRepo::Meta&, std::string_view) { ADD_FAILURE(); });
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
}

TEST_P(WindowRepoTest, InsertAllGivesEachWindowTheIdOfItsRowAcrossChunks) {
  WindowRepo repo(*db_);
  Add(0, "before", "before", 1);  // ids do not start at 1
  std::vector<WindowRecord> ws(70);
  for (int i = 0; i < 70; ++i) {
    ws[i].conversation_row = conv_;
    ws[i].first_seq = ws[i].last_seq = i + 1;
    ws[i].created_at = ws[i].ended_at = 100 + i;
    ws[i].spans = "[]";
    ws[i].body = "window number " + std::to_string(i);
    ws[i].words = "window number " + std::to_string(i);
  }
  Status inserted = repo.InsertAll(ws);
  ASSERT_TRUE(inserted.ok()) << inserted.ToString();
  for (const WindowRecord& w : ws) {
    auto stored = repo.Get(w.id);
    ASSERT_TRUE(stored.ok() && stored->has_value()) << w.id;
    EXPECT_EQ((*stored)->first_seq, w.first_seq);
    EXPECT_EQ((*stored)->body, w.body);
  }
  EXPECT_EQ(*repo.Count(), 71);
  // The full-text triggers ran for every row.
  auto hits = repo.SearchTrigram("\"r 6\" AND \" 69\"", {}, 10);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, ws[69].id);
}

TEST_P(WindowRepoTest, TrigramFindsSubstringsAndCjkTableShortOnes) {
  WindowRepo repo(*db_);
  int64_t a = Add(0, "密码是 Kiwi-2048!", "密码 是 kiwi 2048", 10);
  int64_t b = Add(1, "码，是", "码 是", 20);
  auto hits = repo.SearchTrigram("\"wi-\" AND \"i-2\" AND \"-20\"", {}, 10);
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, a);
  auto ids = [&](const char* match) { return testing::CjkIds(repo, match); };
  // Tokens read from the body: both unigrams, the bigram only where adjacent.
  EXPECT_EQ(ids("\"密码\""), std::vector<int64_t>{a});
  EXPECT_EQ(ids("\"码是\""), std::vector<int64_t>{a});
  EXPECT_EQ(ids("\"码\""), (std::vector<int64_t>{a, b}));
  EXPECT_EQ(ids("\"是码\""), std::vector<int64_t>{});
  EXPECT_EQ(ids("\"kiwi\""), std::vector<int64_t>{});  // only Han is in this table
}

TEST_P(WindowRepoTest, CjkTableForgetsDeletedWindows) {
  WindowRepo repo(*db_);
  Add(0, "去成都", "去 成都", 1);
  int64_t b = Add(3, "成都很远", "成都 很 远", 2);
  ASSERT_EQ(repo.SearchCjk("\"成都\"", {}, 10)->size(), 2u);
  ASSERT_TRUE(repo.DeleteFrom(conv_, 3, 0).ok());
  auto left = repo.SearchCjk("\"成都\"", {}, 10);
  ASSERT_EQ(left->size(), 1u);
  EXPECT_NE((*left)[0].id, b);
  EXPECT_TRUE(repo.SearchCjk("\"远\"", {}, 10)->empty());
}

TEST_P(WindowRepoTest, FiltersRestrictByTimeAndConversation) {
  WindowRepo repo(*db_);
  Add(0, "kiwi one", "kiwi one", 100);
  int64_t late = Add(1, "kiwi two", "kiwi two", 200);
  WindowFilter f;
  f.from_ms = 150;
  auto hits = repo.SearchTrigram("\"kiw\"", f, 10);
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].id, late);
  f = {};
  f.conversation_row = conv_ + 1;
  EXPECT_TRUE(repo.SearchTrigram("\"kiw\"", f, 10)->empty());
  auto recent = repo.Recent({}, 10);
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_EQ((*recent)[0].id, late);
}

TEST_P(WindowRepoTest, DeleteFromRemovesIndexEntriesToo) {
  WindowRepo repo(*db_);
  Add(0, "alpha", "alpha", 1);
  int64_t b = Add(3, "bravo", "bravo", 2);
  auto gone = repo.DeleteFrom(conv_, 3, 0);
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(*gone, std::vector<int64_t>{b});
  EXPECT_TRUE(repo.SearchTrigram("\"bra\" AND \"rav\" AND \"avo\"", {}, 10)->empty());
  EXPECT_EQ(repo.SearchTrigram("\"alp\"", {}, 10)->size(), 1u);
  EXPECT_TRUE(repo.OptimizeIndexes().ok());
}

TEST_P(WindowRepoTest, VectorsAreKeptPerEmbedder) {
  WindowRepo repo(*db_);
  int64_t a = Add(0, "a", "a", 1);
  int64_t b = Add(1, "b", "b", 2);
  ASSERT_TRUE(repo.PutVector(a, "hash-v1-4", {1, 0, 0, 0}).ok());
  auto vecs = repo.VectorsOf("hash-v1-4");
  ASSERT_EQ(vecs->size(), 1u);
  EXPECT_EQ((*vecs)[0].vec, (std::vector<float>{1, 0, 0, 0}));
  EXPECT_EQ(*repo.MissingVectors("hash-v1-4", 10), std::vector<int64_t>{b});
  EXPECT_EQ(repo.MissingVectors("other", 10)->size(), 2u);
}

TEST_P(WindowRepoTest, VectorsAreStoredAsFloat16AndFloat32RowsStillRead) {
  WindowRepo repo(*db_);
  const std::vector<float> v = {0.1f, -0.5f, 0.3f, 1.0f};
  std::vector<float> v16;
  for (float x : v) v16.push_back(RoundToHalf(x));
  ASSERT_NE(v16, v);  // 0.1 and 0.3 are not halves
  int64_t a = Add(0, "a", "a", 1);
  int64_t b = Add(1, "b", "b", 2);
  int64_t c = Add(2, "c", "c", 3);
  int64_t d = Add(3, "d", "d", 4);
  ASSERT_TRUE(repo.PutVector(a, "e", v).ok());
  EXPECT_EQ(testing::VectorBytes(*db_, "window_vectors", "window_id", a), 8);
  ASSERT_TRUE(testing::PutFloat32Vector(*db_, "window_vectors", "window_id", b, "e", v).ok());
  ASSERT_TRUE(testing::PutFloat32Vector(*db_, "window_vectors", "window_id", d, "e", v).ok());
  ASSERT_TRUE(db_->Prepare("INSERT INTO window_vectors(window_id, embedder, dim, vec) VALUES (?, 'e', 4, ?)")
                  .value()
                  ->Bind(1, c)
                  .BindBlob(2, "torn", 4)
                  .Run()
                  .ok());

  auto read = [&] {
    std::vector<std::pair<int64_t, std::vector<float>>> out;
    auto vecs = repo.VectorsOf("e");
    EXPECT_TRUE(vecs.ok());
    for (auto& kv : *vecs) out.emplace_back(kv.key, kv.vec);
    return out;
  };
  using Rows = std::vector<std::pair<int64_t, std::vector<float>>>;
  EXPECT_EQ(read(), (Rows{{a, v16}, {b, v}, {d, v}})) << "float32 rows read as they were; the torn one is left out";

  // One batch at a time, in key order; the torn row and the float16 row are not touched.
  EXPECT_EQ(*repo.NarrowVectors(0, 1), std::optional<int64_t>(b));
  EXPECT_EQ(testing::VectorBytes(*db_, "window_vectors", "window_id", b), 8);
  EXPECT_EQ(testing::VectorBytes(*db_, "window_vectors", "window_id", d), 16);
  EXPECT_EQ(*repo.NarrowVectors(b, 1), std::optional<int64_t>(d));
  EXPECT_EQ(*repo.NarrowVectors(d, 1), std::nullopt);
  EXPECT_EQ(*repo.NarrowVectors(0, 10), std::nullopt);
  EXPECT_EQ(testing::VectorBytes(*db_, "window_vectors", "window_id", c), 4);
  EXPECT_EQ(read(), (Rows{{a, v16}, {b, v16}, {d, v16}}));
  EXPECT_EQ(*repo.VectorStats("e"), std::make_pair(int64_t{4}, d));
}

CILIA_ON_EACH_BACKEND(WindowRepoTest);

}  // namespace
}  // namespace cilia::store
