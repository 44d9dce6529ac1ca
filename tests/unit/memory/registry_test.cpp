// Namespaces unloaded when idle, and the upkeep that looks at them without
// loading them (both stores). The registry on PostgreSQL: namespaces opened
// there, listed from the
// database's namespace list (so every gateway sees every namespace), their
// images kept in the database and gone after a forget, and another
// gateway's writes reaching a namespace this one holds open (the change
// feed).
#include "memory/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "core/codec.h"
#include "core/executor.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/excerpts.h"
#include "memory/recall/recall.h"
#include "store/migrated_db.h"

namespace cilia::memory {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

class PostgresRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override { CILIA_REQUIRE_POSTGRES(url_, "CILIA_TEST_PG_URL"); }
  // A gateway: its own data dir, the shared database.
  std::unique_ptr<Registry> Gateway(const testing::TempDir& dir) {
    Config config;
    config.server.data_dir = dir.path();
    config.store.kind = StoreKind::kPostgres;
    config.store.url = url_;
    config.store.pool_size = 2;
    auto registry = Registry::Open(config);
    EXPECT_TRUE(registry.ok()) << registry.status().ToString();
    return registry.ok() ? std::move(*registry) : nullptr;
  }
  int64_t Count(Namespace& ns, const std::string& sql) {
    auto n = ns.store().Read([&](store::Database& db) -> Result<int64_t> {
      CILIA_ASSIGN_OR_RETURN(store::Statement * s, db.Prepare(sql));
      return s->OneInt();
    });
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : -1;
  }
  std::string url_;
  testing::TempDir one_dir_, two_dir_;
};

TEST_F(PostgresRegistryTest, ANamespaceOpenedByOneGatewayIsListedAndReadByAnother) {
  auto one = Gateway(one_dir_), two = Gateway(two_dir_);
  ASSERT_TRUE(one && two);
  const std::string name = testing::FreshNamespace();
  EXPECT_FALSE(Contains(two->Names(), name));
  auto ns = one->Get(name);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  ingest::IngestConversation c;
  c.conversation_id = "trip";
  c.messages.push_back({"", "user", "", "The heron stood in the reeds.", 1'700'000'000'000});
  ASSERT_TRUE(Archive(**ns).StoreAndIndex(c).ok());

  EXPECT_TRUE(Contains(one->Names(), name));
  EXPECT_TRUE(Contains(two->Names(), name)) << "the list is the database's, not a gateway's";
  EXPECT_FALSE(std::filesystem::exists(one_dir_.Sub("ns/" + name + "/cilia.db"))) << "no SQLite file on PostgreSQL";
  auto there = two->Get(name);
  ASSERT_TRUE(there.ok()) << there.status().ToString();
  EXPECT_EQ(Count(**there, "SELECT count(*) FROM messages"), 1);
}

TEST_F(PostgresRegistryTest, ImagesLiveInTheDatabaseAndAForgetLeavesNoBytes) {
  auto one = Gateway(one_dir_), two = Gateway(two_dir_);
  ASSERT_TRUE(one && two);
  const std::string name = testing::FreshNamespace();
  auto ns = one->Get(name);
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  ingest::IngestConversation c;
  c.conversation_id = "pics";
  c.messages.push_back({"", "user", "",
                        nlohmann::json::array({{{"type", "image_url"},
                                                {"image_url", {{"url", "data:image/png;base64," + Base64Encode("PNG")}}}}}),
                        1'700'000'000'000});
  ASSERT_TRUE(Archive(**ns).StoreAndIndex(c).ok());
  auto there = two->Get(name);
  ASSERT_TRUE(there.ok());
  auto bytes = (*there)->store().Read([&](store::Database& db) {
    return (*there)->store().files().Get(db, Sha256Hex("PNG"));
  });
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, "PNG") << "another gateway reads the same image";

  ASSERT_TRUE(Archive(**ns).ForgetConversation("pics").ok());
  EXPECT_EQ(Count(**ns, "SELECT count(*) FROM files"), 0);
  EXPECT_EQ(Count(**ns, "SELECT count(*) FROM file_bytes"), 0);
}

// The conversations recall finds for `query` in `ns` (search: no access counted).
std::vector<std::string> Found(Namespace& ns, const std::string& query) {
  RecallRequest request;
  request.query = query;
  auto reply = Recall(ns, request, /*count_access=*/false);
  EXPECT_TRUE(reply.ok()) << reply.status().ToString();
  std::vector<std::string> out;
  if (reply.ok()) {
    for (const RecallResult& r : reply->results) out.push_back(r.layer + ":" + r.conversation_id);
  }
  return out;
}

