#include "store/profile_repo.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "migrated_db.h"
#include "store/migrations.h"

namespace cilia::store {
namespace {

using ::testing::HasSubstr;

class ProfileRepoTest : public testing::BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (Skipped()) return;
  }
};

TEST_P(ProfileRepoTest, ADocumentIsStoredVerbatimAndReadBack) {
  ProfileRepo repo(*db_);
  const std::string content = "# 我\n\n- likes 🍵 tea\n- 周末爬山\r\n  trailing spaces  \n";
  ASSERT_TRUE(repo.Put("user", content, 1000).ok());
  auto got = repo.Get("user");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->name, "user");
  EXPECT_EQ((*got)->content, content);
  EXPECT_EQ((*got)->updated_at, 1000);
}

TEST_P(ProfileRepoTest, PutReplacesTheWholeDocument) {
  ProfileRepo repo(*db_);
  ASSERT_TRUE(repo.Put("rules", "old rules, long text", 1000).ok());
  ASSERT_TRUE(repo.Put("rules", "new", 2000).ok());
  auto got = *repo.Get("rules");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->content, "new");
  EXPECT_EQ(got->updated_at, 2000);
  EXPECT_EQ(repo.List()->size(), 1u);
}

TEST_P(ProfileRepoTest, ListIsByName) {
  ProfileRepo repo(*db_);
  for (const char* name : {"user", "persona", "relationship", "rules", "a-notes", "9"}) {
    ASSERT_TRUE(repo.Put(name, name, 1).ok());
  }
  auto list = repo.List();
  ASSERT_TRUE(list.ok());
  std::vector<std::string> names;
  for (const auto& document : *list) names.push_back(document.name);
  EXPECT_EQ(names, (std::vector<std::string>{"9", "a-notes", "persona", "relationship", "rules", "user"}));
}

TEST_P(ProfileRepoTest, AnEmptyDocumentIsStillADocument) {
  ProfileRepo repo(*db_);
  ASSERT_TRUE(repo.Put("persona", "", 5).ok());
  auto got = *repo.Get("persona");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->content, "");
}

TEST_P(ProfileRepoTest, AMissingDocumentIsNoneAndDeletingItIsFalse) {
  ProfileRepo repo(*db_);
  EXPECT_FALSE(repo.Get("persona")->has_value());
  EXPECT_FALSE(*repo.Delete("persona"));
  EXPECT_TRUE(repo.List()->empty());
}

TEST_P(ProfileRepoTest, DeleteRemovesOnlyThatDocument) {
  ProfileRepo repo(*db_);
  ASSERT_TRUE(repo.Put("persona", "p", 1).ok());
  ASSERT_TRUE(repo.Put("user", "u", 1).ok());
  EXPECT_TRUE(*repo.Delete("persona"));
  EXPECT_FALSE(repo.Get("persona")->has_value());
  EXPECT_TRUE(repo.Get("user")->has_value());
}

TEST_P(ProfileRepoTest, NamesAreLowercaseLettersDigitsDashAndUnderscore) {
  const std::vector<std::string> good = {"persona", "user", "a", "0", "my_rules-2", "9-_", std::string(64, 'z')};
  const std::vector<std::string> bad = {"",
                                        "Persona",
                                        "_rules",
                                        "-x",
                                        "a b",
                                        "a/b",
                                        "..",
                                        "用户",
                                        "😀",
                                        "rules.md",
                                        std::string(65, 'z'),
                                        std::string("a\0b", 3)};
  for (const std::string& name : good) EXPECT_TRUE(IsValidProfileName(name)) << name;
  for (const std::string& name : bad) {
    EXPECT_FALSE(IsValidProfileName(name)) << name;
    EXPECT_EQ(CheckProfileName(name).code(), Code::kInvalidArgument) << name;
  }
  EXPECT_TRUE(CheckProfileName("rules").ok());
}

TEST_P(ProfileRepoTest, PutRefusesABadNameNamingTheField) {
  ProfileRepo repo(*db_);
  Status st = repo.Put("Persona", "x", 1);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("name"));
  EXPECT_THAT(st.message(), HasSubstr("\"Persona\""));
  EXPECT_TRUE(repo.List()->empty());
}

TEST_P(ProfileRepoTest, ContentUpTo256KiBIsKeptAndLongerIsTooLarge) {
  ProfileRepo repo(*db_);
  // 3-byte characters up to the limit exactly.
  std::string largest;
  while (largest.size() + 3 <= kMaxProfileContentBytes) largest += "记";
  largest.append(kMaxProfileContentBytes - largest.size(), 'x');
  ASSERT_EQ(largest.size(), kMaxProfileContentBytes);
  ASSERT_TRUE(repo.Put("user", largest, 1).ok());
  EXPECT_EQ((*repo.Get("user"))->content, largest);

  Status st = repo.Put("user", largest + "x", 2);
  EXPECT_EQ(st.code(), Code::kTooLarge);
  EXPECT_THAT(st.message(), HasSubstr("content"));
  EXPECT_EQ((*repo.Get("user"))->updated_at, 1);
}

TEST_P(ProfileRepoTest, ContentMustBeUtf8) {
  ProfileRepo repo(*db_);
  Status st = repo.Put("user", "ok \xff\xfe", 1);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("content"));
  EXPECT_THAT(st.message(), HasSubstr("byte 3"));
}

TEST_P(ProfileRepoTest, ContentWithNulBytesSurvives) {
  if (OnPostgres()) GTEST_SKIP() << "not yet: PostgreSQL's text holds no NUL byte (content as bytea is left, issue 17)";
  ProfileRepo repo(*db_);
  const std::string content("a\0b", 3);
  ASSERT_TRUE(repo.Put("user", content, 1).ok());
  EXPECT_EQ((*repo.Get("user"))->content, content);
}

CILIA_ON_EACH_BACKEND(ProfileRepoTest);

}  // namespace
}  // namespace cilia::store
