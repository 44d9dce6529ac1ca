#include "core/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cilia {
namespace {

using ::testing::ElementsAre;
using ::testing::AllOf;
using ::testing::HasSubstr;

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-config-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    sources_.default_file = dir_ + "/cilia.toml";  // absent unless a test writes it
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  // Loads with `toml` as the explicit --config file.
  Result<Config> LoadToml(const std::string& toml) {
    sources_.file = WriteFile("test.toml", toml);
    return LoadConfig(sources_);
  }
  std::string ErrorOf(const Result<Config>& result) {
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), Code::kInvalidArgument);
    return result.status().message();
  }

  std::string dir_;
  ConfigSources sources_;
};

constexpr char kProviders[] = R"(
[[providers]]
name = "main"
kind = "openai"
base_url = "https://api.example.invalid/v1"
api_key_env = "MAIN_API_KEY"

[[providers]]
name = "claude"
kind = "anthropic"
base_url = "https://anthropic.example.invalid"
api_key = "sk-ant-file-key-0123456789"
idle_timeout_ms = 5000
)";

TEST_F(ConfigTest, NothingGivenMeansTheDocumentedDefaults) {
  auto config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.listen, "127.0.0.1:8420");
  EXPECT_EQ(config->server.data_dir, "./data");
  EXPECT_EQ(config->server.time_zone, "Asia/Shanghai");
  EXPECT_EQ(config->server.threads, 256);
  EXPECT_EQ(config->server.keep_alive_timeout_s, 5);
  EXPECT_EQ(config->server.max_body_mb, 32);
  EXPECT_TRUE(config->server.cors_origins.empty());
  EXPECT_EQ(config->server.log_level, "info");
  EXPECT_TRUE(config->providers.empty());
  EXPECT_EQ(config->models.public_name, "companion");
  EXPECT_EQ(config->models.chat, "");
  EXPECT_EQ(config->embedding.kind, EmbedderKind::kHash);
  EXPECT_EQ(config->embedding.dimensions, 256);
  EXPECT_EQ(config->embedding.batch_size, 64);
  EXPECT_EQ(config->index.hnsw_threshold, 50000);
  // The hash embedder's vector lane is off unless its weight is set (see below).
  EXPECT_DOUBLE_EQ(config->retrieval.vector_weight, 0);
  EXPECT_DOUBLE_EQ(config->retrieval.lexical_weight, 0.7);
  EXPECT_DOUBLE_EQ(config->retrieval.title_weight, 0.5);
  EXPECT_EQ(config->retrieval.rrf_k, 60);
  EXPECT_DOUBLE_EQ(config->retrieval.recency_days, 60);
  EXPECT_EQ(config->retrieval.per_conversation_day_cap, 2);
  EXPECT_EQ(config->retrieval.default_limit, 10);
  EXPECT_EQ(config->retrieval.max_limit, 100);
  EXPECT_TRUE(config->features.memory);
  EXPECT_TRUE(config->features.recall_tool);
  EXPECT_TRUE(config->features.compression);
  EXPECT_EQ(config->client_api_key, "");
  EXPECT_EQ(config->file, "");
}

