#include "store/key_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

namespace cilia::store {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr UnixMs kStart = 1'700'000'000'000;

class KeyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-keys-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    path_ = dir_ + "/system.db";
    keys_ = Open();
  }
  void TearDown() override {
    keys_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<KeyStore> Open() {
    auto keys = KeyStore::Open(path_, clock_);
    EXPECT_TRUE(keys.ok()) << keys.status().ToString();
    return keys.ok() ? std::move(keys).value() : nullptr;
  }
  NewApiKey Create(std::string_view name = "laptop", std::string_view ns = "default",
                   std::vector<std::string> scopes = {"chat", "memory:read"}) {
    auto created = keys_->Create(name, ns, std::move(scopes));
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? *created : NewApiKey{};
  }
  // Every byte of the database and its WAL.
  std::string FileBytes() {
    std::string bytes;
    for (const std::string& file : {path_, path_ + "-wal"}) {
      std::ifstream in(file, std::ios::binary);
      bytes.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return bytes;
  }

  std::string dir_;
  std::string path_;
  FakeClock clock_{kStart};
  std::unique_ptr<KeyStore> keys_;
};

TEST_F(KeyStoreTest, ANewKeyIsCkAndFortyBase62Characters) {
  NewApiKey created = Create();
  EXPECT_TRUE(std::regex_match(created.secret, std::regex("ck_[0-9A-Za-z]{40}"))) << created.secret;
  EXPECT_TRUE(std::regex_match(created.info.id, std::regex("key_[0-9A-Za-z]{12}"))) << created.info.id;
  EXPECT_EQ(created.info.name, "laptop");
  EXPECT_EQ(created.info.name_space, "default");
  EXPECT_THAT(created.info.scopes, ElementsAre("chat", "memory:read"));
  EXPECT_EQ(created.info.created_at, kStart);
  EXPECT_FALSE(created.info.revoked_at);
  EXPECT_FALSE(created.info.last_used_at);
}

TEST_F(KeyStoreTest, KeysAreNeverRepeated) {
  std::set<std::string> secrets;
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    NewApiKey created = Create();
    secrets.insert(created.secret);
    ids.insert(created.info.id);
  }
  EXPECT_EQ(secrets.size(), 100u);
  EXPECT_EQ(ids.size(), 100u);
  for (const std::string& secret : secrets) EXPECT_TRUE(keys_->Verify(secret).ok());
}

TEST_F(KeyStoreTest, AKeyVerifiesAsItselfAndNothingElseDoes) {
  NewApiKey mine = Create("mine", "default", {"admin"});
  NewApiKey theirs = Create("theirs", "other", {"memory:read"});
  auto verified = keys_->Verify(mine.secret);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->id, mine.info.id);
  EXPECT_EQ(keys_->Verify(theirs.secret)->name_space, "other");

  std::string near_miss = mine.secret;
  near_miss.back() = near_miss.back() == 'a' ? 'b' : 'a';
  for (const std::string& wrong : {near_miss, mine.secret + "x", mine.secret.substr(1), std::string(), std::string("ck_"),
                                   std::string("🔑"), std::string(100000, 'k')}) {
    auto refused = keys_->Verify(wrong);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), Code::kUnauthenticated);
    EXPECT_EQ(refused.status().message(), "invalid API key");
  }
}

TEST_F(KeyStoreTest, OnlyAHashOfTheKeyIsStored) {
  NewApiKey created = Create();
  std::string bytes = FileBytes();
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(bytes.find(created.secret), std::string::npos);
  EXPECT_EQ(bytes.find(created.secret.substr(3)), std::string::npos);
  EXPECT_NE(bytes.find(created.info.id), std::string::npos);
}

TEST_F(KeyStoreTest, KeysSurviveReopening) {
  NewApiKey kept = Create("kept");
  NewApiKey revoked = Create("revoked");
  ASSERT_TRUE(keys_->Revoke(revoked.info.id).ok());
  keys_ = Open();
  ASSERT_NE(keys_, nullptr);
  auto verified = keys_->Verify(kept.secret);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->name, "kept");
  EXPECT_THAT(verified->scopes, ElementsAre("chat", "memory:read"));
  EXPECT_FALSE(keys_->Verify(revoked.secret).ok());
  EXPECT_EQ(keys_->List().size(), 2u);
  EXPECT_EQ(keys_->ActiveCount(), 1u);
}

