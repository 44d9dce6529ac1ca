#include "memory/archive/archive.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "testing/fault_env.h"
#include "testing/float32_vectors.h"
#include "testing/test_namespace.h"
#include "core/codec.h"
#include "ingest/context_parts.h"
#include "store/message_repo.h"
#include "store/retention_repo.h"
#include "store/window_repo.h"

namespace cilia::memory {
namespace {

ingest::IngestMessage Msg(std::string id, std::string role, std::string text, std::optional<int64_t> at = std::nullopt) {
  ingest::IngestMessage m;
  m.id = std::move(id);
  m.role = std::move(role);
  m.content = std::move(text);
  m.created_at_ms = at;
  return m;
}

ingest::IngestConversation Conv(std::string id, std::vector<ingest::IngestMessage> msgs) {
  ingest::IngestConversation c;
  c.conversation_id = std::move(id);
  c.messages = std::move(msgs);
  return c;
}

std::vector<store::WindowRecord> Windows(Namespace& ns, const std::string& conversation) {
  return *ns.store().Read([&](store::Database& db) -> Result<std::vector<store::WindowRecord>> {
    auto conv = *store::MessageRepo(db).FindConversation(conversation);
    if (!conv) return std::vector<store::WindowRecord>{};
    return store::WindowRepo(db).ForConversation(conv->id);
  });
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class ArchiveTest : public ::testing::Test {
 protected:
  testing::TestNamespace t_;
  Archive archive_{t_.ns()};
};

TEST_F(ArchiveTest, StoresMessagesAndCountsDuplicates) {
  auto first = archive_.Store(Conv("c", {Msg("1", "user", "hello"), Msg("2", "assistant", "hi there")}));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->stored, 2);
  EXPECT_EQ(first->duplicates, 0);
  auto again = archive_.Store(Conv("c", {Msg("1", "user", "hello"), Msg("3", "user", "new")}));
  EXPECT_EQ(again->stored, 1);
  EXPECT_EQ(again->duplicates, 1);
}

TEST_F(ArchiveTest, ChangedContentUnderAKnownIdIsAConflictAndStoresNothing) {
  ASSERT_TRUE(archive_.Store(Conv("c", {Msg("1", "user", "hello")})).ok());
  auto clash = archive_.Store(Conv("c", {Msg("9", "user", "would be new"), Msg("1", "user", "HELLO")}));
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), Code::kConflict);
  EXPECT_NE(clash.status().message().find("\"1\""), std::string::npos);
  int64_t count = *t_.ns().store().Read([](store::Database& db) { return store::MessageRepo(db).CountMessages(); });
  EXPECT_EQ(count, 1);
}

TEST_F(ArchiveTest, StoreAllIsAllOrNothing) {
  ASSERT_TRUE(archive_.Store(Conv("b", {Msg("1", "user", "one")})).ok());
  auto r = archive_.StoreAll({Conv("a", {Msg("1", "user", "fine")}), Conv("b", {Msg("1", "user", "changed")})});
  ASSERT_FALSE(r.ok());
  auto a = t_.ns().store().Read([](store::Database& db) { return store::MessageRepo(db).FindConversation("a"); });
  EXPECT_FALSE(a->has_value());
}

// Grows a conversation in small batches of varied messages, Chinese and
// English, indexing each batch with `ingest`; then checks that the windows
// are what a full rebuild makes and that the caches hold them all.
void GrowAndCompareWithARebuild(testing::TestNamespace& t,
                                const std::function<void(const ingest::IngestConversation&)>& ingest) {
  std::vector<std::string> texts = {"今天去跑步了，跑了十公里。感觉还不错！", "Nice. How was the pace?",
                                    std::string(500, 'x') + " end.", "配速大概五分半。明天休息。",
                                    "Sounds good. Remember to stretch.", "好的，我会的。"};
  int n = 0;
  for (int round = 0; round < 8; ++round) {
    std::vector<ingest::IngestMessage> batch;
    for (int k = 0; k < 3; ++k, ++n) batch.push_back(Msg(std::to_string(n), n % 2 ? "assistant" : "user", texts[n % texts.size()]));
    ingest(Conv("grow", batch));
  }
  auto incremental = Windows(t.ns(), "grow");
  ASSERT_TRUE(Archive(t.ns()).Reindex().ok());
  auto rebuilt = Windows(t.ns(), "grow");
  ASSERT_EQ(incremental.size(), rebuilt.size());
  for (size_t i = 0; i < rebuilt.size(); ++i) {
    EXPECT_EQ(incremental[i].body, rebuilt[i].body) << i;
    EXPECT_EQ(incremental[i].spans, rebuilt[i].spans) << i;
  }
  EXPECT_EQ(t.ns().WindowCount(), rebuilt.size());
  EXPECT_EQ(t.ns().vectors().size(), rebuilt.size());
}