TEST_F(ConfigTest, TheFileSetsEverySection) {
  auto config = LoadToml(std::string(R"(
[server]
listen = "0.0.0.0:9000"
data_dir = "/srv/cilia 数据"
time_zone = "UTC"
threads = 512
cors_origins = ["https://chat.example.com", "http://localhost:5173"]
log_level = "debug"

[models]
public_name = "友達"
chat = "main/deepseek/deepseek-chat"
extract = "claude/claude-haiku"
vision = "main/gpt-4o"
aliases = { "claude-haiku-4-5" = "claude/claude-haiku", "gpt-4" = "main/gpt-4o" }

[embedding]
kind = "openai"
provider = "main"
model = "bge-m3"
dimensions = 1024

[index]
hnsw_threshold = 0

[retrieval]
vector_weight = 1
lexical_weight = 0.5
per_conversation_day_cap = 0

[features]
compression = false
)") + kProviders);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.listen, "0.0.0.0:9000");
  EXPECT_EQ(config->server.data_dir, "/srv/cilia 数据");
  EXPECT_EQ(config->server.threads, 512);
  EXPECT_THAT(config->server.cors_origins, ElementsAre("https://chat.example.com", "http://localhost:5173"));
  EXPECT_EQ(config->models.public_name, "友達");
  EXPECT_EQ(config->models.chat, "main/deepseek/deepseek-chat");
  EXPECT_EQ(config->models.extract, "claude/claude-haiku");
  EXPECT_EQ(config->models.aliases.at("claude-haiku-4-5"), "claude/claude-haiku");
  EXPECT_EQ(config->models.aliases.size(), 2u);
  EXPECT_EQ(config->embedding.kind, EmbedderKind::kOpenAI);
  EXPECT_EQ(config->embedding.dimensions, 1024);
  EXPECT_EQ(config->index.hnsw_threshold, 0);
  EXPECT_DOUBLE_EQ(config->retrieval.vector_weight, 1.0);  // an integer is a fine number
  EXPECT_EQ(config->retrieval.per_conversation_day_cap, 0);
  EXPECT_FALSE(config->features.compression);
  EXPECT_TRUE(config->features.memory);
  ASSERT_EQ(config->providers.size(), 2u);
  EXPECT_EQ(config->providers[0].kind, ProviderKind::kOpenAI);
  EXPECT_EQ(config->providers[1].kind, ProviderKind::kAnthropic);
  EXPECT_EQ(config->providers[1].idle_timeout_ms, 5000);
  EXPECT_EQ(config->providers[1].connect_timeout_ms, 10000);
  EXPECT_EQ(config->FindProvider("claude"), &config->providers[1]);
  EXPECT_EQ(config->FindProvider("nope"), nullptr);
  EXPECT_EQ(config->file, *sources_.file);
}

TEST_F(ConfigTest, EnvironmentOverridesTheFileAndFlagsOverrideBoth) {
  sources_.env = {{"CILIA_SERVER_LISTEN", "127.0.0.1:7000"},
                  {"CILIA_SERVER_DATA_DIR", "/from/env"},
                  {"CILIA_SERVER_THREADS", "64"},
                  {"CILIA_INDEX_HNSW_THRESHOLD", "1000"},
                  {"CILIA_RETRIEVAL_RECENCY_DAYS", "30.5"}};
  sources_.listen = "127.0.0.1:7001";
  auto config = LoadToml("[server]\nlisten = \"127.0.0.1:6000\"\ndata_dir = \"/from/file\"\nthreads = 8\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.listen, "127.0.0.1:7001");
  EXPECT_EQ(config->server.data_dir, "/from/env");
  EXPECT_EQ(config->server.threads, 64);
  EXPECT_EQ(config->index.hnsw_threshold, 1000);
  EXPECT_DOUBLE_EQ(config->retrieval.recency_days, 30.5);

  sources_.data_dir = "/from/flag";
  config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.data_dir, "/from/flag");
}

TEST_F(ConfigTest, DefaultFileIsReadOnlyWhenPresent) {
  auto without = LoadConfig(sources_);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->file, "");
  WriteFile("cilia.toml", "[server]\nthreads = 32\n");
  auto with = LoadConfig(sources_);
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_EQ(with->server.threads, 32);
  EXPECT_EQ(with->file, sources_.default_file);
}

TEST_F(ConfigTest, AnExplicitConfigFileMustExist) {
  sources_.file = dir_ + "/missing.toml";
  EXPECT_EQ(ErrorOf(LoadConfig(sources_)), "config " + dir_ + "/missing.toml: no such file");
}

TEST_F(ConfigTest, AnUnknownKeyIsAnErrorNamingIt) {
  std::string error = ErrorOf(LoadToml("[server]\nlisten = \"127.0.0.1:8420\"\nlisen = \"oops\"\n"));
  EXPECT_THAT(error, HasSubstr("config " + *sources_.file + ": unknown key \"server.lisen\""));
  EXPECT_THAT(error, HasSubstr("line 3"));
}

TEST_F(ConfigTest, AnUnknownSectionOrTopLevelKeyIsAnError) {
  EXPECT_THAT(ErrorOf(LoadToml("[servr]\nlisten = \"x\"\n")), HasSubstr("unknown section \"servr\""));
  EXPECT_THAT(ErrorOf(LoadToml("listen = \"127.0.0.1:1\"\n")), HasSubstr("unknown key \"listen\""));
  EXPECT_THAT(ErrorOf(LoadToml("[dream]\n")), HasSubstr("unknown section \"dream\""));
  EXPECT_THAT(ErrorOf(LoadToml("[server]\n\"🦀\" = 1\n")), HasSubstr("unknown key \"server.🦀\""));
}

TEST_F(ConfigTest, AValueOfTheWrongTypeNamesKeyAndTypes) {
  EXPECT_THAT(ErrorOf(LoadToml("[server]\nthreads = \"many\"\n")),
              HasSubstr("server.threads: expected an integer, got a string"));
  EXPECT_THAT(ErrorOf(LoadToml("[server]\nthreads = 2.5\n")), HasSubstr("expected an integer, got a number"));
  EXPECT_THAT(ErrorOf(LoadToml("[features]\nmemory = \"yes\"\n")),
              HasSubstr("features.memory: expected true or false, got a string"));
  EXPECT_THAT(ErrorOf(LoadToml("[server]\ncors_origins = [\"https://a.example\", 3]\n")),
              HasSubstr("server.cors_origins: expected an array of strings"));
  EXPECT_THAT(ErrorOf(LoadToml("server = 1\n")), HasSubstr("\"server\" must be a section ([server])"));
  EXPECT_THAT(ErrorOf(LoadToml("[server]\nthreads = 99999999999\n")), HasSubstr("out of range"));
}

