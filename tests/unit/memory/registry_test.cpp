// The registry on PostgreSQL: namespaces opened there, listed from the
// database's namespace list (so every gateway sees every namespace), their
// images kept in the database and gone after a forget.
#include "memory/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "core/codec.h"
#include "memory/archive/archive.h"
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