TEST_F(ArchiveTest, GrowingConversationRewindowsOnlyTheTailAndMatchesAFullRebuild) {
  GrowAndCompareWithARebuild(t_, [&](const ingest::IngestConversation& batch) {
    auto out = archive_.Store(batch);
    ASSERT_TRUE(out.ok());
    ASSERT_TRUE(archive_.IndexConversation(out->conversation_row).ok());
  });
}

TEST_F(ArchiveTest, StoreAndIndexRewindowsTheTailInTheSameCommit) {
  GrowAndCompareWithARebuild(t_, [&](const ingest::IngestConversation& batch) {
    auto out = archive_.StoreAndIndex(batch);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->stored, 3);
    // Searchable at once: every window is in the catalogue, the words and the vectors.
    EXPECT_EQ(t_.ns().WindowCount(), Windows(t_.ns(), "grow").size());
    EXPECT_EQ(t_.ns().vectors().size(), t_.ns().WindowCount());
  });
}

TEST_F(ArchiveTest, StoreAndIndexLeavesNothingPending) {
  auto out =
      archive_.StoreAndIndex(Conv("s", {Msg("1", "user", "the heron by the river"), Msg("2", "assistant", "noted")}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->stored, 2);
  EXPECT_EQ(out->duplicates, 0);
  auto conv = *t_.ns().store().Read([](store::Database& db) { return store::MessageRepo(db).FindConversation("s"); });
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->indexed_seq, conv->next_seq);
  const auto windows = Windows(t_.ns(), "s");
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].body, "the heron by the river\nnoted");
  EXPECT_EQ(t_.ns().words().DocumentFrequency("heron"), 1);
  EXPECT_EQ(t_.ns().vectors().size(), 1u);
  // Restarted, nothing is left to index.
  t_.Reopen();
  ASSERT_TRUE(Archive(t_.ns()).IndexPending().ok());
  EXPECT_EQ(Windows(t_.ns(), "s").front().id, windows[0].id);
}

TEST_F(ArchiveTest, StoreAndIndexOfAConflictChangesNothing) {
  ASSERT_TRUE(archive_.StoreAndIndex(Conv("c", {Msg("1", "user", "hello there")})).ok());
  const auto before = Windows(t_.ns(), "c");
  auto clash = archive_.StoreAndIndex(Conv("c", {Msg("2", "user", "would be new"), Msg("1", "user", "HELLO THERE")}));
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().code(), Code::kConflict);
  EXPECT_NE(clash.status().message().find("\"1\""), std::string::npos);
  int64_t count = *t_.ns().store().Read([](store::Database& db) { return store::MessageRepo(db).CountMessages(); });
  EXPECT_EQ(count, 1);
  const auto after = Windows(t_.ns(), "c");
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after[0].id, before[0].id);
  EXPECT_EQ(after[0].body, "hello there");
  EXPECT_EQ(t_.ns().WindowCount(), 1u);
  EXPECT_EQ(t_.ns().words().DocumentFrequency("new"), 0);
}

TEST_F(ArchiveTest, StoreAndIndexOfDuplicatesOnlyKeepsTheWindows) {
  ASSERT_TRUE(archive_.StoreAndIndex(Conv("d", {Msg("1", "user", "once"), Msg("2", "user", "twice")})).ok());
  const auto before = Windows(t_.ns(), "d");
  auto again = archive_.StoreAndIndex(Conv("d", {Msg("2", "user", "twice"), Msg("1", "user", "once")}));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->stored, 0);
  EXPECT_EQ(again->duplicates, 2);
  const auto after = Windows(t_.ns(), "d");
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after[0].id, before[0].id) << "not re-windowed";
}

