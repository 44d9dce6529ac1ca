#include "memory/transfer/upkeep_dump.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "testing/test_namespace.h"
#include "memory/transfer/export.h"
#include "memory/upkeep/precious.h"
#include "testing/upkeep_test_helpers.h"

namespace cilia::memory {
namespace {

using ::testing::HasSubstr;

std::string Export(Namespace& ns) {
  std::ostringstream out;
  Status st = ExportNamespace(ns, out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out.str();
}

void Fill(Namespace& ns) {
  testing::Store(ns, "chat", {{"D1:1", "user", "星星会替我们记得 ✨", 1000}, {"D1:2", "assistant", "I promise.", 2000}});
  ASSERT_TRUE(Pin(ns, {"chat", {"D1:1", "D1:2"}, "", store::Author::kOwner}, 3000).ok());
  ASSERT_TRUE(ns.store().Write([](store::Database& db) -> Status {
    store::ProfileRepo profile(db);
    CILIA_RETURN_IF_ERROR(profile.Put("user", "v1", 10));
    CILIA_RETURN_IF_ERROR(profile.Put("user", "v2 🌸", 20));
    CILIA_RETURN_IF_ERROR(profile.Put("rules", "be kind", 30));
    CILIA_RETURN_IF_ERROR(store::GlossaryRepo(db).Put({"星星", {"stars", "✨"}, "他们的约定", 0, 0}, 40).status());
    store::DigestRepo digests(db);
    CILIA_RETURN_IF_ERROR(digests.PutLog({"2026-05-27", "约定", {{"他们约定了", {{"chat", "D1:1"}, {"chat", "D1:2"}}}}, 2, "fake/cheap", 50, 60}));
    CILIA_RETURN_IF_ERROR(digests.AddDigest({0, "2026-05-27", "一个约定", "fake/cheap", 70}).status());
    CILIA_RETURN_IF_ERROR(digests.AddDigest({0, "2026-05-27", "一个约定。", "fake/cheap", 80}).status());
    return digests.PutRollup({store::RollupKind::kWeek, "2026-W22", "2026-05-25", "2026-05-31", "一周", {"2026-05-27"}, "fake/cheap", 90});
  }).ok());
}

TEST(UpkeepDumpTest, ExportImportExportGivesTheSameBytes) {
  testing::TestNamespace source, target;
  Fill(source.ns());
  const std::string dump = Export(source.ns());
  for (const char* type : {"\"profile\"", "\"profile_version\"", "\"glossary\"", "\"precious\"", "\"daily_log\"",
                           "\"digest\"", "\"rollup\""}) {
    EXPECT_THAT(dump, HasSubstr(std::string("\"type\":") + type));
  }
  std::istringstream in(dump);
  auto imported = ImportNamespace(target.ns(), in);
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ(Export(target.ns()), dump);
}

TEST(UpkeepDumpTest, ASecondImportAddsNothingAndAChangedDocumentKeepsTheLocalOneAsAVersion) {
  testing::TestNamespace source, target;
  Fill(source.ns());
  const std::string dump = Export(source.ns());
  for (int i = 0; i < 2; ++i) {
    std::istringstream in(dump);
    ASSERT_TRUE(ImportNamespace(target.ns(), in).ok());
  }
  EXPECT_EQ(Export(target.ns()), dump);

  ASSERT_TRUE(target.ns().store().Write([](store::Database& db) {
    return store::ProfileRepo(db).Put("user", "local edit", 100);
  }).ok());
  std::istringstream in(dump);
  ASSERT_TRUE(ImportNamespace(target.ns(), in).ok());
  auto versions = target.ns().store().Read([](store::Database& db) { return store::ProfileVersionRepo(db).Of("user"); });
  ASSERT_TRUE(versions.ok());
  std::vector<std::string> contents;
  for (const auto& v : *versions) contents.push_back(v.content);
  EXPECT_EQ(contents, (std::vector<std::string>{"local edit", "v2 🌸", "v1"}));
}

TEST(UpkeepDumpTest, ABadRecordNamesItsLine) {
  UpkeepDump dump;
  Status st = ParseUpkeepRecord(nlohmann::json{{"type", "glossary"}, {"term", "x"}}, 7, dump);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("line 7"));
  EXPECT_TRUE(IsUpkeepRecord("rollup"));
  EXPECT_FALSE(IsUpkeepRecord("message"));
}

}  // namespace
}  // namespace cilia::memory
