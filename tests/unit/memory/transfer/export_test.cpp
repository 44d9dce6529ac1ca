#include "memory/transfer/export.h"

#include <gtest/gtest.h>

#include <sstream>

#include "testing/test_namespace.h"
#include "core/codec.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/candidates.h"
#include "memory/excerpts/excerpts.h"
#include "store/excerpt_repo.h"

namespace cilia::memory {
namespace {

ingest::IngestConversation Sample() {
  ingest::IngestConversation c;
  c.conversation_id = "c1";
  c.title = "标题 😀";
  for (int i = 0; i < 4; ++i) {
    ingest::IngestMessage m;
    if (i != 2) m.id = "m" + std::to_string(i);  // one message without a caller id
    m.role = i % 2 ? "assistant" : "user";
    m.name = i % 2 ? "AI" : "阿杰";
    m.content = "第" + std::to_string(i) + "句话。line \"quoted\"\n";
    m.created_at_ms = 1'700'000'000'000 + i * 1000;
    c.messages.push_back(std::move(m));
  }
  ingest::IngestMessage img;
  img.id = "img";
  img.role = "user";
  img.content = nlohmann::json::array(
      {{{"type", "text"}, {"text", "pic"}},
       {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64," + Base64Encode("IMG")}}}}});
  c.messages.push_back(img);
  return c;
}

std::string Export(Namespace& ns) {
  std::ostringstream out;
  EXPECT_TRUE(ExportNamespace(ns, out).ok());
  return out.str();
}

TEST(Export, ExportImportExportIsByteIdentical) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).Store(Sample()).ok());
  std::string first = Export(a.ns());
  testing::TestNamespace b;
  std::istringstream in(first);
  auto summary = ImportNamespace(b.ns(), in);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->messages, 5);
  EXPECT_EQ(summary->files, 1);
  EXPECT_EQ(Export(b.ns()), first);
  EXPECT_GT(b.ns().WindowCount(), 0u);  // derived data was rebuilt
}

TEST(Export, AForgottenMessagesImageIsNotExported) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).Store(Sample()).ok());
  ASSERT_NE(Export(a.ns()).find(Base64Encode("IMG")), std::string::npos);
  ASSERT_TRUE(Archive(a.ns()).ForgetMessage("c1", "img").ok());
  const std::string dump = Export(a.ns());
  EXPECT_EQ(dump.find("\"type\":\"file\""), std::string::npos);
  EXPECT_EQ(dump.find(Base64Encode("IMG")), std::string::npos);
}

TEST(Export, ImportIntoANonEmptyNamespaceMergesWithoutDuplicates) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).Store(Sample()).ok());
  std::string dump = Export(a.ns());
  std::istringstream once(dump);
  auto merged = ImportNamespace(a.ns(), once);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  // Four caller ids match, and the message without one is found by its public id m_<id>.
  EXPECT_EQ(merged->duplicates, 5);
  EXPECT_EQ(merged->messages, 0);
  EXPECT_EQ(Export(a.ns()), dump);
}

TEST(Export, ADumpImportedTwiceIntoAnotherNamespaceIsStoredOnce) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).Store(Sample()).ok());
  std::string dump = Export(a.ns());
  testing::TestNamespace b;
  ingest::IngestConversation other;  // b has rows of its own: the dump's row ids are not kept
  other.conversation_id = "other";
  other.messages.push_back({"x1", "user", "", "an earlier message", 1'600'000'000'000});
  ASSERT_TRUE(Archive(b.ns()).Store(other).ok());
  for (int round = 0; round < 3; ++round) {
    std::istringstream in(dump);
    auto imported = ImportNamespace(b.ns(), in);
    ASSERT_TRUE(imported.ok()) << imported.status().ToString();
    EXPECT_EQ(imported->messages, round == 0 ? 5 : 0) << "round " << round;
    EXPECT_EQ(imported->duplicates, round == 0 ? 0 : 5) << "round " << round;
  }
}

TEST(Export, BadDumpsAreRefusedWholeWithTheLine) {
  testing::TestNamespace a;
  std::istringstream no_header("{\"type\":\"conversation\"}\n");
  EXPECT_EQ(ImportNamespace(a.ns(), no_header).status().code(), Code::kInvalidArgument);
  std::istringstream bad_line(
      "{\"type\":\"cilia-export\",\"version\":1}\n"
      "{\"type\":\"conversation\",\"id\":\"c\",\"title\":\"\",\"created_at\":1,\"updated_at\":1,\"next_seq\":1}\n"
      "{\"type\":\"message\",\"conversation_id\":\"c\",\"id\":\"oops\"}\n");
  auto r = ImportNamespace(a.ns(), bad_line);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("line 3"), std::string::npos);
  EXPECT_EQ(Export(a.ns()).find("\"conversation\""), std::string::npos);
}