TEST_F(ArchiveTest, StoreAndIndexAlsoWindowsWhatAnEarlierStoreLeftPending) {
  ASSERT_TRUE(archive_.Store(Conv("p", {Msg("1", "user", "stored first, not windowed")})).ok());
  EXPECT_EQ(t_.ns().WindowCount(), 0u);
  ASSERT_TRUE(archive_.StoreAndIndex(Conv("p", {Msg("2", "assistant", "then 更多的消息 🎉")})).ok());
  const auto windows = Windows(t_.ns(), "p");
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].body, "stored first, not windowed\nthen 更多的消息 🎉");
  EXPECT_EQ(t_.ns().WindowCount(), 1u);
}

TEST_F(ArchiveTest, ForgetMessageLeavesNoTraceInTheFiles) {
  auto out = archive_.Store(Conv("f", {Msg("1", "user", "my secret word is zanzibarquux and nothing else"),
                                       Msg("2", "assistant", "noted, I will keep it safe"),
                                       Msg("3", "user", "thanks a lot")}));
  ASSERT_TRUE(archive_.IndexConversation(out->conversation_row).ok());
  ASSERT_TRUE(t_.ns().store().Checkpoint().ok());
  const std::string db_path = t_.dir().Sub("ns/default/cilia.db");
  ASSERT_NE(FileBytes(db_path).find("zanzibarquux"), std::string::npos);

  ASSERT_TRUE(archive_.ForgetMessage("f", "1").ok());
  EXPECT_EQ(FileBytes(db_path).find("zanzibarquux"), std::string::npos);
  EXPECT_EQ(FileBytes(db_path + "-wal").find("zanzibarquux"), std::string::npos);
  auto windows = Windows(t_.ns(), "f");
  ASSERT_FALSE(windows.empty());
  for (const auto& w : windows) EXPECT_EQ(w.body.find("zanzibar"), std::string::npos);
  EXPECT_NE(windows.front().body.find("noted"), std::string::npos);
  EXPECT_EQ(archive_.ForgetMessage("f", "1").code(), Code::kNotFound);
}