TEST_F(ConfigTest, ATomlSyntaxErrorGivesLineAndColumn) {
  std::string error = ErrorOf(LoadToml("[server]\nlisten = \"127.0.0.1:1\n"));
  EXPECT_THAT(error, HasSubstr("config " + *sources_.file + ":2:"));
}

TEST_F(ConfigTest, AnEmptyFileIsAllDefaults) {
  auto config = LoadToml("");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->server.listen, "127.0.0.1:8420");
}

TEST_F(ConfigTest, EnvironmentValuesAreParsedByType) {
  sources_.env = {{"CILIA_FEATURES_MEMORY", "off"},
                  {"CILIA_FEATURES_RECALL_TOOL", "FALSE"},
                  {"CILIA_FEATURES_COMPRESSION", "1"},
                  {"CILIA_SERVER_CORS_ORIGINS", " https://a.example , http://b.example:8080,"},
                  {"CILIA_EMBEDDING_KIND", "hash"},
                  {"CILIA_EMBEDDING_DIMENSIONS", "512"}};
  auto config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_FALSE(config->features.memory);
  EXPECT_FALSE(config->features.recall_tool);
  EXPECT_TRUE(config->features.compression);
  EXPECT_THAT(config->server.cors_origins, ElementsAre("https://a.example", "http://b.example:8080"));
  EXPECT_EQ(config->embedding.dimensions, 512);
}

TEST_F(ConfigTest, ABadEnvironmentValueNamesTheVariable) {
  sources_.env = {{"CILIA_SERVER_THREADS", "many"}};
  EXPECT_EQ(ErrorOf(LoadConfig(sources_)), "environment CILIA_SERVER_THREADS: expected an integer, got \"many\"");
  sources_.env = {{"CILIA_SERVER_THREADS", "12abc"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), HasSubstr("got \"12abc\""));
  sources_.env = {{"CILIA_RETRIEVAL_VECTOR_WEIGHT", "nan"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), HasSubstr("CILIA_RETRIEVAL_VECTOR_WEIGHT: expected a number"));
  sources_.env = {{"CILIA_FEATURES_MEMORY", "maybe"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), HasSubstr("expected true or false, got \"maybe\""));
  sources_.env = {{"CILIA_EMBEDDING_KIND", "bert"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)),
              HasSubstr("environment CILIA_EMBEDDING_KIND: \"bert\" is not an embedder kind (kinds: hash, openai, local)"));
}

TEST_F(ConfigTest, ATypoInAnEnvironmentVariableOfAKnownSectionIsAnError) {
  sources_.env = {{"CILIA_SERVER_LISEN", "127.0.0.1:1"}};
  EXPECT_EQ(ErrorOf(LoadConfig(sources_)), "environment CILIA_SERVER_LISEN: unknown key \"server.lisen\"");
  sources_.env = {{"CILIA_MODELS_ALIASES", "x"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), HasSubstr("models.aliases is set in the config file only"));
}

TEST_F(ConfigTest, OtherEnvironmentVariablesAreIgnored) {
  sources_.env = {{"CILIA_BIN", "/usr/bin/cilia"}, {"CILIA_FIXTURES", "/x"}, {"PATH", "/bin"}, {"HOME", "/root"}};
  EXPECT_TRUE(LoadConfig(sources_).ok());
}

TEST_F(ConfigTest, LogLevelHasAShortEnvironmentName) {
  sources_.env = {{"CILIA_LOG_LEVEL", "debug"}};
  auto config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->server.log_level, "debug");
  sources_.env["CILIA_SERVER_LOG_LEVEL"] = "error";
  config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->server.log_level, "error");
  sources_.env = {{"CILIA_LOG_LEVEL", "loud"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)),
              HasSubstr("environment CILIA_LOG_LEVEL: server.log_level: unknown log level \"loud\""));
}

TEST_F(ConfigTest, ClientApiKeyComesFromTheEnvironmentOnly) {
  sources_.env = {{"CILIA_API_KEY", "cilia_test_0123456789abcdef"}};
  auto config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->client_api_key, "cilia_test_0123456789abcdef");
}

TEST_F(ConfigTest, AProviderKeyIsReadFromItsEnvironmentVariable) {
  sources_.env = {{"MAIN_API_KEY", "sk-from-the-environment"}};
  auto config = LoadToml(kProviders);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->providers[0].api_key, "sk-from-the-environment");
  EXPECT_EQ(config->providers[1].api_key, "sk-ant-file-key-0123456789");

  sources_.env.clear();
  config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok());
  EXPECT_EQ(config->providers[0].api_key, "");  // doctor reports it; loading does not fail
}

