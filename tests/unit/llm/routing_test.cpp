#include "llm/routing.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cilia::llm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Config TwoProviders() {
  Config config;
  config.providers = {{.name = "main", .kind = ProviderKind::kOpenAI, .base_url = "https://a.invalid/v1"},
                      {.name = "claude", .kind = ProviderKind::kAnthropic, .base_url = "https://b.invalid/v1"}};
  config.models.public_name = "companion";
  config.models.chat = "main/deepseek-ai/DeepSeek-V3";
  config.models.extract = "main/small";
  config.models.vision = "claude/claude-sonnet-4-5";
  config.models.aliases = {{"claude-haiku-4-5", "main/small"}, {"team/fast", "claude/claude-haiku-4-5"}};
  return config;
}

TEST(RoutingTest, ThePublicNameGoesToTheChatModelWhoseIdKeepsItsSlashes) {
  const Config config = TwoProviders();
  auto route = ResolveModel(config, "companion");
  ASSERT_TRUE(route.ok()) << route.status().ToString();
  EXPECT_EQ(route->provider->name, "main");
  EXPECT_EQ(route->model, "deepseek-ai/DeepSeek-V3");
  EXPECT_FALSE(route->vision);
}

TEST(RoutingTest, ProviderSlashIdSplitsAtTheFirstSlash) {
  const Config config = TwoProviders();
  auto route = ResolveModel(config, "main/org/model:free");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->provider->name, "main");
  EXPECT_EQ(route->model, "org/model:free");
  route = ResolveModel(config, "claude/claude-opus-4-1");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->provider->kind, ProviderKind::kAnthropic);
  EXPECT_EQ(route->model, "claude-opus-4-1");
}

TEST(RoutingTest, AnAliasGoesWhereItPointsEvenWhenItLooksLikeAProviderPath) {
  const Config config = TwoProviders();
  auto route = ResolveModel(config, "claude-haiku-4-5");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->provider->name, "main");
  EXPECT_EQ(route->model, "small");
  route = ResolveModel(config, "team/fast");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->provider->name, "claude");
  EXPECT_EQ(route->model, "claude-haiku-4-5");
}

TEST(RoutingTest, AnUnknownNameIsRefusedWithTheModelsThatExist) {
  const Config config = TwoProviders();
  for (std::string_view name : {"gpt-4o", "", "nobody/model", "main/", "/model", "Companion", "模型🙂"}) {
    auto route = ResolveModel(config, name);
    ASSERT_FALSE(route.ok()) << name;
    EXPECT_EQ(route.status().code(), Code::kInvalidArgument);
    EXPECT_THAT(route.status().message(), HasSubstr("companion"));
    EXPECT_THAT(route.status().message(), HasSubstr("claude-haiku-4-5"));
    EXPECT_THAT(route.status().message(), HasSubstr("main/…"));
    EXPECT_THAT(route.status().message(), HasSubstr("claude/…"));
  }
}

TEST(RoutingTest, AChatModelThatIsNotConfiguredSaysSo) {
  Config config = TwoProviders();
  config.models.chat = "";
  auto route = ResolveModel(config, "companion");
  ASSERT_FALSE(route.ok());
  EXPECT_THAT(route.status().message(), HasSubstr("models.chat"));
}

TEST(RoutingTest, VisionRouteIsTheVisionModel) {
  Config config = TwoProviders();
  auto route = VisionRoute(config);
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->provider->name, "claude");
  EXPECT_EQ(route->model, "claude-sonnet-4-5");
  EXPECT_TRUE(route->vision);
  config.models.vision = "";
  EXPECT_THAT(VisionRoute(config).status().message(), HasSubstr("models.vision is not configured"));
}

TEST(RoutingTest, ListedModelsArePublicNameAliasesThenTargetsWithoutDuplicates) {
  Config config = TwoProviders();
  config.models.extract = config.models.chat;
  EXPECT_THAT(ListedModels(config), ElementsAre("companion", "claude-haiku-4-5", "team/fast",
                                                "main/deepseek-ai/DeepSeek-V3", "claude/claude-sonnet-4-5"));
}