ingest::IngestMessage ImageMsg(std::string id, const std::string& bytes) {
  ingest::IngestMessage m = Msg(std::move(id), "user", "");
  m.content = nlohmann::json::array(
      {{{"type", "text"}, {"text", "see"}},
       {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64," + Base64Encode(bytes)}}}}});
  return m;
}

std::vector<std::string> FileRows(Namespace& ns) {
  auto files = *ns.store().Read([](store::Database& db) { return store::MessageRepo(db).AllFiles(); });
  std::vector<std::string> out;
  for (const auto& f : files) out.push_back(f.sha256);
  return out;
}

TEST_F(ArchiveTest, ForgetTakesTheImagesNoOtherMessageShows) {
  ASSERT_TRUE(archive_.Store(Conv("img", {ImageMsg("1", "PRIVATE"), ImageMsg("2", "SHARED"), ImageMsg("3", "SHARED")})).ok());
  const std::string private_sha = Sha256Hex("PRIVATE"), shared_sha = Sha256Hex("SHARED");
  const std::string files = t_.dir().Sub("ns/default/files/");
  ASSERT_TRUE(std::filesystem::exists(files + private_sha));

  ASSERT_TRUE(archive_.ForgetMessage("img", "1").ok());
  EXPECT_FALSE(std::filesystem::exists(files + private_sha));
  EXPECT_EQ(FileRows(t_.ns()), std::vector<std::string>{shared_sha});

  ASSERT_TRUE(archive_.ForgetMessage("img", "2").ok());
  EXPECT_EQ(FileBytes(files + shared_sha), "SHARED") << "message 3 still shows it";
  EXPECT_EQ(FileRows(t_.ns()), std::vector<std::string>{shared_sha});

  ASSERT_TRUE(archive_.ForgetConversation("img").ok());
  EXPECT_FALSE(std::filesystem::exists(files + shared_sha));
  EXPECT_TRUE(FileRows(t_.ns()).empty());
}

TEST_F(ArchiveTest, AFileLeftWithoutARowByAKilledWriteGoesAtTheNextForget) {
  ASSERT_TRUE(archive_.Store(Conv("c", {Msg("1", "user", "a"), Msg("2", "user", "b")})).ok());
  const std::string stray = t_.dir().Sub("ns/default/files/") + Sha256Hex("half") + ".tmp";
  std::ofstream(stray) << "half";
  ASSERT_TRUE(archive_.ForgetMessage("c", "1").ok());
  EXPECT_FALSE(std::filesystem::exists(stray));
}

int64_t RecallLogRows(Namespace& ns, const std::string& query) {
  return *ns.store().Read([&](store::Database& db) -> Result<int64_t> {
    CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare("SELECT count(*) FROM recall_log WHERE query = ?"));
    s->Bind(1, query);
    return s->OneInt();
  });
}

TEST_F(ArchiveTest, ForgetDropsTheLoggedRecallQueriesThatFoundTheMessage) {
  auto secret = archive_.StoreAndIndex(Conv("s", {Msg("1", "user", "my secret word is zanzibarquux")}));
  auto other = archive_.StoreAndIndex(Conv("o", {Msg("1", "user", "the weather is mild")}));
  ASSERT_TRUE(secret.ok() && other.ok());
  const int64_t secret_window = Windows(t_.ns(), "s").front().id;
  const int64_t other_window = Windows(t_.ns(), "o").front().id;
  ASSERT_TRUE(t_.ns().store().Write([&](store::Database& db) -> Status {
    store::WindowRepo windows(db);
    // One query found both windows: its text holds the forgotten word, so all of its rows go.
    CILIA_RETURN_IF_ERROR(windows.RecordRecall(secret_window, 1, "what was zanzibarquux", 0.9));
    CILIA_RETURN_IF_ERROR(windows.RecordRecall(other_window, 1, "what was zanzibarquux", 0.2));
    return windows.RecordRecall(other_window, 2, "how is the weather", 0.8);
  }).ok());

  ASSERT_TRUE(archive_.ForgetMessage("s", "1").ok());
  EXPECT_EQ(RecallLogRows(t_.ns(), "what was zanzibarquux"), 0);
  EXPECT_EQ(RecallLogRows(t_.ns(), "how is the weather"), 1);
  EXPECT_EQ(FileBytes(t_.dir().Sub("ns/default/cilia.db")).find("zanzibarquux"), std::string::npos);
}

TEST_F(ArchiveTest, ForgetConversationRemovesEverything) {
  auto out = archive_.Store(Conv("gone", {Msg("", "user", "remember the blue heron")}));
  ASSERT_TRUE(archive_.IndexConversation(out->conversation_row).ok());
  ASSERT_EQ(t_.ns().WindowCount(), 1u);
  ASSERT_TRUE(archive_.ForgetConversation("gone").ok());
  EXPECT_EQ(t_.ns().WindowCount(), 0u);
  EXPECT_EQ(t_.ns().vectors().size(), 0u);
  EXPECT_TRUE(Windows(t_.ns(), "gone").empty());
  EXPECT_EQ(FileBytes(t_.dir().Sub("ns/default/cilia.db")).find("heron"), std::string::npos);
  EXPECT_EQ(archive_.ForgetConversation("gone").code(), Code::kNotFound);
}

TEST_F(ArchiveTest, InlineImagesAreStoredAsFilesAndReferenced) {
  ingest::IngestMessage m;
  m.role = "user";
  m.content = nlohmann::json::array(
      {{{"type", "text"}, {"text", "look at this"}},
       {{"type", "image_url"}, {"image_url", {{"url", "data:image/png;base64," + Base64Encode("PNGBYTES")}}}}});
  ASSERT_TRUE(archive_.Store(Conv("img", {m})).ok());
  std::string sha = Sha256Hex("PNGBYTES");
  EXPECT_EQ(FileBytes(t_.dir().Sub("ns/default/files/" + sha)), "PNGBYTES");
  auto stored = *t_.ns().store().Read([](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
    auto conv = *store::MessageRepo(db).FindConversation("img");
    return store::MessageRepo(db).MessagesFrom(conv->id, 0);
  });
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].text, "look at this");
  EXPECT_NE(stored[0].content.find("cilia-file:" + sha), std::string::npos);
  EXPECT_EQ(stored[0].content.find("base64"), std::string::npos);
}

