#include "store/profile_version_repo.h"

#include <gmock/gmock.h>

#include "migrated_db.h"
#include "store/profile_repo.h"

namespace cilia::store {
namespace {

using ProfileVersionRepoTest = testing::BackendTest;

std::vector<std::string> Contents(const std::vector<ProfileVersion>& versions) {
  std::vector<std::string> out;
  for (const auto& v : versions) out.push_back(v.content);
  return out;
}

TEST_P(ProfileVersionRepoTest, EveryChangingPutAndEveryDeleteKeepsThePreviousContent) {
  ProfileRepo profile(db());
  ProfileVersionRepo versions(db());
  ASSERT_TRUE(profile.Put("user", "v1", 10).ok());
  EXPECT_TRUE(versions.Of("user")->empty()) << "the first PUT replaces nothing";
  ASSERT_TRUE(profile.Put("user", "v2 🌸", 20).ok());
  ASSERT_TRUE(profile.Put("user", "v2 🌸", 30).ok());
  ASSERT_TRUE(profile.Put("persona", "p", 40).ok());
  ASSERT_TRUE(profile.Put("user", "v3", 50).ok());
  auto kept = versions.Of("user");
  EXPECT_EQ(Contents(*kept), (std::vector<std::string>{"v2 🌸", "v1"})) << "the same content again is no new version";
  EXPECT_EQ(kept->front().updated_at, 30);
  ASSERT_TRUE(*profile.Delete("user"));
  EXPECT_EQ(Contents(*versions.Of("user")), (std::vector<std::string>{"v3", "v2 🌸", "v1"}));
  EXPECT_EQ(versions.All()->size(), 3u);
}

TEST_P(ProfileVersionRepoTest, RestoringTheSameVersionTwiceAddsItOnce) {
  ProfileVersionRepo versions(db());
  ASSERT_TRUE(versions.Restore({0, "rules", "old", 5}).ok());
  ASSERT_TRUE(versions.Restore({0, "rules", "old", 5}).ok());
  EXPECT_EQ(versions.Of("rules")->size(), 1u);
}

CILIA_ON_EACH_BACKEND(ProfileVersionRepoTest);

}  // namespace
}  // namespace cilia::store
