// `cilia migrate` (migrate_command.cpp): SQLite to SQLite always, SQLite to
// PostgreSQL and back when CILIA_TEST_PG_URL names a server; the copy's
// export equals the source's, a rerun after an interruption finishes without
// duplicates, and a target namespace with other records is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "core/codec.h"
#include "core/data_dir_lock.h"
#include "memory/archive/archive.h"
#include "memory/registry.h"
#include "memory/transfer/export.h"
#include "store/migrated_db.h"
#include "testing/temp_dir.h"

namespace cilia::app {
namespace {

using ::testing::HasSubstr;

struct Ran {
  int code = 0;
  std::string out, err;
};

class MigrateCommandTest : public ::testing::Test {
 protected:
  MigrateCommandTest() { std::ofstream(config_file_) << "[server]\ntime_zone = \"UTC\"\n"; }

  static Config StoreConfig(const std::string& data_dir, const std::string& pg_url = "") {
    Config config;
    config.server.data_dir = data_dir;
    if (!pg_url.empty()) {
      config.store.kind = StoreKind::kPostgres;
      config.store.url = pg_url;
      config.store.pool_size = 2;
    }
    return config;
  }

  // Two conversations, one with an image, in namespace `name`.
  static void Fill(memory::Registry& registry, const std::string& name, const std::string& words) {
    auto ns = registry.Get(name);
    ASSERT_TRUE(ns.ok()) << ns.status().ToString();
    for (int c = 0; c < 2; ++c) {
      ingest::IngestConversation conv;
      conv.conversation_id = "c" + std::to_string(c);
      conv.title = "标题 " + words;
      for (int i = 0; i < 3; ++i) {
        conv.messages.push_back({"m" + std::to_string(i), i % 2 ? "assistant" : "user", "",
                                 words + " 第" + std::to_string(i) + "句 \"quoted\"\n",
                                 1'700'000'000'000 + (c * 10 + i) * 1000});
      }
      if (c == 1) {
        ingest::IngestMessage img;
        img.id = "img";
        img.role = "user";
        img.content =
            nlohmann::json::array({{{"type", "text"}, {"text", "pic"}},
                                   {{"type", "image_url"},
                                    {"image_url", {{"url", "data:image/png;base64," + Base64Encode("IMG" + words)}}}}});
        img.created_at_ms = 1'700'000'100'000;
        conv.messages.push_back(img);
      }
      ASSERT_TRUE(memory::Archive(**ns).Store(conv).ok());
    }
  }

  static std::string Export(memory::Registry& registry, const std::string& name) {
    auto ns = registry.Get(name);
    EXPECT_TRUE(ns.ok()) << ns.status().ToString();
    if (!ns.ok()) return "";
    std::ostringstream out;
    EXPECT_TRUE(memory::ExportNamespace(**ns, out).ok());
    return out.str();
  }

  static std::string Export(const Config& config, const std::string& name) {
    auto registry = memory::Registry::Open(config);
    EXPECT_TRUE(registry.ok()) << registry.status().ToString();
    return registry.ok() ? Export(**registry, name) : "";
  }

  Ran Migrate(const std::string& from, const std::string& to, const std::string& only = "") {
    CommandLine cl{"migrate", {}, {{"config", config_file_}, {"from", from}, {"to", to}}};
    if (!only.empty()) cl.flags["namespace"] = only;
    ::testing::internal::CaptureStdout();
    ::testing::internal::CaptureStderr();
    Ran ran;
    ran.code = RunMigrate(cl);
    ran.out = ::testing::internal::GetCapturedStdout();
    ran.err = ::testing::internal::GetCapturedStderr();
    return ran;
  }