TEST_F(KeyStoreTest, ARevokedKeyIsRefusedFromThenOn) {
  NewApiKey created = Create();
  ASSERT_TRUE(keys_->Verify(created.secret).ok());
  clock_.Advance(5000);
  ASSERT_TRUE(keys_->Revoke(created.info.id).ok());
  auto refused = keys_->Verify(created.secret);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kUnauthenticated);
  EXPECT_THAT(refused.status().message(), HasSubstr("revoked"));
  EXPECT_EQ(*keys_->Get(created.info.id)->revoked_at, kStart + 5000);
}

TEST_F(KeyStoreTest, RevokingTwiceKeepsTheFirstTime) {
  NewApiKey created = Create();
  ASSERT_TRUE(keys_->Revoke(created.info.id).ok());
  clock_.Advance(60'000);
  ASSERT_TRUE(keys_->Revoke(created.info.id).ok());
  EXPECT_EQ(*keys_->Get(created.info.id)->revoked_at, kStart);
}

TEST_F(KeyStoreTest, AnUnknownIdIsNotFound) {
  EXPECT_EQ(keys_->Revoke("key_doesnotexist").code(), Code::kNotFound);
  EXPECT_EQ(keys_->Get("key_doesnotexist").status().code(), Code::kNotFound);
  EXPECT_THAT(keys_->Revoke("鍵").message(), HasSubstr("\"鍵\""));
}

TEST_F(KeyStoreTest, ListIsOldestFirstAndNeverHoldsASecret) {
  NewApiKey first = Create("first");
  clock_.Advance(1);
  NewApiKey second = Create("第二", "other", {"admin"});
  std::vector<ApiKeyInfo> list = keys_->List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].id, first.info.id);
  EXPECT_EQ(list[1].name, "第二");
  EXPECT_EQ(list[1].name_space, "other");
}

TEST_F(KeyStoreTest, UseIsRecordedAndWrittenAtMostOnceAMinute) {
  NewApiKey created = Create();
  clock_.Advance(1000);
  ASSERT_TRUE(keys_->Verify(created.secret).ok());
  EXPECT_EQ(*keys_->Get(created.info.id)->last_used_at, kStart + 1000);
  clock_.Advance(1000);
  ASSERT_TRUE(keys_->Verify(created.secret).ok());
  EXPECT_EQ(*keys_->Get(created.info.id)->last_used_at, kStart + 2000);  // in memory

  keys_ = Open();
  EXPECT_EQ(*keys_->Get(created.info.id)->last_used_at, kStart + 1000);  // on disk: the first use of the minute
  clock_.Advance(kMsPerMinute);
  ASSERT_TRUE(keys_->Verify(created.secret).ok());
  keys_ = Open();
  EXPECT_EQ(*keys_->Get(created.info.id)->last_used_at, kStart + 2000 + kMsPerMinute);
}