TEST_F(ArchiveTest, AnImageInAToolResultIsStoredAsAFileAndTheMessageHasNoText) {
  ingest::IngestMessage m;
  m.role = "tool";
  const nlohmann::json image = {
      {"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", Base64Encode("SHOT")}}}};
  m.content = nlohmann::json::array({ingest::ToolResultPart(
      "t1", nlohmann::json::array({{{"type", "text"}, {"text", "the screenshot"}}, image}), false)});
  ASSERT_TRUE(archive_.StoreAndIndex(Conv("shot", {m})).ok());
  const std::string sha = Sha256Hex("SHOT");
  EXPECT_EQ(FileBytes(t_.dir().Sub("ns/default/files/" + sha)), "SHOT");
  auto stored = *t_.ns().store().Read([](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
    auto conv = *store::MessageRepo(db).FindConversation("shot");
    return store::MessageRepo(db).MessagesFrom(conv->id, 0);
  });
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].text, "") << "a tool result's words are no one's: out of every window";
  const nlohmann::json content = nlohmann::json::parse(stored[0].content);
  EXPECT_EQ(content[0]["content"][1]["source"]["file"], "cilia-file:" + sha);
  EXPECT_EQ(stored[0].content.find("U0hPVA"), std::string::npos) << "no base64 left in the row";
  EXPECT_TRUE(Windows(t_.ns(), "shot").empty());

  ingest::IngestMessage empty = m;
  empty.content[0]["content"][1]["source"]["data"] = "";
  EXPECT_EQ(archive_.Store(Conv("shot", {empty})).status().message(),
            "content[0].content[1].source.data: no image data: the base64 part is empty");
}

TEST_F(ArchiveTest, AnImageWithoutDataIsRefusedAndNothingIsStored) {
  ingest::IngestMessage openai = ImageMsg("1", "");
  auto refused = archive_.Store(Conv("empty", {Msg("0", "user", "before"), openai}));
  ASSERT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(refused.status().message(), "content[1].image_url.url: no image data: the base64 part is empty");

  ingest::IngestMessage anthropic = Msg("2", "user", "");
  anthropic.content = nlohmann::json::array(
      {{{"type", "image"}, {"source", {{"type", "base64"}, {"media_type", "image/png"}, {"data", ""}}}}});
  EXPECT_EQ(archive_.Store(Conv("empty", {anthropic})).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(FileRows(t_.ns()).empty());
  EXPECT_TRUE(std::filesystem::is_empty(t_.dir().Sub("ns/default/files")));
  EXPECT_TRUE(Windows(t_.ns(), "empty").empty());
}

std::vector<std::string> StoredContents(Namespace& ns, const std::string& conversation) {
  auto messages = *ns.store().Read([&](store::Database& db) -> Result<std::vector<store::MessageRecord>> {
    auto conv = *store::MessageRepo(db).FindConversation(conversation);
    if (!conv) return std::vector<store::MessageRecord>{};
    return store::MessageRepo(db).MessagesFrom(conv->id, 0);
  });
  std::vector<std::string> out;
  for (const auto& m : messages) out.push_back(m.content);
  return out;
}

TEST_F(ArchiveTest, OnAFullDiskIngestIsDiskFullAndTheAcknowledgedMessagesSurviveWhole) {
  ASSERT_TRUE(archive_.StoreAndIndex(Conv("c", {Msg("1", "user", "acknowledged 你好")})).ok());
  const auto acknowledged = StoredContents(t_.ns(), "c");
  {
    testing::FaultEnv disk;
    disk.Fail(DiskOp::kWrite, "cilia.db", Status::DiskFull("no space left on device"));
    auto refused = archive_.StoreAndIndex(Conv("c", {Msg("2", "user", std::string(50000, 'x')), Msg("3", "user", "y")}));
    EXPECT_EQ(refused.status().code(), Code::kDiskFull) << refused.status().ToString();
    disk.Fail(DiskOp::kWrite, "files/", Status::DiskFull("no space left on device"));
    EXPECT_EQ(archive_.Store(Conv("c", {ImageMsg("4", "PNG")})).status().code(), Code::kDiskFull);
  }
  t_.Reopen();  // as a restart would see it
  EXPECT_EQ(StoredContents(t_.ns(), "c"), acknowledged) << "nothing half-written";
  EXPECT_TRUE(FileRows(t_.ns()).empty());
  EXPECT_TRUE(std::filesystem::is_empty(t_.dir().Sub("ns/default/files")));
  Archive again(t_.ns());
  auto healed = again.StoreAndIndex(Conv("c", {Msg("2", "user", "now there is room")}));
  ASSERT_TRUE(healed.ok()) << healed.status().ToString();
  EXPECT_EQ(healed->stored, 1);
}

TEST_F(ArchiveTest, ABusyLockIsWaitedForAndTheIngestStored) {
  testing::FaultEnv disk;
  disk.Fail(DiskOp::kLock, "cilia.db", Status::Busy("locked"), 2);
  auto retried = archive_.StoreAndIndex(Conv("c", {Msg("2", "user", "after a busy lock")}));
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->stored, 1);
  EXPECT_EQ(disk.failures(), 2);
}