TEST_F(ConfigTest, ProviderMistakesNameTheBlock) {
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nname = \"a\"\nbase_ur = \"https://x\"\n")),
              HasSubstr("unknown key \"providers[0].base_ur\""));
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nname = \"a\"\nkind = \"gemini\"\nbase_url = \"https://x\"\n")),
              HasSubstr("providers[0].kind: \"gemini\" is not a provider kind (kinds: openai, anthropic)"));
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nbase_url = \"https://x\"\n")), HasSubstr("providers[0].name: is required"));
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nname = \"a/b\"\nbase_url = \"https://x\"\n")),
              HasSubstr("providers[0].name: \"a/b\" may hold only"));
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nname = \"a\"\nbase_url = \"ftp://x\"\n")),
              HasSubstr("providers[0].base_url: \"ftp://x\" is not an http:// or https:// URL"));
  EXPECT_THAT(
      ErrorOf(LoadToml("[[providers]]\nname = \"a\"\nbase_url = \"https://x\"\n[[providers]]\nname = \"a\"\n"
                       "base_url = \"https://y\"\n")),
      HasSubstr("providers[1].name: \"a\" is defined twice"));
  EXPECT_THAT(ErrorOf(LoadToml("[[providers]]\nname = \"a\"\nbase_url = \"https://x\"\napi_key = \"k\"\n"
                               "api_key_env = \"K\"\n")),
              HasSubstr("set either api_key_env or api_key, not both"));
  EXPECT_THAT(ErrorOf(LoadToml("[providers]\nname = \"a\"\n")), HasSubstr("providers must be an array of tables"));
}

TEST_F(ConfigTest, PricesAreReadPerUpstreamModel) {
  auto config = LoadToml(std::string(kProviders) +
                         "[[prices]]\nmodel = \"main/big\"\ninput = 3\noutput = 15.5\ncache_read = 0.3\n"
                         "cache_write = 3.75\ncurrency = \"EUR\"\n[[prices]]\nmodel = \"claude/small\"\noutput = 1\n");
  ASSERT_TRUE(config.ok()) << config.status().message();
  ASSERT_EQ(config->prices.size(), 2u);
  const PriceConfig* big = config->FindPrice("main/big");
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(big->input, 3.0);
  EXPECT_EQ(big->output, 15.5);
  EXPECT_EQ(big->cache_read, 0.3);
  EXPECT_EQ(big->cache_write, 3.75);
  EXPECT_EQ(big->currency, "EUR");
  EXPECT_EQ(config->FindPrice("claude/small")->currency, "USD");
  EXPECT_EQ(config->FindPrice("claude/small")->input, 0.0);
  EXPECT_EQ(config->FindPrice("main/other"), nullptr);
}

TEST_F(ConfigTest, PriceMistakesNameTheBlock) {
  const std::string p = kProviders;
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\nmodel = \"main/x\"\ninptu = 1\n")),
              HasSubstr("unknown key \"prices[0].inptu\""));
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\ninput = 1\n")), HasSubstr("prices[0].model: is required"));
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\nmodel = \"nobody/x\"\n")),
              HasSubstr("prices[0].model: provider \"nobody\" is not defined"));
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\nmodel = \"main/x\"\noutput = -1\n")),
              HasSubstr("prices[0].output: must be 0 or more"));
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\nmodel = \"main/x\"\n[[prices]]\nmodel = \"main/x\"\n")),
              HasSubstr("prices[1].model: \"main/x\" is priced twice"));
  EXPECT_THAT(ErrorOf(LoadToml(p + "[[prices]]\nmodel = \"main/x\"\ninput = \"cheap\"\n")),
              HasSubstr("prices[0].input: expected a number"));
  EXPECT_THAT(ErrorOf(LoadToml("[prices]\nmodel = \"a\"\n")), HasSubstr("prices must be an array of tables"));
}

TEST_F(ConfigTest, AModelMustNameADefinedProvider) {
  std::string error = ErrorOf(LoadToml(std::string("[models]\nchat = \"mian/some-model\"\n") + kProviders));
  EXPECT_EQ(error, "config " + *sources_.file +
                       ": models.chat: provider \"mian\" is not defined (defined: main, claude)");
  EXPECT_THAT(ErrorOf(LoadToml("[models]\nchat = \"main/x\"\n")), HasSubstr("no [[providers]] are defined"));
  EXPECT_THAT(ErrorOf(LoadToml(std::string("[models]\nvision = \"gpt-4o\"\n") + kProviders)),
              HasSubstr("models.vision: \"gpt-4o\" is not \"<provider>/<model id>\""));
  EXPECT_THAT(ErrorOf(LoadToml(std::string("[models]\naliases = { \"x\" = \"nobody/y\" }\n") + kProviders)),
              HasSubstr("models.aliases.x: provider \"nobody\" is not defined"));
  EXPECT_THAT(ErrorOf(LoadToml(std::string("[models]\naliases = { \"x\" = 3 }\n") + kProviders)),
              HasSubstr("models.aliases.x: expected a string"));
}

TEST_F(ConfigTest, PatternAliasesAndTheFallbackAreReadAndCheckedLikeTheOtherTargets) {
  auto config = LoadToml(std::string("[models]\naliases = { \"claude-*\" = \"claude/sonnet\" }\n"
                                     "fallback = \"main/big\"\n") + kProviders);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->models.aliases.at("claude-*"), "claude/sonnet");
  EXPECT_EQ(config->models.fallback, "main/big");
  EXPECT_EQ(LoadToml(kProviders)->models.fallback, "") << "no fallback unless one is set: a 400";
  EXPECT_THAT(ErrorOf(LoadToml(std::string("[models]\nfallback = \"nobody/x\"\n") + kProviders)),
              HasSubstr("models.fallback: provider \"nobody\" is not defined"));
}

