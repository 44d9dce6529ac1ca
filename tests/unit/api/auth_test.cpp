#include "api/auth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace cilia::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

httplib::Request RequestWith(httplib::Headers headers, httplib::Params params = {}) {
  httplib::Request req;
  req.headers = std::move(headers);
  req.params = std::move(params);
  return req;
}

TEST(ScopeTest, NamesRoundTrip) {
  for (Scope scope : {Scope::kChat, Scope::kMemoryRead, Scope::kMemoryWrite, Scope::kAdmin}) {
    EXPECT_EQ(*ParseScope(ScopeName(scope)), scope);
  }
  EXPECT_STREQ(ScopeName(Scope::kMemoryWrite), "memory:write");
}

TEST(ScopeTest, AListParsesToBits) {
  EXPECT_EQ(*ParseScopeList("chat"), ScopeBit(Scope::kChat));
  EXPECT_EQ(*ParseScopeList("chat, memory:read"), ScopeBit(Scope::kChat) | ScopeBit(Scope::kMemoryRead));
  EXPECT_EQ(*ParseScopeList("admin,admin"), ScopeBit(Scope::kAdmin));
  EXPECT_EQ(*ParseScopeList("chat,memory:read,memory:write,admin"), kAllScopes);
}

TEST(ScopeTest, AnUnknownOrEmptyScopeIsNamed) {
  auto typo = ParseScopeList("chat,memroy:read");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().message(),
            "unknown scope \"memroy:read\" (scopes: chat, memory:read, memory:write, admin)");
  EXPECT_FALSE(ParseScopeList("").ok());
  EXPECT_FALSE(ParseScopeList("chat,").ok());
  EXPECT_FALSE(ParseScopeList("Chat").ok());
  EXPECT_THAT(ParseScopeList("读").status().message(), HasSubstr("\"读\""));
}

TEST(ScopeTest, BitsGiveNamesInOrder) {
  EXPECT_THAT(ScopeNames(kAllScopes), ElementsAre("chat", "memory:read", "memory:write", "admin"));
  EXPECT_THAT(ScopeNames(ScopeBit(Scope::kAdmin) | ScopeBit(Scope::kChat)), ElementsAre("chat", "admin"));
  EXPECT_TRUE(ScopeNames(0).empty());
  EXPECT_TRUE(ScopeNames(1u << 20).empty());
}

TEST(PrincipalTest, AdminImpliesEveryScope) {
  Principal admin{"k", "default", ScopeBit(Scope::kAdmin)};
  for (Scope scope : {Scope::kChat, Scope::kMemoryRead, Scope::kMemoryWrite, Scope::kAdmin}) {
    EXPECT_TRUE(admin.Has(scope));
  }
  Principal reader{"k", "default", ScopeBit(Scope::kMemoryRead)};
  EXPECT_TRUE(reader.Has(Scope::kMemoryRead));
  EXPECT_FALSE(reader.Has(Scope::kMemoryWrite));
  EXPECT_FALSE(reader.Has(Scope::kAdmin));
  EXPECT_FALSE(Principal{}.Has(Scope::kChat));
}

TEST(PresentedKeyTest, ReadsBearerAndXApiKey) {
  EXPECT_EQ(PresentedKey(RequestWith({{"Authorization", "Bearer ck_abc"}}), false), "ck_abc");
  EXPECT_EQ(PresentedKey(RequestWith({{"authorization", "bearer   ck_abc  "}}), false), "ck_abc");
  EXPECT_EQ(PresentedKey(RequestWith({{"X-Api-Key", "ck_xyz"}}), false), "ck_xyz");
  EXPECT_EQ(PresentedKey(RequestWith({}), false), std::nullopt);
  EXPECT_EQ(PresentedKey(RequestWith({{"Authorization", "Basic dXNlcjpwYXNz"}}), false), std::nullopt);
  EXPECT_EQ(PresentedKey(RequestWith({{"Authorization", "Bearer "}}), false), std::nullopt);
  EXPECT_EQ(PresentedKey(RequestWith({{"Authorization", "Basic x"}, {"x-api-key", "ck_2"}}), false), "ck_2");
}