TEST_F(ArchiveTest, CachesAreRebuiltOnReopen) {
  auto out = archive_.Store(Conv("r", {Msg("1", "user", "persist me please")}));
  ASSERT_TRUE(archive_.IndexConversation(out->conversation_row).ok());
  t_.Reopen();
  EXPECT_EQ(t_.ns().WindowCount(), 1u);
  EXPECT_EQ(t_.ns().vectors().size(), 1u);
}

TEST_F(ArchiveTest, IndexPendingCatchesUpAfterACrashBeforeIndexing) {
  ASSERT_TRUE(archive_.Store(Conv("p", {Msg("1", "user", "stored but not yet windowed")})).ok());
  EXPECT_EQ(t_.ns().WindowCount(), 0u);
  t_.Reopen();
  Archive again(t_.ns());
  ASSERT_TRUE(again.IndexPending().ok());
  EXPECT_EQ(t_.ns().WindowCount(), 1u);
}

TEST(MessageIds, InternalIdsRoundTrip) {
  store::MessageRecord m;
  m.id = 42;
  EXPECT_EQ(MessagePublicId(m), "m_42");
  m.caller_id = "D1:3";
  EXPECT_EQ(MessagePublicId(m), "D1:3");
  EXPECT_EQ(ParsePublicId(IdKind::kMessage, "m_42"), 42);
  EXPECT_FALSE(ParsePublicId(IdKind::kMessage, "m_4x").has_value());
  EXPECT_FALSE(ParsePublicId(IdKind::kMessage, "D1:3").has_value());
}


TEST(VectorCache, ASavedIndexIsLoadedOnceAndOnlyWhileInStep) {
  testing::TestNamespace t;
  Archive archive(t.ns());
  std::vector<ingest::IngestMessage> msgs;
  for (int i = 0; i < 5; ++i) {
    msgs.push_back(Msg("", "user", "message number " + std::to_string(i) + " " + std::string(200, 'a' + i) + "."));
  }
  auto out = archive.Store(Conv("v", msgs));
  ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
  const size_t vectors = t.ns().vectors().size();
  ASSERT_GT(vectors, 0u);
  ASSERT_TRUE(t.ns().SaveVectorCache().ok());
  const std::string key = t.dir().Sub("ns/default/vectors.cache.key");
  ASSERT_TRUE(std::filesystem::exists(key));
  t.Reopen();
  EXPECT_EQ(t.ns().vectors().size(), vectors);
  EXPECT_FALSE(std::filesystem::exists(key)) << "the key is used once";
  // Saved, then changed: the copy no longer matches the table and is ignored.
  ASSERT_TRUE(t.ns().SaveVectorCache().ok());
  ASSERT_TRUE(Archive(t.ns()).ForgetConversation("v").ok());
  t.Reopen();
  EXPECT_EQ(t.ns().vectors().size(), 0u);
}


// The vector cache's file format before float16 (version 1) is refused and
// the index is built from the table instead.
TEST(VectorCache, ACacheOfAnOlderFormatIsRebuiltFromTheTable) {
  testing::TestNamespace t;
  Archive archive(t.ns());
  auto out = archive.Store(Conv("v", {Msg("", "user", "the kiwi orchard by the river")}));
  ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
  ASSERT_TRUE(t.ns().SaveVectorCache().ok());
  const std::string cache = t.dir().Sub("ns/default/vectors.cache");
  {
    std::fstream file(cache, std::ios::in | std::ios::out | std::ios::binary);
    const uint32_t version = 1;  // after the 8-byte magic
    file.seekp(8);
    file.write(reinterpret_cast<const char*>(&version), sizeof(version));
  }
  t.Reopen();
  EXPECT_EQ(t.ns().vectors().size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(cache + ".key"));
}