TEST(AliasPatternTest, StarIsAnyRunOfCharactersAndTheRestStandsForItself) {
  EXPECT_TRUE(MatchesAliasPattern("claude-*", "claude-opus-4-7"));
  EXPECT_TRUE(MatchesAliasPattern("claude-*", "claude-")) << "a run may be empty";
  EXPECT_TRUE(MatchesAliasPattern("claude-*-haiku-*", "claude-3-5-haiku-20241022"));
  EXPECT_TRUE(MatchesAliasPattern("*haiku*", "claude-haiku-4-5"));
  EXPECT_TRUE(MatchesAliasPattern("*", ""));
  EXPECT_TRUE(MatchesAliasPattern("a*b*c", "aXbYbZc")) << "backtracks past an early match";
  EXPECT_FALSE(MatchesAliasPattern("claude-*", "Claude-opus")) << "case counts";
  EXPECT_FALSE(MatchesAliasPattern("claude-*-haiku-*", "claude-haiku-4-5"));
  EXPECT_FALSE(MatchesAliasPattern("claude-*", "my-claude-opus"));
  EXPECT_FALSE(MatchesAliasPattern("gpt-4.1", "gpt-4x1")) << "no other wildcard: '.' is a dot";
  EXPECT_FALSE(MatchesAliasPattern("a*c", "abcd"));
}

// Claude Code's ids change every few months: patterns keep them routed.
Config WithPatterns() {
  Config config = TwoProviders();
  config.models.aliases["claude-*"] = "claude/claude-sonnet-4-5";
  config.models.aliases["claude-*-haiku-*"] = "main/small";
  config.models.aliases["*haiku*"] = "main/haiku-anything";
  config.models.aliases["claude-opus-4-7"] = "claude/claude-opus-4-7";
  return config;
}

TEST(RoutingTest, TheMostSpecificPatternRoutesANewModelIdAndAnExactAliasWinsOverAll) {
  const Config config = WithPatterns();
  auto expect_route = [&](std::string_view name, const char* provider, const char* model) {
    auto route = ResolveModel(config, name);
    ASSERT_TRUE(route.ok()) << name << ": " << route.status().ToString();
    EXPECT_EQ(route->provider->name, provider) << name;
    EXPECT_EQ(route->model, model) << name;
  };
  expect_route("claude-opus-4-8", "claude", "claude-sonnet-4-5");
  expect_route("claude-3-5-haiku-20241022", "main", "small");  // "claude-*-haiku-*" beats "claude-*" and "*haiku*"
  expect_route("claude-haiku-4-5", "main", "small");          // the exact alias, not a pattern
  expect_route("claude-opus-4-7", "claude", "claude-opus-4-7");
  expect_route("haiku-next", "main", "haiku-anything");
  expect_route("claude/claude-opus-4-1", "claude", "claude-opus-4-1");  // "<provider>/<id>" before patterns
  EXPECT_EQ(*AliasPatternMatch(config.models, "claude-x-haiku-y"), "claude-*-haiku-*");
  EXPECT_EQ(AliasPatternMatch(config.models, "gpt-4o"), nullptr);
}

TEST(RoutingTest, PatternsOfEqualWeightAreDecidedByByteOrderNotByChance) {
  Config config = TwoProviders();
  config.models.aliases["b*"] = "claude/from-b";
  config.models.aliases["*x"] = "main/from-x";
  EXPECT_EQ(*AliasPatternMatch(config.models, "bx"), "*x") << "one literal each: the first by byte order";
  config.models.aliases["bx*"] = "main/more-specific";
  EXPECT_EQ(*AliasPatternMatch(config.models, "bx"), "bx*");
}

TEST(RoutingTest, AnUnknownNameGoesToTheFallbackWhenOneIsSet) {
  Config config = TwoProviders();
  config.models.fallback = "claude/claude-sonnet-4-5";
  for (std::string_view name : {"gpt-4o", "claude-opus-5", "nobody/model"}) {
    auto route = ResolveModel(config, name);
    ASSERT_TRUE(route.ok()) << name << ": " << route.status().ToString();
    EXPECT_EQ(route->provider->name, "claude");
    EXPECT_EQ(route->model, "claude-sonnet-4-5");
  }
  auto exact = ResolveModel(config, "claude-haiku-4-5");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->model, "small") << "the fallback is for what nothing else routes";
}

TEST(RoutingTest, ListedModelsLeaveOutPatternsAndListTheFallbackAsATarget) {
  Config config = WithPatterns();
  config.models.fallback = "main/catch-all";
  EXPECT_THAT(ListedModels(config), ElementsAre("companion", "claude-haiku-4-5", "claude-opus-4-7", "team/fast",
                                                "main/deepseek-ai/DeepSeek-V3", "main/small",
                                                "claude/claude-sonnet-4-5", "main/catch-all"));
}

}  // namespace
}  // namespace cilia::llm