  testing::TempDir dir_;
  std::string config_file_ = dir_.Sub("cilia.toml");
  std::string src_ = dir_.Sub("src"), dst_ = dir_.Sub("dst");
};

TEST_F(MigrateCommandTest, CopiesEveryNamespaceBetweenDataDirsByteForByte) {
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, "default", "你好");
    Fill(**registry, "work", "hello");
  }
  Ran ran = Migrate("sqlite:" + src_, "sqlite:" + dst_);
  ASSERT_EQ(ran.code, kExitOk) << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("migrated 2 namespaces (0 already complete)"));
  EXPECT_THAT(ran.out, HasSubstr("4 conversations, 14 messages, 2 files"));
  EXPECT_THAT(ran.out, HasSubstr("not copied"));  // the keys
  EXPECT_THAT(ran.err, HasSubstr("work: 2 conversations, 7 messages, 1 files"));
  for (const char* name : {"default", "work"}) {
    const std::string source = Export(StoreConfig(src_), name);
    EXPECT_THAT(source, HasSubstr("\"type\":\"message\""));
    EXPECT_EQ(Export(StoreConfig(dst_), name), source) << name;
  }
  auto target = memory::Registry::Open(StoreConfig(dst_));
  ASSERT_TRUE(target.ok());
  EXPECT_GT((*(*target)->Get("work"))->WindowCount(), 0u);  // derived data rebuilt

  // Run again: everything is there already, nothing is duplicated.
  target->reset();
  Ran again = Migrate("sqlite:" + src_, "sqlite:" + dst_);
  ASSERT_EQ(again.code, kExitOk) << again.err;
  EXPECT_THAT(again.out, HasSubstr("migrated 0 namespaces (2 already complete)"));
  EXPECT_EQ(Export(StoreConfig(dst_), "work"), Export(StoreConfig(src_), "work"));
}

TEST_F(MigrateCommandTest, ARerunAfterAnInterruptionFinishesTheJob) {
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, "a", "one");
    Fill(**registry, "b", "two");
    Fill(**registry, "c", "three");
  }
  // What a killed run leaves: "a" copied, "b" created but its import's
  // transaction never committed, "c" not reached.
  {
    Ran first = Migrate("sqlite:" + src_, "sqlite:" + dst_, "a");
    ASSERT_EQ(first.code, kExitOk) << first.err;
    auto target = memory::Registry::Open(StoreConfig(dst_));
    ASSERT_TRUE(target.ok());
    ASSERT_TRUE((*target)->Get("b").ok());
  }
  Ran ran = Migrate("sqlite:" + src_, "sqlite:" + dst_);
  ASSERT_EQ(ran.code, kExitOk) << ran.err;
  EXPECT_THAT(ran.out, HasSubstr("migrated 2 namespaces (1 already complete)"));
  EXPECT_THAT(ran.err, HasSubstr("a: already complete in the target, skipped"));
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_EQ(Export(StoreConfig(dst_), name), Export(StoreConfig(src_), name)) << name;
  }
}

TEST_F(MigrateCommandTest, RefusesATargetNamespaceWithOtherRecordsAndWritesNothing) {
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, "a", "one");
    Fill(**registry, "mine", "source");
  }
  std::string theirs;
  {
    auto registry = memory::Registry::Open(StoreConfig(dst_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, "mine", "target's own");
    theirs = Export(**registry, "mine");
  }
  Ran ran = Migrate("sqlite:" + src_, "sqlite:" + dst_);
  EXPECT_EQ(ran.code, kExitFailure);
  EXPECT_THAT(ran.err, HasSubstr("namespace \"mine\" with other records"));
  EXPECT_THAT(ran.err, HasSubstr("nothing was copied"));
  EXPECT_EQ(Export(StoreConfig(dst_), "mine"), theirs);
  auto target = memory::Registry::Open(StoreConfig(dst_));
  ASSERT_TRUE(target.ok());
  EXPECT_THAT((*target)->Names(), ::testing::ElementsAre("mine"));
}

