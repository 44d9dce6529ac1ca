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

}  // namespace
}  // namespace cilia::llm