TEST_F(ConfigTest, AModelSetInTheEnvironmentIsBlamedOnTheEnvironment) {
  sources_.env = {{"CILIA_MODELS_CHAT", "nobody/x"}};
  EXPECT_THAT(ErrorOf(LoadToml(kProviders)),
              HasSubstr("environment CILIA_MODELS_CHAT: models.chat: provider \"nobody\" is not defined"));
}

TEST_F(ConfigTest, ExtractDefaultsToTheChatModel) {
  auto config = LoadToml(std::string("[models]\nchat = \"main/big\"\n") + kProviders);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->models.extract, "main/big");
}

TEST_F(ConfigTest, EmbeddingKindsNeedWhatTheyUse) {
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nkind = \"bert\"\n")),
              HasSubstr("embedding.kind: \"bert\" is not an embedder kind"));
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nkind = \"openai\"\nmodel = \"m\"\n")),
              HasSubstr("embedding.kind: kind \"openai\" needs embedding.provider"));
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nkind = \"openai\"\nprovider = \"main\"\nmodel = \"m\"\n")),
              HasSubstr("embedding.provider: provider \"main\" is not defined"));
  EXPECT_THAT(ErrorOf(LoadToml(std::string("[embedding]\nkind = \"openai\"\nprovider = \"main\"\n") + kProviders)),
              HasSubstr("needs embedding.model"));
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nkind = \"local\"\n")), HasSubstr("kind \"local\" needs embedding.model"));
  auto openai = LoadToml(std::string("[embedding]\nkind = \"openai\"\nprovider = \"main\"\nmodel = \"m\"\n") + kProviders);
  ASSERT_TRUE(openai.ok()) << openai.status().ToString();
  EXPECT_EQ(openai->embedding.dimensions, 0);  // the model's own size
}

TEST_F(ConfigTest, LocalEmbeddingKeysAreReadAndValidated) {
  auto local = LoadToml(
      "[embedding]\nkind = \"local\"\nmodel = \"m.gguf\"\nthreads = 2\nbatch_size = 8\n"
      "query_prefix = \"query: \"\npassage_prefix = \"passage: \"\n");
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(local->embedding.kind, EmbedderKind::kLocal);
  EXPECT_EQ(local->embedding.model, "m.gguf");
  EXPECT_EQ(local->embedding.threads, 2);
  EXPECT_EQ(local->embedding.batch_size, 8);
  EXPECT_EQ(local->embedding.query_prefix, "query: ");
  EXPECT_EQ(local->embedding.passage_prefix, "passage: ");
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nkind = \"local\"\nmodel = \"m.gguf\"\nthreads = -1\n")),
              HasSubstr("embedding.threads"));
  EXPECT_THAT(ErrorOf(LoadToml("[embedding]\nquery_prefix = \"query: \"\n")),
              HasSubstr("embedding.query_prefix: the prefixes are for kind \"local\""));
}

TEST_F(ConfigTest, ServerValuesAreValidatedAndBlamedOnTheirSource) {
  sources_.listen = "localhost";
  EXPECT_EQ(ErrorOf(LoadConfig(sources_)),
            "flag --listen: server.listen: \"localhost\" is not HOST:PORT (e.g. 127.0.0.1:8420)");
  sources_.listen.reset();
  sources_.env = {{"CILIA_SERVER_TIME_ZONE", "Mars/Olympus_Mons"}};
  std::string error = ErrorOf(LoadConfig(sources_));
  EXPECT_THAT(error, HasSubstr("environment CILIA_SERVER_TIME_ZONE: server.time_zone: "));
  EXPECT_THAT(error, HasSubstr("Mars/Olympus_Mons"));
  sources_.env.clear();
  EXPECT_THAT(ErrorOf(LoadToml("[server]\nthreads = 0\n")),
              HasSubstr("server.threads: must be between 1 and 10000, got 0"));
  EXPECT_THAT(ErrorOf(LoadToml("[server]\ncors_origins = [\"https://a.example/app\"]\n")),
              HasSubstr("\"https://a.example/app\" is not an origin"));
  EXPECT_TRUE(LoadToml("[server]\ncors_origins = [\"*\"]\n").ok());
  EXPECT_THAT(ErrorOf(LoadToml("[server]\ndata_dir = \"\"\n")), HasSubstr("server.data_dir: must not be empty"));
}