ingest::IngestConversation Said(const std::string& conversation, const std::string& text) {
  ingest::IngestConversation c;
  c.conversation_id = conversation;
  c.messages.push_back({"", "user", "", text, 1'700'000'000'000});
  return c;
}

TEST_F(PostgresRegistryTest, AnotherGatewaysWritesReachANamespaceHeldOpenAtItsCatchUp) {
  auto one = Gateway(one_dir_), two = Gateway(two_dir_);
  ASSERT_TRUE(one && two);
  const std::string name = testing::FreshNamespace();
  auto writer = one->Get(name);
  auto reader = two->Get(name);  // opened (and loaded) before the writes
  ASSERT_TRUE(writer.ok() && reader.ok());
  ASSERT_TRUE(Archive(**writer).StoreAndIndex(Said("trip", "The heron stood in the reeds.")).ok());
  EXPECT_TRUE(Found(**reader, "heron").empty()) << "nothing reaches the other gateway before it catches up";

  auto applied = (*reader)->CatchUp();
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_GT(*applied, 0);
  EXPECT_EQ(Found(**reader, "heron"), std::vector<std::string>{"archive:trip"});
  EXPECT_EQ((*reader)->words().DocumentFrequency("heron"), 1) << "the BM25 lane has its words, not only the vectors";
  EXPECT_EQ((*reader)->WindowCount(), (*writer)->WindowCount());
  EXPECT_EQ((*reader)->vectors().size(), (*writer)->vectors().size()) << "the vectors come along";

  // An excerpt, then the whole conversation forgotten.
  NewExcerpt item;
  item.content = "The user saw a heron";
  item.quote = "heron stood in the reeds";
  item.conversation_id = "trip";
  auto excerpt = Excerpts(**writer).Create(item, Author::kOwner);
  ASSERT_TRUE(excerpt.ok()) << excerpt.status().ToString();
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_TRUE((*reader)->excerpts().Meta(excerpt->id)) << "the excerpt's index entry";
  EXPECT_EQ((*reader)->excerpts().vectors().size(), (*writer)->excerpts().vectors().size());

  ASSERT_TRUE(Archive(**writer).ForgetConversation("trip").ok());
  ASSERT_TRUE((*reader)->CatchUp().ok());
  EXPECT_TRUE(Found(**reader, "heron").empty()) << "a forget reaches the other gateway too";
  EXPECT_EQ((*reader)->WindowCount(), 0u);
  EXPECT_EQ((*reader)->vectors().size(), 0u);
  EXPECT_EQ((*reader)->excerpts().size(), 0u);
  EXPECT_EQ((*reader)->titles().size(), 0u);

  auto again = (*writer)->CatchUp();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0) << "a gateway skips its own changes: it applied them as it wrote them";
}