// An archive written before float16 vectors holds float32 rows: it recalls
// as it did, and NarrowVectors rewrites every row as float16 without
// changing an answer.
TEST(VectorTables, Float32RowsRecallTheSameAndAreRewrittenAsFloat16) {
  testing::TestNamespace t;
  Archive archive(t.ns());
  std::vector<ingest::IngestMessage> msgs;
  for (int i = 0; i < 30; ++i) {
    msgs.push_back(Msg("", "user", "note " + std::to_string(i) + " on topic " + std::to_string(i % 7) + " " +
                                       std::string(300, static_cast<char>('a' + i % 26)) + "."));
  }
  auto out = archive.Store(Conv("f", msgs));
  ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
  const auto windows = Windows(t.ns(), "f");
  ASSERT_GE(windows.size(), 5u);
  std::vector<std::string> bodies;
  for (const auto& w : windows) bodies.push_back(w.body);
  const embed::Embedder& embedder = t.ns().embedder();
  const auto vecs = *embedder.Embed(bodies, embed::Purpose::kPassage);
  ASSERT_TRUE(t.ns()
                  .store()
                  .Write([&](store::Database& db) -> Status {
                    CILIA_RETURN_IF_ERROR(db.Exec("DELETE FROM window_vectors"));
                    for (size_t i = 0; i < windows.size(); ++i) {
                      CILIA_RETURN_IF_ERROR(testing::PutFloat32Vector(db, "window_vectors", "window_id",
                                                                      windows[i].id, embedder.id(), vecs[i]));
                    }
                    return Status::Ok();
                  })
                  .ok());
  const auto query = (*embedder.Embed({"note on topic 3"}, embed::Purpose::kQuery))[0];
  const auto answer = t.ns().vectors().Search(query, 10);
  ASSERT_FALSE(answer.empty());
  auto bytes = [&](int64_t id) {
    return *t.ns().store().Read([&](store::Database& db) -> Result<int64_t> {
      return testing::VectorBytes(db, "window_vectors", "window_id", id);
    });
  };
  const int64_t dim = embedder.dimension();
  ASSERT_EQ(bytes(windows[0].id), 4 * dim);

  t.Reopen();  // no cache saved: the index is built from the float32 rows
  EXPECT_EQ(t.ns().vectors().Search(query, 10), answer);
  size_t batches = 0;
  for (;;) {
    auto more = t.ns().NarrowVectors(2);
    ASSERT_TRUE(more.ok()) << more.status().ToString();
    if (!*more) break;
    ++batches;
  }
  EXPECT_EQ(batches, (windows.size() + 1) / 2 + 1) << "two windows a batch, and one that finds none left";
  for (const auto& w : windows) EXPECT_EQ(bytes(w.id), 2 * dim) << w.id;
  EXPECT_FALSE(*t.ns().NarrowVectors(2));
  EXPECT_EQ(t.ns().vectors().Search(query, 10), answer);
  t.Reopen();
  EXPECT_EQ(t.ns().vectors().Search(query, 10), answer);
}

TEST(EmbedderChange, WindowsAreReembeddedWithTheNewEmbedderOnly) {
  testing::TestNamespace t;
  Archive archive(t.ns());
  auto out = archive.Store(Conv("e", {Msg("", "user", "the kiwi orchard by the river")}));
  ASSERT_TRUE(archive.IndexConversation(out->conversation_row).ok());
  ASSERT_EQ(t.ns().vectors().size(), 1u);
  t.Reopen(50000, 128);  // a different embedder: its vectors do not exist yet
  EXPECT_EQ(t.ns().vectors().size(), 0u);
  EXPECT_EQ(t.ns().vectors().dimension(), 128);
  auto embedded = t.ns().EmbedMissing(10);
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ(*embedded, 1);
  EXPECT_EQ(t.ns().vectors().size(), 1u);
  EXPECT_EQ(*t.ns().EmbedMissing(10), 0);  // nothing left to do
}

}  // namespace
}  // namespace cilia::memory