TEST_F(ConfigTest, TheVectorWeightDefaultsByEmbedder) {
  auto hash_set = LoadToml("[retrieval]\nvector_weight = 0.3\n");
  ASSERT_TRUE(hash_set.ok()) << hash_set.status().ToString();
  EXPECT_DOUBLE_EQ(hash_set->retrieval.vector_weight, 0.3);  // set: kept, even for hash
  auto remote = LoadToml(std::string("[embedding]\nkind = \"openai\"\nprovider = \"main\"\nmodel = \"bge-m3\"\n") + kProviders);
  ASSERT_TRUE(remote.ok()) << remote.status().ToString();
  EXPECT_DOUBLE_EQ(remote->retrieval.vector_weight, 0.3);
  EXPECT_THAT(ErrorOf(LoadToml("[retrieval]\ntitle_weight = -1\n")), HasSubstr("retrieval.title_weight"));
}

TEST_F(ConfigTest, RetrievalLimitsMustFitTogether) {
  EXPECT_THAT(ErrorOf(LoadToml("[retrieval]\ndefault_limit = 200\n")),
              HasSubstr("retrieval.default_limit: must be between 1 and 100, got 200"));
  EXPECT_TRUE(LoadToml("[retrieval]\ndefault_limit = 200\nmax_limit = 500\n").ok());
  EXPECT_THAT(ErrorOf(LoadToml("[retrieval]\nvector_weight = 0\nlexical_weight = 0\n")),
              HasSubstr("must not both be 0"));
  EXPECT_THAT(ErrorOf(LoadToml("[retrieval]\nvector_weight = -0.5\n")), HasSubstr("retrieval.vector_weight"));
}

TEST_F(ConfigTest, ThePreciousBudgetHasADefaultAndARange) {
  auto defaults = LoadToml("");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->gateway.precious_tokens, 800);
  auto none = LoadToml("[gateway]\nprecious_tokens = 0\n");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->gateway.precious_tokens, 0) << "0: no precious block";
  EXPECT_THAT(ErrorOf(LoadToml("[gateway]\nprecious_tokens = -1\n")), HasSubstr("gateway.precious_tokens"));
}

TEST_F(ConfigTest, OutputFilterSwitchesAndRewriteRulesHaveDefaultsAndComeFromTheFile) {
  auto defaults = LoadToml("");
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_FALSE(defaults->features.strip_reasoning);
  EXPECT_TRUE(defaults->features.rewrite);
  EXPECT_TRUE(defaults->gateway.rewrite.empty());
  auto config = LoadToml(
      "[features]\nstrip_reasoning = true\nrewrite = false\n"
      "[gateway]\nrewrite = [[\"Claude\", \"Cilia\"], [\"<br>\", \"\"], [\"思考\", \"想\"]]\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_TRUE(config->features.strip_reasoning);
  EXPECT_FALSE(config->features.rewrite);
  EXPECT_THAT(config->gateway.rewrite,
              ElementsAre(RewriteRule{"Claude", "Cilia"}, RewriteRule{"<br>", ""}, RewriteRule{"思考", "想"}));
  sources_.env = {{"CILIA_FEATURES_STRIP_REASONING", "false"}};
  EXPECT_FALSE(LoadConfig(sources_)->features.strip_reasoning);
}

TEST_F(ConfigTest, BadRewriteRulesAreRefusedNamingTheRule) {
  struct Case {
    std::string rules;
    const char* named;
  };
  std::string many = "[";
  for (int i = 0; i <= 64; ++i) many += "[\"r" + std::to_string(i) + "\", \"x\"],";
  many += "]";
  for (const Case& c : {Case{"\"a\"", "expected an array"}, Case{"[\"a\"]", "gateway.rewrite[0]: expected a pair"},
                        Case{"[[\"a\"]]", "gateway.rewrite[0]: expected a pair"},
                        Case{"[[\"a\", \"b\", \"c\"]]", "expected a pair"},
                        Case{"[[\"a\", 1]]", "expected a pair of strings"},
                        Case{"[[\"a\", \"b\"], [\"\", \"c\"]]", "gateway.rewrite[1]: \"from\" is empty"},
                        Case{"[[\"" + std::string(257, 'x') + "\", \"b\"]]", "\"from\" is 257 bytes, at most 256"},
                        Case{"[[\"a\", \"" + std::string(4097, 'y') + "\"]]", "\"to\" is 4097 bytes, at most 4096"},
                        Case{"[[\"a\", \"b\"], [\"a\", \"c\"]]", "gateway.rewrite[1]: \"a\" is rewritten twice"},
                        Case{many, "at most 64 rules, got 65"}}) {
    const std::string error = ErrorOf(LoadToml("[gateway]\nrewrite = " + c.rules + "\n"));
    EXPECT_THAT(error, HasSubstr(c.named)) << c.rules;
    EXPECT_THAT(error, HasSubstr("(line 2)")) << c.rules;
  }
  std::string longest = "[[\"" + std::string(256, 'x') + "\", \"" + std::string(4096, 'y') + "\"]]";
  EXPECT_TRUE(LoadToml("[gateway]\nrewrite = " + longest + "\n").ok());
}

TEST_F(ConfigTest, RewriteRulesCannotComeFromTheEnvironment) {
  sources_.env = {{"CILIA_GATEWAY_REWRITE", "[[\"a\",\"b\"]]"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), HasSubstr("gateway.rewrite is set in the config file only"));
}

TEST(ListenAddressTest, ParsesHostAndPort) {
  auto v4 = ParseListenAddress("127.0.0.1:8420");
  ASSERT_TRUE(v4.ok());
  EXPECT_EQ(v4->host, "127.0.0.1");
  EXPECT_EQ(v4->port, 8420);
  auto v6 = ParseListenAddress("[::1]:80");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 80);
  auto any = ParseListenAddress("0.0.0.0:0");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->port, 0);
  EXPECT_TRUE(ParseListenAddress("my-host.local:65535").ok());
}

