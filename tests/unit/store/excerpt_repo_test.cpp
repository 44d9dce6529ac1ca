#include "store/excerpt_repo.h"

#include <gtest/gtest.h>

#include "core/half.h"
#include "testing/float32_vectors.h"
#include "migrated_db.h"
#include "store/message_repo.h"
#include "store/vector_table.h"

namespace cilia::store {
namespace {

class ExcerptRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
    ASSERT_TRUE([&](Database& db) -> Status {
      MessageRepo repo(db);
      CILIA_ASSIGN_OR_RETURN(conv_, repo.CreateConversation("c", "", 1000));
      for (int i = 0; i < 2; ++i) {
        MessageRecord m;
        m.seq = conv_.next_seq++;
        m.role = "user";
        m.content = "\"x\"";
        m.text = "我住在成都 🌶️ message " + std::to_string(i);
        m.content_hash = "h" + std::to_string(i);
        m.created_at = m.stored_at = 1000 + i;
        m.source = "api";
        CILIA_RETURN_IF_ERROR(repo.Append(conv_, m));
        messages_.push_back(m.id);
      }
      return repo.SaveConversation(conv_);
    }(*db_)
                                         .ok());
  }
  ExcerptRecord Sample(int message, const std::string& content) {
    ExcerptRecord e;
    e.content = content;
    e.quote = "我住在成都 🌶️";
    e.source = {conv_.id, messages_[message], 0, 7};
    e.fact_key = "home_city";
    e.created_at = e.updated_at = 5;
    e.words = "住 成都";
    return e;
  }
  template <typename F>
  auto W(F f) {
    ExcerptRepo repo(*db_);
    return f(repo);
  }

  ConversationRecord conv_;
  std::vector<int64_t> messages_;
};

TEST_P(ExcerptRepoTest, RowsRoundTripEveryField) {
  ExcerptRecord e = Sample(0, "她住在成都");
  e.valid_from = 7;
  e.pinned = true;
  e.author = Author::kOwner;
  e.last_recalled = 9;
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.Insert(e); }).ok());
  EXPECT_GT(e.id, 0);
  // PostgreSQL's identity sequence is shared by every namespace.
  if (!OnPostgres()) {
    EXPECT_EQ(e.id, 1);
  }
  auto back = W([&](ExcerptRepo& r) { return r.Get(e.id); });
  ASSERT_TRUE(back.ok() && *back);
  EXPECT_EQ(**back, e);
  e.status = ExcerptStatus::kArchived;
  e.fact_key.reset();
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.Update(e); }).ok());
  EXPECT_EQ(**W([&](ExcerptRepo& r) { return r.Get(e.id); }), e);
  EXPECT_TRUE(W([&](ExcerptRepo& r) { return r.ActiveWithFactKey("home_city"); })->empty());
}

TEST_P(ExcerptRepoTest, ListsPageNewestFirstByStatus) {
  std::vector<int64_t> ids;  // ascending; not from 1 on PostgreSQL, whose identity sequence all namespaces share
  for (int i = 0; i < 5; ++i) {
    ExcerptRecord e = Sample(i % 2, "fact " + std::to_string(i));
    if (i == 2) e.status = ExcerptStatus::kSuperseded;
    ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.Insert(e); }).ok());
    ids.push_back(e.id);
  }
  if (!OnPostgres()) {
    EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  }
  auto page = *W([](ExcerptRepo& r) { return r.List(ExcerptStatus::kActive, {2, std::nullopt}); });
  ASSERT_EQ(page.size(), 2u);
  EXPECT_EQ(page[0].id, ids[4]);
  auto next = *W([&](ExcerptRepo& r) { return r.List(ExcerptStatus::kActive, {2, page.back().id}); });
  ASSERT_EQ(next.size(), 2u);
  EXPECT_EQ(next[0].id, ids[1]) << "the third is superseded";
  EXPECT_EQ(next[1].id, ids[0]);
  EXPECT_EQ(W([](ExcerptRepo& r) { return r.List(std::nullopt, {100, std::nullopt}); })->size(), 5u);
  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.CountWithStatus(ExcerptStatus::kActive); }), 4);
  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.CountWithStatus(ExcerptStatus::kSuperseded); }), 1);
}

TEST_P(ExcerptRepoTest, CandidatesAreCountedByStatus) {
  for (CandidateStatus status : {CandidateStatus::kPending, CandidateStatus::kPending, CandidateStatus::kApproved}) {
    CandidateRecord c;
    c.content = "c";
    c.quote = "我住在成都 🌶️";
    c.source = {conv_.id, messages_[0], 0, 7};
    c.reason = "low_confidence";
    c.status = status;
    ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.InsertCandidate(c); }).ok());
  }
  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.CountCandidates(CandidateStatus::kPending); }), 2);
  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.CountCandidates(CandidateStatus::kMerged); }), 0);
}

TEST_P(ExcerptRepoTest, ForgetRemovesExcerptsHistoryAndCandidatesOfTheMessageOnly) {
  ExcerptRecord a = Sample(0, "a"), b = Sample(1, "b");
  ASSERT_TRUE(W([&](ExcerptRepo& r) -> Status {
                CILIA_RETURN_IF_ERROR(r.Insert(a));
                CILIA_RETURN_IF_ERROR(r.Insert(b));
                HistoryRecord h{0, a.id, 1, Author::kOwner, "create", std::nullopt, "{}"};
                CILIA_RETURN_IF_ERROR(r.AddHistory(h));
                CandidateRecord c;
                c.content = "c";
                c.quote = a.quote;
                c.source = a.source;
                c.reason = "low_confidence";
                return r.InsertCandidate(c);
              }).ok());
  ASSERT_TRUE(ExcerptRepo(*db_).DeleteQuoting(conv_.id, messages_[0]).ok());
  EXPECT_FALSE(*W([&](ExcerptRepo& r) { return r.Get(a.id); }));
  EXPECT_TRUE(*W([&](ExcerptRepo& r) { return r.Get(b.id); }));
  EXPECT_TRUE(W([&](ExcerptRepo& r) { return r.History(a.id); })->empty());
  EXPECT_TRUE(W([](ExcerptRepo& r) { return r.ListCandidates(std::nullopt, {}); })->empty());
  ASSERT_TRUE(ExcerptRepo(*db_).DeleteQuoting(conv_.id, std::nullopt).ok());
  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.Count(); }), 0);
}