TEST_F(KeyStoreTest, CreateChecksNamespaceAndScopes) {
  EXPECT_EQ(keys_->Create("n", "", {"chat"}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(keys_->Create("n", "default", {"chat,admin"}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(keys_->Create("n", "default", {""}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(keys_->ActiveCount(), 0u);
}

TEST_F(KeyStoreTest, AKeyMayHaveNoScopesAndNoName) {
  auto created = keys_->Create("", "default", {});
  ASSERT_TRUE(created.ok());
  keys_ = Open();
  auto verified = keys_->Verify(created->secret);
  ASSERT_TRUE(verified.ok());
  EXPECT_TRUE(verified->scopes.empty());
  EXPECT_EQ(verified->name, "");
}

TEST_F(KeyStoreTest, ANewerSchemaIsRefused) {
  keys_.reset();
  {
    auto db = Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec("PRAGMA user_version = 99").ok());
  }
  auto reopened = KeyStore::Open(path_, clock_);
  ASSERT_FALSE(reopened.ok());
  EXPECT_THAT(reopened.status().message(), HasSubstr("newer"));
}

TEST_F(KeyStoreTest, AKeyKeepsItsFeatureSwitches) {
  FeatureOverrides features;
  features.memory = false;
  features.compression = true;
  auto created = keys_->Create("no memory", "default", {"chat"}, features);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->info.features, features);
  EXPECT_EQ(keys_->Verify(created->secret)->features, features);
  keys_ = Open();
  auto verified = keys_->Verify(created->secret);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->features, features);
  EXPECT_FALSE(verified->features.recall_tool);
  EXPECT_EQ(keys_->List().front().features, features);
}

TEST_F(KeyStoreTest, AKeyCreatedWithoutSwitchesFollowsTheConfig) {
  NewApiKey created = Create();
  keys_ = Open();
  EXPECT_EQ(keys_->Verify(created.secret)->features, FeatureOverrides{});
}

TEST_F(KeyStoreTest, AKeyDatabaseOfTheFirstSchemaIsUpgradedInPlace) {
  keys_.reset();
  path_ = dir_ + "/first-schema.db";
  {
    auto db = Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->Exec(R"sql(
      CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, namespace TEXT NOT NULL,
        scopes TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL,
        revoked_at INTEGER, last_used_at INTEGER);
      INSERT INTO api_keys VALUES ('key_old', 'old', 'default', 'chat', 'abc', 1, NULL, NULL);
      PRAGMA user_version = 1;)sql").ok());
  }
  keys_ = Open();
  ASSERT_NE(keys_, nullptr);
  auto old = keys_->Get("key_old");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->name, "old");
  EXPECT_EQ(old->features, FeatureOverrides{});
  FeatureOverrides features;
  features.recall_tool = false;
  NewApiKey created = *keys_->Create("new", "default", {"chat"}, features);
  keys_ = Open();
  EXPECT_EQ(keys_->Verify(created.secret)->features, features);
}

TEST_F(KeyStoreTest, ASwitchOfANewerCiliaIsIgnored) {
  NewApiKey created = Create();
  keys_.reset();
  {
    auto db = Database::Open(path_, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(
        (*db)->Exec(R"(UPDATE api_keys SET features = '{"telepathy": true, "memory": false, "compression": 1}')").ok());
  }
  keys_ = Open();
  FeatureOverrides expected;
  expected.memory = false;
  EXPECT_EQ(keys_->Verify(created.secret)->features, expected);
}

TEST(FeatureOverridesTest, ParseReadsNameEqualsOnOrOff) {
  auto parsed = ParseFeatureOverrides("memory=off, recall_tool=on");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->memory, false);
  EXPECT_EQ(parsed->recall_tool, true);
  EXPECT_FALSE(parsed->compression);
  auto words = ParseFeatureOverrides("compression=false,memory=true");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(words->compression, false);
  EXPECT_EQ(words->memory, true);
}

TEST(FeatureOverridesTest, ParseNamesWhatIsWrong) {
  struct Case {
    const char* list;
    const char* named;
  };
  for (const Case& c : {Case{"telepathy=on", "\"telepathy\""}, Case{"memory=maybe", "\"maybe\""},
                        Case{"memory", "\"memory\""}, Case{"memory=", "memory"}, Case{"=on", "\"\""},
                        Case{"memory=on,memory=off", "memory is given twice"}, Case{"", "NAME=on"},
                        Case{"memory=on,", "NAME=on"}, Case{"Memory=on", "\"Memory\""},
                        Case{"记忆=on", "\"记忆\""}}) {
    auto parsed = ParseFeatureOverrides(c.list);
    ASSERT_FALSE(parsed.ok()) << c.list;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument) << c.list;
    EXPECT_THAT(parsed.status().message(), HasSubstr(c.named)) << c.list;
    EXPECT_THAT(parsed.status().message(), HasSubstr("features")) << c.list;
  }
  EXPECT_THAT(ParseFeatureOverrides("x=on").status().message(),
              HasSubstr("memory, recall_tool, compression, strip_reasoning, rewrite"));
}