TEST_F(MigrateCommandTest, BadArgumentsAndUnreachableStoresAreRefused) {
  std::filesystem::create_directories(src_);
  EXPECT_EQ(Migrate("mysql://x", "sqlite:" + dst_).code, kExitUsage);
  Ran bad = Migrate("sqlite:" + src_, "dir");
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_THAT(bad.err, HasSubstr("--to: \"dir\" is not sqlite:DIR or postgresql://"));
  Ran same = Migrate("sqlite:" + src_, "sqlite:" + src_ + "/.");
  EXPECT_EQ(same.code, kExitUsage);
  EXPECT_THAT(same.err, HasSubstr("the same store"));
  Ran missing = Migrate("sqlite:" + dir_.Sub("nowhere"), "sqlite:" + dst_);
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_THAT(missing.err, HasSubstr("source data dir " + dir_.Sub("nowhere") + " does not exist"));
  Ran down = Migrate("sqlite:" + src_, "postgresql://cilia@127.0.0.1:1/none");
  EXPECT_EQ(down.code, kExitFailure);
  EXPECT_THAT(down.err, HasSubstr("127.0.0.1"));
}

TEST_F(MigrateCommandTest, RefusesADataDirHeldByARunningCommand) {
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, "a", "one");
  }
  std::filesystem::create_directories(dst_);
  auto held = DataDirLock::Acquire(dst_, "cilia serve");
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  Ran ran = Migrate("sqlite:" + src_, "sqlite:" + dst_);
  EXPECT_EQ(ran.code, kExitFailure);
  EXPECT_THAT(ran.err, HasSubstr("is in use by a running `cilia serve`"));
  EXPECT_THAT(ran.err, HasSubstr("stop it before migrating"));
}

TEST_F(MigrateCommandTest, SqliteToPostgresAndBackIsByteIdenticalAndResumable) {
  std::string url;
  CILIA_REQUIRE_POSTGRES(url, "CILIA_TEST_PG_URL");
  // The test database is shared with other cases: this one's namespaces only.
  const std::string a = testing::FreshNamespace(), b = testing::FreshNamespace();
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, a, "你好 world");
    Fill(**registry, b, "second");
  }
  ASSERT_EQ(Migrate("sqlite:" + src_, url, a).code, kExitOk);
  // b as a killed run may leave it: created in PostgreSQL, without records.
  {
    auto pg = memory::Registry::Open(StoreConfig(dir_.Sub("pg-cache"), url));
    ASSERT_TRUE(pg.ok()) << pg.status().ToString();
    ASSERT_TRUE((*pg)->Get(b).ok());
  }
  Ran rerun_a = Migrate("sqlite:" + src_, url, a);
  ASSERT_EQ(rerun_a.code, kExitOk) << rerun_a.err;
  EXPECT_THAT(rerun_a.out, HasSubstr("migrated 0 namespaces (1 already complete)"));
  Ran ran_b = Migrate("sqlite:" + src_, url, b);
  ASSERT_EQ(ran_b.code, kExitOk) << ran_b.err;
  EXPECT_THAT(ran_b.out, HasSubstr("migrated 1 namespaces (0 already complete)"));

  const std::string back = dir_.Sub("back");
  for (const std::string& name : {a, b}) {
    const std::string source = Export(StoreConfig(src_), name);
    EXPECT_EQ(Export(StoreConfig(dir_.Sub("pg-cache"), url), name), source) << name;
    Ran home = Migrate(url, "sqlite:" + back, name);
    ASSERT_EQ(home.code, kExitOk) << home.err;
    EXPECT_EQ(Export(StoreConfig(back), name), source) << name;
  }

  // A PostgreSQL namespace with other records is refused.
  const std::string c = testing::FreshNamespace();
  {
    auto registry = memory::Registry::Open(StoreConfig(src_));
    ASSERT_TRUE(registry.ok());
    Fill(**registry, c, "source");
    auto pg = memory::Registry::Open(StoreConfig(dir_.Sub("pg-cache"), url));
    ASSERT_TRUE(pg.ok());
    Fill(**pg, c, "already there");
  }
  Ran refused = Migrate("sqlite:" + src_, url, c);
  EXPECT_EQ(refused.code, kExitFailure);
  EXPECT_THAT(refused.err, HasSubstr("namespace \"" + c + "\" with other records"));
}

}  // namespace
}  // namespace cilia::app
