#include "memory/export.h"

#include <gtest/gtest.h>

#include <sstream>

#include "../testing/test_namespace.h"
#include "core/codec.h"
#include "memory/archive.h"

namespace cilia::memory {
namespace {

IngestConversation Sample() {
  IngestConversation c;
  c.conversation_id = "c1";
  c.title = "标题 😀";
  for (int i = 0; i < 4; ++i) {
    IngestMessage m;
    if (i != 2) m.id = "m" + std::to_string(i);  // one message without a caller id
    m.role = i % 2 ? "assistant" : "user";
    m.name = i % 2 ? "AI" : "阿杰";
    m.content = "第" + std::to_string(i) + "句话。line \"quoted\"\n";
    m.created_at_ms = 1'700'000'000'000 + i * 1000;
    c.messages.push_back(std::move(m));
  }
  IngestMessage img;
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

TEST(Export, ImportIntoANonEmptyNamespaceMergesWithoutDuplicates) {
  testing::TestNamespace a;
  ASSERT_TRUE(Archive(a.ns()).Store(Sample()).ok());
  std::string dump = Export(a.ns());
  std::istringstream once(dump);
  auto merged = ImportNamespace(a.ns(), once);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  // Four caller ids match; the message without one gets m_<id> and is new once.
  EXPECT_EQ(merged->duplicates, 4);
  EXPECT_EQ(merged->messages, 1);
  std::istringstream twice(dump);
  auto again = ImportNamespace(a.ns(), twice);
  EXPECT_EQ(again->messages, 0);
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

}  // namespace
}  // namespace cilia::memory