TEST(FeatureOverridesTest, FormatIsTheParsedFormInCanonicalOrder) {
  EXPECT_EQ(FormatFeatureOverrides({}), "");
  auto parsed = ParseFeatureOverrides("compression=on,memory=off");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(FormatFeatureOverrides(*parsed), "memory=off,compression=on");
  EXPECT_EQ(*ParseFeatureOverrides(FormatFeatureOverrides(*parsed)), *parsed);
}

TEST(FeatureOverridesTest, JsonHoldsOnlyTheSetSwitches) {
  FeatureOverrides overrides;
  EXPECT_EQ(FeatureOverridesToJson(overrides), nlohmann::json::object());
  overrides.recall_tool = false;
  EXPECT_EQ(FeatureOverridesToJson(overrides), nlohmann::json({{"recall_tool", false}}));
  EXPECT_EQ(*FeatureOverridesFromJson(FeatureOverridesToJson(overrides)), overrides);
  EXPECT_EQ(*FeatureOverridesFromJson(nlohmann::json::object()), FeatureOverrides{});
}

TEST(FeatureOverridesTest, JsonNamesWhatIsWrong) {
  auto not_object = FeatureOverridesFromJson(nlohmann::json::array({"memory"}));
  EXPECT_THAT(not_object.status().message(), HasSubstr("features"));
  auto unknown = FeatureOverridesFromJson({{"telepathy", true}});
  EXPECT_THAT(unknown.status().message(), HasSubstr("\"telepathy\""));
  auto not_bool = FeatureOverridesFromJson({{"memory", "off"}});
  EXPECT_EQ(not_bool.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(not_bool.status().message(), HasSubstr("features.memory"));
}

TEST(FeatureOverridesTest, ApplyReplacesOnlyWhatTheKeySets) {
  FeaturesConfig base;
  base.compression = false;
  FeaturesConfig same = ApplyOverrides(base, {});
  EXPECT_TRUE(same.memory);
  EXPECT_TRUE(same.recall_tool);
  EXPECT_FALSE(same.compression);
  FeatureOverrides overrides;
  overrides.memory = false;
  overrides.compression = true;
  FeaturesConfig applied = ApplyOverrides(base, overrides);
  EXPECT_FALSE(applied.memory);
  EXPECT_TRUE(applied.recall_tool);
  EXPECT_TRUE(applied.compression);
}

TEST(FeatureOverridesTest, TheOutputFilterSwitchesGoAllTheWay) {
  auto parsed = ParseFeatureOverrides("rewrite=off,strip_reasoning=on");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->strip_reasoning, true);
  EXPECT_EQ(parsed->rewrite, false);
  EXPECT_EQ(FormatFeatureOverrides(*parsed), "strip_reasoning=on,rewrite=off");
  EXPECT_EQ(FeatureOverridesToJson(*parsed), nlohmann::json({{"strip_reasoning", true}, {"rewrite", false}}));
  EXPECT_EQ(*FeatureOverridesFromJson(FeatureOverridesToJson(*parsed)), *parsed);
  FeaturesConfig base;
  EXPECT_FALSE(base.strip_reasoning);
  EXPECT_TRUE(base.rewrite);
  FeaturesConfig applied = ApplyOverrides(base, *parsed);
  EXPECT_TRUE(applied.strip_reasoning);
  EXPECT_FALSE(applied.rewrite);
  EXPECT_TRUE(applied.memory);
}

TEST_F(KeyStoreTest, AKeyKeepsItsOutputFilterSwitches) {
  FeatureOverrides features;
  features.strip_reasoning = true;
  features.rewrite = false;
  auto created = keys_->Create("filtered", "default", {"chat"}, features);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  keys_ = Open();
  auto verified = keys_->Verify(created->secret);
  ASSERT_TRUE(verified.ok());
  EXPECT_EQ(verified->features, features);
  EXPECT_FALSE(verified->features.memory);
}

TEST(ConstantTimeEqualsTest, ComparesWholeStrings) {
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_FALSE(ConstantTimeEquals("", "a"));
  EXPECT_TRUE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0b", 3)));
  EXPECT_FALSE(ConstantTimeEquals(std::string("a\0b", 3), std::string("a\0c", 3)));
}

}  // namespace
}  // namespace cilia::store
