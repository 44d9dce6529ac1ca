#include "memory/recall/profile.h"

#include <gtest/gtest.h>

#include "testing/test_namespace.h"

namespace cilia::memory {
namespace {

TEST(ProfileTest, DocumentsAreWrittenReadListedAndDeleted) {
  testing::TestNamespace t;
  auto put = PutProfileDocument(t.ns(), "persona", "# 小满\nwarm, direct");
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(put->updated_at, t.clock().Now());
  t.clock().Advance(1000);
  ASSERT_TRUE(PutProfileDocument(t.ns(), "persona", "# 小满\nwarm").ok());

  auto found = FindProfileDocument(t.ns(), "persona");
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->content, "# 小满\nwarm");
  auto versions = ProfileVersions(t.ns(), "persona");
  ASSERT_TRUE(versions.ok());
  EXPECT_FALSE(versions->empty());
  auto list = ListProfile(t.ns());
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 1u);

  auto deleted = DeleteProfileDocument(t.ns(), "persona");
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  auto again = DeleteProfileDocument(t.ns(), "persona");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  auto gone = FindProfileDocument(t.ns(), "persona");
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

}  // namespace
}  // namespace cilia::memory