// L1: excerpts in every state, their history, a candidate, the extraction
// bookkeeping.
void AddExcerpts(Namespace& ns) {
  Excerpts x(ns);
  NewExcerpt item;
  item.content = "阿杰说了第零句话。";
  item.quote = "第0句话。line \"quoted\"";
  item.conversation_id = "c1";
  item.message_id = "m0";
  item.fact_key = "first_words";
  auto old = x.Create(item, Author::kExtractor);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  item.content = "阿杰又说了一句。";
  item.quote = "第1句话。line";
  item.message_id = "m1";
  auto now = x.Create(item, Author::kOwner);
  ASSERT_TRUE(now.ok());
  ASSERT_TRUE(x.Supersede(old->id, now->id, Author::kOwner).ok());
  ASSERT_TRUE(x.SetPinned(now->id, true, Author::kOwner).ok());
  item.content = "gone";
  item.quote = "第3句话。line";
  item.message_id = "m3";
  item.fact_key.reset();
  auto gone = x.Create(item, Author::kAgent);
  ASSERT_TRUE(gone.ok());
  ASSERT_TRUE(x.Delete(gone->id, Author::kOwner).ok());
  item.message_id = std::nullopt;
  item.quote = "第2句话。line";
  auto checked = x.CheckQuote(item);
  ASSERT_TRUE(checked.ok());
  Excerpts::Draft draft;
  draft.content = "没有编号的一句。";
  draft.quote = *checked;
  draft.confidence = 0.5;
  ASSERT_TRUE(Candidates(ns).Queue(draft, "2023-11-14", "low_confidence", now->id).ok());
  ASSERT_TRUE(ns.store().Write([&](store::Database& db) -> Status {
    store::ExcerptRepo repo(db);
    CILIA_RETURN_IF_ERROR(repo.PutCursor({checked->source.conversation_row, 5, 42}));
    store::ExtractionBatch b{0, checked->source.conversation_row, 0, 5, "abc", 1, store::BatchStatus::kOk, "", 2, 40, 41};
    return repo.PutBatch(b);
  }).ok());
}

TEST(Export, ExcerptsHistoryAndCandidatesSurviveExportAndImportByteForByte) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).StoreAndIndex(Sample()).ok());
  AddExcerpts(a.ns());
  const std::string first = Export(a.ns());
  EXPECT_NE(first.find("\"type\":\"excerpt_history\""), std::string::npos);
  EXPECT_NE(first.find("\"type\":\"candidate\""), std::string::npos);
  testing::TestNamespace b;
  std::istringstream in(first);
  auto summary = ImportNamespace(b.ns(), in);
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_EQ(summary->excerpts, 2);
  EXPECT_EQ(summary->candidates, 1);
  EXPECT_EQ(Export(b.ns()), first);
  EXPECT_EQ(b.ns().excerpts().size(), 2u) << "the index is rebuilt";
  EXPECT_EQ(b.ns().excerpts().vectors().size(), 2u);
  auto history = *Excerpts(b.ns()).History(3);
  ASSERT_EQ(history.size(), 2u) << "a deleted excerpt's history stays";
  EXPECT_EQ(history[1].action, "delete");
}

TEST(Export, MergingADumpTwiceAddsItsExcerptsOnce) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).StoreAndIndex(Sample()).ok());
  AddExcerpts(a.ns());
  const std::string dump = Export(a.ns());
  testing::TestNamespace b;
  ASSERT_TRUE(Archive(b.ns()).Store(Sample()).ok());
  for (int round = 0; round < 2; ++round) {
    std::istringstream in(dump);
    auto summary = ImportNamespace(b.ns(), in);
    ASSERT_TRUE(summary.ok()) << summary.status().ToString();
    EXPECT_EQ(summary->excerpts, round == 0 ? 2 : 0);
  }
  auto all = *b.ns().store().Read([](store::Database& db) { return store::ExcerptRepo(db).List(std::nullopt, {}); });
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].superseded_by, all[0].id) << "links follow the new ids";
}

}  // namespace
}  // namespace cilia::memory