TEST(PresentedKeyTest, ReadsTheQueryTokenOnlyWhenAllowed) {
  httplib::Request req = RequestWith({}, {{"token", "ck_q"}});
  EXPECT_EQ(PresentedKey(req, false), std::nullopt);
  EXPECT_EQ(PresentedKey(req, true), "ck_q");
  EXPECT_EQ(PresentedKey(RequestWith({{"x-api-key", "ck_h"}}, {{"token", "ck_q"}}), true), "ck_h");
}

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-auth-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    keys_ = std::move(store::KeyStore::Open(dir_ + "/system.db")).value();
  }
  void TearDown() override {
    keys_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string dir_;
  std::unique_ptr<store::KeyStore> keys_;
};

TEST_F(AuthenticatorTest, AStoredKeyBecomesItsPrincipal) {
  auto created = keys_->Create("phone", "family", {"chat", "memory:read"});
  Authenticator auth(keys_.get(), "");
  auto who = auth.Authenticate(RequestWith({{"Authorization", "Bearer " + created->secret}}), false);
  ASSERT_TRUE(who.ok()) << who.status().ToString();
  EXPECT_EQ(who->key_id, created->info.id);
  EXPECT_EQ(who->name_space, "family");
  EXPECT_EQ(who->scopes, ScopeBit(Scope::kChat) | ScopeBit(Scope::kMemoryRead));
}

TEST_F(AuthenticatorTest, ScopeNamesThisBuildDoesNotKnowGrantNothing) {
  auto created = keys_->Create("future", "default", {"memory:read", "telepathy"});
  auto who = Authenticator(keys_.get(), "").AuthenticateKey(created->secret);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->scopes, ScopeBit(Scope::kMemoryRead));
}

TEST_F(AuthenticatorTest, AKeysFeatureSwitchesComeWithItsPrincipal) {
  store::FeatureOverrides features;
  features.memory = false;
  features.recall_tool = true;
  auto created = keys_->Create("plain relay", "default", {"chat"}, features);
  auto who = Authenticator(keys_.get(), "").AuthenticateKey(created->secret);
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->features, features);
  auto plain = keys_->Create("default switches", "default", {"chat"});
  EXPECT_EQ(Authenticator(keys_.get(), "").AuthenticateKey(plain->secret)->features, store::FeatureOverrides{});
}

TEST_F(AuthenticatorTest, TheEnvironmentKeyIsFullAccessToDefault) {
  Authenticator auth(keys_.get(), "cilia_test_from_env");
  auto who = auth.AuthenticateKey("cilia_test_from_env");
  ASSERT_TRUE(who.ok());
  EXPECT_EQ(who->key_id, "env");
  EXPECT_EQ(who->name_space, "default");
  EXPECT_EQ(who->scopes, kAllScopes);
  EXPECT_EQ(who->features, store::FeatureOverrides{});
  EXPECT_FALSE(auth.AuthenticateKey("cilia_test_from_en").ok());
  EXPECT_FALSE(auth.AuthenticateKey("cilia_test_from_envx").ok());
}

TEST_F(AuthenticatorTest, NoKeyAndBadKeysAreUnauthenticated) {
  Authenticator auth(keys_.get(), "");
  auto missing = auth.Authenticate(RequestWith({}), true);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kUnauthenticated);
  EXPECT_THAT(missing.status().message(), HasSubstr("missing API key"));
  EXPECT_EQ(auth.AuthenticateKey("").status().code(), Code::kUnauthenticated);
  EXPECT_EQ(auth.AuthenticateKey("ck_0000000000000000000000000000000000000000").status().code(),
            Code::kUnauthenticated);
}

TEST(AuthenticatorWithoutStoreTest, AcceptsOnlyTheEnvironmentKey) {
  Authenticator auth(nullptr, "cilia_test_only_key");
  EXPECT_TRUE(auth.AuthenticateKey("cilia_test_only_key").ok());
  EXPECT_FALSE(auth.AuthenticateKey("ck_other").ok());
  Authenticator nobody(nullptr, "");
  EXPECT_FALSE(nobody.AuthenticateKey("").ok());
}

}  // namespace
}  // namespace cilia::api