TEST_P(ExcerptRepoTest, BatchesAreKeyedByStartAndRememberSucceededHashes) {
  ExtractionBatch b{0, conv_.id, 0, 30, "hash-1", 1, BatchStatus::kPending, "broken", 0, 1, 1};
  Status put = W([&](ExcerptRepo& r) { return r.PutBatch(b); });
  ASSERT_TRUE(put.ok()) << put.ToString();
  EXPECT_FALSE(*W([](ExcerptRepo& r) { return r.SucceededBefore("hash-1"); }));
  b.status = BatchStatus::kOk;
  b.attempts = 2;
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.PutBatch(b); }).ok());
  EXPECT_TRUE(*W([](ExcerptRepo& r) { return r.SucceededBefore("hash-1"); }));
  auto all = *W([](ExcerptRepo& r) { return r.AllBatches(); });
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], b);
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.PutCursor({conv_.id, 28, 3}); }).ok());
  EXPECT_EQ((*W([&](ExcerptRepo& r) { return r.GetCursor(conv_.id); }))->through_seq, 28);
}

TEST_P(ExcerptRepoTest, VectorsAreStoredAsFloat16AndFloat32RowsAreRewritten) {
  ExcerptRecord a = Sample(0, "a"), b = Sample(1, "b");
  ASSERT_TRUE(W([&](ExcerptRepo& r) -> Status {
                CILIA_RETURN_IF_ERROR(r.Insert(a));
                return r.Insert(b);
              }).ok());
  const std::vector<float> v = {0.1f, 0.7f};
  const std::vector<float> v16 = {RoundToHalf(0.1f), RoundToHalf(0.7f)};
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.PutVector(a.id, "e", v); }).ok());
  ASSERT_TRUE(testing::PutFloat32Vector(*db_, "excerpt_vectors", "excerpt_id", b.id, "e", v).ok());
  EXPECT_EQ(testing::VectorBytes(*db_, "excerpt_vectors", "excerpt_id", a.id), 4);
  auto vecs = *W([](ExcerptRepo& r) { return r.VectorsOf("e"); });
  ASSERT_EQ(vecs.size(), 2u);
  EXPECT_EQ(vecs[0].key, a.id);
  EXPECT_EQ(vecs[0].vec, v16);
  EXPECT_EQ(vecs[1].vec, v);

  EXPECT_EQ(*W([](ExcerptRepo& r) { return r.NarrowVectors(0, 1000); }), std::optional<int64_t>(b.id));
  EXPECT_EQ(*W([&](ExcerptRepo& r) { return r.NarrowVectors(b.id, 1000); }), std::nullopt);
  EXPECT_EQ(testing::VectorBytes(*db_, "excerpt_vectors", "excerpt_id", b.id), 4);
  vecs = *W([](ExcerptRepo& r) { return r.VectorsOf("e"); });
  ASSERT_EQ(vecs.size(), 2u);
  EXPECT_EQ(vecs[1].vec, v16);
  EXPECT_TRUE(W([&](ExcerptRepo& r) { return r.WithoutVector("e"); })->empty());
}

TEST_P(ExcerptRepoTest, OneExcerptsIndexEntryAndVectorAreReadByItsId) {
  ExcerptRecord a = Sample(1, "a"), b = Sample(0, "b");
  ASSERT_TRUE(W([&](ExcerptRepo& r) -> Status {
                CILIA_RETURN_IF_ERROR(r.Insert(a));
                return r.Insert(b);
              }).ok());
  auto entry = W([&](ExcerptRepo& r) { return r.IndexEntry(a.id); });
  ASSERT_TRUE(entry.ok() && *entry) << entry.status().ToString();
  EXPECT_EQ((*entry)->id, a.id);
  EXPECT_EQ((*entry)->conversation_row, conv_.id);
  EXPECT_EQ((*entry)->said_at, 1001) << "the quoted message's time";
  EXPECT_EQ((*entry)->words, "住 成都");
  EXPECT_FALSE(*W([&](ExcerptRepo& r) { return r.IndexEntry(b.id + 100); }));

  const std::vector<float> v = {0.1f, 0.7f};
  ASSERT_TRUE(W([&](ExcerptRepo& r) { return r.PutVector(a.id, "e", v); }).ok());
  ASSERT_TRUE(testing::PutFloat32Vector(*db_, "excerpt_vectors", "excerpt_id", b.id, "e", v).ok());
  VectorTable vectors = VectorTable::Excerpts(*db_);
  EXPECT_EQ(*vectors.Get(a.id, "e"), (std::vector<float>{RoundToHalf(0.1f), RoundToHalf(0.7f)}));
  EXPECT_EQ(*vectors.Get(b.id, "e"), v) << "a float32 row reads as it was written";
  EXPECT_EQ(*vectors.Get(a.id, "another embedder"), std::nullopt);
  EXPECT_EQ(*vectors.Get(b.id + 100, "e"), std::nullopt);
}

CILIA_ON_EACH_BACKEND(ExcerptRepoTest);

}  // namespace
}  // namespace cilia::store