TEST(ListenAddressTest, RejectsWhatIsNotHostColonPort) {
  for (const char* bad : {"", "8420", ":8420", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:80a",
                          "::1:80", "[::1]80", "[::1]", "host name:80", "主机:80", "127.0.0.1:000008420"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

TEST(ListenAddressTest, KnowsLoopbackHosts) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("192.168.1.2"));
  EXPECT_FALSE(IsLoopbackHost("::"));
}

TEST(SplitListTest, SplitsAtCommasAndTrims) {
  EXPECT_THAT(SplitList("a, b ,c"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(SplitList("a,,b,"), ElementsAre("a", "", "b", ""));
  EXPECT_THAT(SplitList(""), ElementsAre(""));
  EXPECT_THAT(SplitList(" 记忆 ,🌸"), ElementsAre("记忆", "🌸"));
}

TEST(ConfigNamesTest, KindsHaveTheirConfigNames) {
  EXPECT_STREQ(ProviderKindName(ProviderKind::kAnthropic), "anthropic");
  EXPECT_STREQ(ProviderKindName(ProviderKind::kOpenAI), "openai");
  EXPECT_STREQ(EmbedderKindName(EmbedderKind::kLocal), "local");
}

TEST(ProcessEnvironmentTest, ReadsTheRealEnvironment) {
  setenv("CILIA_CONFIG_TEST_VALUE", "a=b=c", 1);
  auto env = ProcessEnvironment();
  EXPECT_EQ(env.at("CILIA_CONFIG_TEST_VALUE"), "a=b=c");
  unsetenv("CILIA_CONFIG_TEST_VALUE");
}

TEST_F(ConfigTest, JobsHaveDocumentedDefaultsAndComeFromFileAndEnvironment) {
  auto defaults = LoadConfig(sources_);
  ASSERT_TRUE(defaults.ok()) << defaults.status().ToString();
  EXPECT_TRUE(defaults->jobs.enabled);
  EXPECT_EQ(defaults->jobs.nightly_at, "04:10");
  EXPECT_EQ(defaults->jobs.nightly_catch_up_days, 7);
  EXPECT_EQ(defaults->jobs.turns_days, 90);
  sources_.env = {{"CILIA_JOBS_NIGHTLY_AT", "03:05"}, {"CILIA_JOBS_RETENTION_ENABLED", "false"}};
  auto config = LoadToml("[jobs]\nturns_days = 0\ncandidates_days = 14\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->jobs.nightly_at, "03:05");
  EXPECT_FALSE(config->jobs.retention_enabled);
  EXPECT_EQ(config->jobs.turns_days, 0);
  EXPECT_EQ(config->jobs.candidates_days, 14);
}

TEST_F(ConfigTest, BadJobSettingsAreNamed) {
  EXPECT_THAT(ErrorOf(LoadToml("[jobs]\nnightly_at = \"4:10\"\n")), HasSubstr("jobs.nightly_at"));
  EXPECT_THAT(ErrorOf(LoadToml("[jobs]\nnightly_at = \"24:00\"\n")), HasSubstr("hours 00-23"));
  EXPECT_THAT(ErrorOf(LoadToml("[jobs]\nturns_days = -1\n")), HasSubstr("jobs.turns_days"));
  EXPECT_THAT(ErrorOf(LoadToml("[jobs]\nretention_interval_hours = 0\n")), HasSubstr("jobs.retention_interval_hours"));
  EXPECT_THAT(ErrorOf(LoadToml("[jobs]\nnightly = true\n")), HasSubstr("unknown key \"jobs.nightly\""));
}

TEST_F(ConfigTest, ExtractionCostLimitsHaveDefaultsAndRanges) {
  auto defaults = LoadToml("");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->extraction.daily_token_budget, 500'000);
  EXPECT_EQ(defaults->extraction.max_batches_per_run, 20);
  EXPECT_FALSE(defaults->extraction.backfill) << "imported history waits for the owner";
  sources_.env = {{"CILIA_EXTRACTION_BACKFILL", "true"}};
  auto set = LoadToml("[extraction]\ndaily_token_budget = 0\nmax_batches_per_run = 1000\n");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  EXPECT_EQ(set->extraction.daily_token_budget, 0) << "0: no daily limit";
  EXPECT_EQ(set->extraction.max_batches_per_run, 1000);
  EXPECT_TRUE(set->extraction.backfill);
  sources_.env.clear();
  EXPECT_THAT(ErrorOf(LoadToml("[extraction]\ndaily_token_budget = -1\n")), HasSubstr("extraction.daily_token_budget"));
  EXPECT_THAT(ErrorOf(LoadToml("[extraction]\nmax_batches_per_run = 0\n")), HasSubstr("extraction.max_batches_per_run"));
  EXPECT_THAT(ErrorOf(LoadToml("[extraction]\nmax_batches_per_run = 1001\n")), HasSubstr("extraction.max_batches_per_run"));
}

TEST(ParseTimeOfDayTest, ReadsHoursAndMinutes) {
  EXPECT_EQ(*ParseTimeOfDay("04:10"), 250);
  EXPECT_EQ(*ParseTimeOfDay("00:00"), 0);
  EXPECT_EQ(*ParseTimeOfDay("23:59"), 1439);
  for (const char* bad : {"", "4:10", "04:60", "0410", "04:1x", "04:10:00"}) {
    EXPECT_FALSE(ParseTimeOfDay(bad).ok()) << bad;
  }
}

TEST_F(ConfigTest, TheStoreIsSqliteUnlessItSaysPostgres) {
  auto config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->store.kind, StoreKind::kSqlite);
  EXPECT_EQ(config->store.pool_size, 8);
  EXPECT_EQ(config->store.statement_timeout_ms, 30000);
  EXPECT_EQ(config->store.unload_idle_s, 1800);

  config = LoadToml("[store]\nkind = \"postgres\"\nurl = \"postgresql://cilia@db/memory\"\npool_size = 3\n"
                    "statement_timeout_ms = 500\nunload_idle_s = 0\n");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->store.kind, StoreKind::kPostgres);
  EXPECT_EQ(config->store.url, "postgresql://cilia@db/memory");
  EXPECT_EQ(config->store.pool_size, 3);
  EXPECT_EQ(config->store.statement_timeout_ms, 500);
  EXPECT_EQ(config->store.unload_idle_s, 0);

  sources_.file.reset();
  sources_.env = {{"CILIA_STORE_KIND", "postgres"}, {"CILIA_STORE_URL", "postgresql:///m?host=/run/pg"},
                  {"CILIA_STORE_POOL_SIZE", "16"}, {"CILIA_STORE_STATEMENT_TIMEOUT_MS", "1000"}};
  config = LoadConfig(sources_);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->store.kind, StoreKind::kPostgres);
  EXPECT_EQ(config->store.url, "postgresql:///m?host=/run/pg");
  EXPECT_EQ(config->store.pool_size, 16);
  EXPECT_EQ(config->store.statement_timeout_ms, 1000);
}

TEST_F(ConfigTest, StoreMistakesNameTheKey) {
  EXPECT_THAT(ErrorOf(LoadToml("[store]\nkind = \"postgres\"\n")),
              AllOf(HasSubstr("store.kind"), HasSubstr("store.url"), HasSubstr("CILIA_STORE_URL")));
  EXPECT_THAT(ErrorOf(LoadToml("[store]\nkind = \"mysql\"\n")),
              AllOf(HasSubstr("store.kind"), HasSubstr("sqlite, postgres")));
  EXPECT_THAT(ErrorOf(LoadToml("[store]\nurl = \"postgresql://db/m\"\n")), HasSubstr("store.url"));
  EXPECT_THAT(ErrorOf(LoadToml("[store]\nkind = \"postgres\"\nurl = \"postgresql://db/m\"\npool_size = 0\n")),
              HasSubstr("store.pool_size"));
  EXPECT_THAT(ErrorOf(LoadToml("[store]\nunload_idle_s = -1\n")), HasSubstr("store.unload_idle_s"));
  sources_.file.reset();
  sources_.env = {{"CILIA_STORE_KIND", "oracle"}};
  EXPECT_THAT(ErrorOf(LoadConfig(sources_)), AllOf(HasSubstr("CILIA_STORE_KIND"), HasSubstr("oracle")));
}

TEST(RedactedStoreUrl, HidesThePasswordInEitherForm) {
  EXPECT_EQ(RedactedStoreUrl("postgresql://cilia:s3cret@db.example:5432/memory?sslmode=require"),
            "postgresql://cilia:***@db.example:5432/memory?sslmode=require");
  EXPECT_EQ(RedactedStoreUrl("postgres://cilia:p%40ss@db/m"), "postgres://cilia:***@db/m");
  EXPECT_EQ(RedactedStoreUrl("postgresql://cilia@db/m?password=s3cret&sslmode=require"),
            "postgresql://cilia@db/m?password=***&sslmode=require");
  EXPECT_EQ(RedactedStoreUrl("host=db user=cilia password=s3cret dbname=m"), "host=db user=cilia password=*** dbname=m");
  EXPECT_EQ(RedactedStoreUrl("host=db password = 'a b\\' c' dbname=m"), "host=db password = *** dbname=m");
  EXPECT_EQ(RedactedStoreUrl("postgresql:///m?host=/run/pg&user=cilia"), "postgresql:///m?host=/run/pg&user=cilia");
}

}  // namespace
}  // namespace cilia