TEST_F(PostgresRegistryTest, TheChangeFeedBringsAWriteToAnotherGatewayWithinASecond) {
  Executor executor(4, 4);  // before the registries, which stop their loops on it when destroyed
  auto one = Gateway(one_dir_), two = Gateway(two_dir_);
  ASSERT_TRUE(one && two);
  const std::string name = testing::FreshNamespace();
  auto writer = one->Get(name);
  auto reader = two->Get(name);
  ASSERT_TRUE(writer.ok() && reader.ok());
  ASSERT_TRUE(two->StartBackground(executor).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the feed listens

  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(Archive(**writer).StoreAndIndex(Said("lake", "A kingfisher dived into the lake.")).ok());
  while (Found(**reader, "kingfisher").empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  EXPECT_EQ(Found(**reader, "kingfisher"), std::vector<std::string>{"archive:lake"});
  // Woken by the notification, not by the feed's look every five seconds
  // (well under a second when the machine is not busy; the bound leaves room
  // for a loaded CI machine and a sanitizer build).
  EXPECT_LT(took.count(), 3000) << "took " << took.count() << " ms";
}

class IdleNamespaceTest : public ::testing::Test {
 protected:
  IdleNamespaceTest() : clock_(1'800'000'000'000) {
    Config config;
    config.server.data_dir = dir_.path();
    config.store.unload_idle_s = 60;
    registry_ = std::move(*Registry::Open(config, clock_));
  }
  testing::TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<Registry> registry_;
};

TEST_F(IdleNamespaceTest, ANamespaceUnusedForTheIdleTimeIsUnloadedAndLoadsAgainWhole) {
  {
    auto ns = registry_->Get("diary");
    ASSERT_TRUE(ns.ok());
    ASSERT_TRUE(Archive(**ns).StoreAndIndex(Said("walk", "A kingfisher dived into the lake.")).ok());
  }
  clock_.Advance(59'000);
  EXPECT_TRUE(registry_->UnloadIdle().empty()) << "not idle long enough yet";
  clock_.Advance(1'000);
  EXPECT_EQ(registry_->UnloadIdle(), std::vector<std::string>{"diary"});
  EXPECT_TRUE(registry_->LoadedNames().empty());
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("ns/diary/vectors.cache"))) << "its vector index is kept for the reload";

  auto again = registry_->Get("diary");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(Found(**again, "kingfisher"), std::vector<std::string>{"archive:walk"});
}

TEST_F(IdleNamespaceTest, ANamespaceSomeoneHoldsOrUsedLatelyStaysLoaded) {
  auto held = registry_->Get("held");
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(registry_->Get("busy").ok());
  clock_.Advance(50'000);
  ASSERT_TRUE(registry_->Get("busy").ok());  // a use starts its idle time again
  clock_.Advance(20'000);
  EXPECT_TRUE(registry_->UnloadIdle().empty()) << "held by a request, and used 20 s ago";
  EXPECT_EQ(registry_->LoadedNames(), (std::vector<std::string>{"busy", "held"}));
}

TEST_F(IdleNamespaceTest, UpkeepLooksAtAnUnloadedNamespaceThroughItsStoreAndLoadsItNotForNothing) {
  ASSERT_TRUE(Archive(**registry_->Get("quiet")).StoreAndIndex(Said("c", "Nothing left to index here.")).ok());
  clock_.Advance(60'000);
  ASSERT_EQ(registry_->UnloadIdle(), std::vector<std::string>{"quiet"});

  int64_t messages = -1;
  ASSERT_TRUE(registry_->WithStore("quiet", [&](store::NamespaceStore& store) {
    return store.Read([&](store::Database& db) -> Status {
      CILIA_ASSIGN_OR_RETURN(messages, (*db.Prepare("SELECT count(*) FROM messages"))->OneInt());
      return Status::Ok();
    });
  }).ok());
  EXPECT_EQ(messages, 1);
  EXPECT_TRUE(registry_->LoadedNames().empty()) << "a look through the store loads nothing";

  // Loaded for upkeep is no use: it goes again once idle.
  ASSERT_TRUE(registry_->GetForUpkeep("quiet").ok());
  clock_.Advance(60'000);
  EXPECT_EQ(registry_->UnloadIdle(), std::vector<std::string>{"quiet"});
}

TEST_F(IdleNamespaceTest, TheIndexerLoadsAnUnloadedNamespaceOnlyForWorkToDo) {
  // Stored, not windowed (as ingest without ?sync leaves it): work for the indexer.
  ASSERT_TRUE(Archive(**registry_->Get("b-pending")).Store(Said("c", "A heron waits.")).ok());
  ASSERT_TRUE(Archive(**registry_->Get("a-quiet")).StoreAndIndex(Said("c", "Nothing left to do.")).ok());
  clock_.Advance(60'000);
  ASSERT_EQ(registry_->UnloadIdle().size(), 2u);

  Executor executor(2, 2);
  ASSERT_TRUE(registry_->StartBackground(executor).ok());  // its first pass looks at every namespace, in name order
  const auto start = std::chrono::steady_clock::now();
  while (registry_->LoadedNames().empty() && std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(registry_->LoadedNames(), std::vector<std::string>{"b-pending"})
      << "a-quiet, looked at first, had nothing to do and stayed unloaded";
  registry_->Stop();
}

TEST_F(IdleNamespaceTest, ZeroKeepsEveryNamespaceLoaded) {
  Config config;
  config.server.data_dir = dir_.Sub("other");
  config.store.unload_idle_s = 0;
  auto registry = Registry::Open(config, clock_);
  ASSERT_TRUE(registry.ok());
  ASSERT_TRUE((*registry)->Get("kept").ok());
  clock_.Advance(int64_t{365} * 24 * 3'600'000);
  EXPECT_TRUE((*registry)->UnloadIdle().empty());
}

TEST(PostgresRegistry, ADatabaseThatIsDownFailsTheOpenNamingTheStoreWithoutItsPassword) {
  testing::TempDir dir;
  Config config;
  config.server.data_dir = dir.path();
  config.store.kind = StoreKind::kPostgres;
  config.store.url = "postgresql://cilia:s3cret@/nowhere?host=/nonexistent-dir";
  auto registry = Registry::Open(config);
  ASSERT_FALSE(registry.ok());
  EXPECT_EQ(registry.status().code(), Code::kBusy) << registry.status().ToString();
  EXPECT_NE(registry.status().message().find("store postgresql://cilia:***@"), std::string::npos)
      << registry.status().message();
  EXPECT_EQ(registry.status().message().find("s3cret"), std::string::npos) << registry.status().message();
}

}  // namespace
}  // namespace cilia::memory
