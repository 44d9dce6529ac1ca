#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/data_dir.h"
#include "embed/factory.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/candidates.h"
#include "memory/excerpts/excerpts.h"
#include "memory/registry.h"
#include "store/job_run_repo.h"

namespace cilia::app {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Sets TZ, as the machine's zone, for the test's length.
class ZoneOfThisMachine {
 public:
  explicit ZoneOfThisMachine(const char* zone) {
    if (const char* before = std::getenv("TZ")) before_ = before;
    setenv("TZ", zone, 1);
  }
  ~ZoneOfThisMachine() {
    if (before_) setenv("TZ", before_->c_str(), 1);
    else unsetenv("TZ");
  }

 private:
  std::optional<std::string> before_;
};

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-doctor-test-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    unsetenv("CILIA_DOCTOR_TEST_KEY");
    std::filesystem::remove_all(dir_);
  }
  std::string WriteConfig(const std::string& toml) {
    std::string path = dir_ + "/cilia.toml";
    std::ofstream(path) << toml;
    return path;
  }
  // Runs `cilia doctor` with these flags; returns the exit code, stdout in *out.
  int Doctor(std::map<std::string, std::string> flags, std::string* out) {
    flags.emplace("data", dir_ + "/data");
    ::testing::internal::CaptureStdout();
    int code = RunDoctor(CommandLine{"doctor", {}, flags});
    *out = ::testing::internal::GetCapturedStdout();
    return code;
  }
  // `cilia doctor --json`'s check of that name.
  nlohmann::json JsonCheck(std::map<std::string, std::string> flags, const std::string& name, int* code = nullptr) {
    flags.emplace("json", "");
    std::string out;
    int exit_code = Doctor(std::move(flags), &out);
    if (code) *code = exit_code;
    nlohmann::json report = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
    if (!report.is_object()) return {{"unparsed", out}};
    for (const nlohmann::json& check : report["checks"]) {
      if (check["name"] == name) return check;
    }
    return {{"missing", name}};
  }
  // The default namespace in the data dir, as `cilia serve` would make it.
  std::shared_ptr<memory::Namespace> DefaultNamespace() {
    Config config;
    config.server.data_dir = dir_ + "/data";
    EXPECT_TRUE(PrepareDataDir(config.server.data_dir).ok());
    auto registry = memory::Registry::Open(config);
    EXPECT_TRUE(registry.ok()) << registry.status().ToString();
    registry_ = std::move(*registry);
    auto ns = registry_->Get("default");
    EXPECT_TRUE(ns.ok()) << ns.status().ToString();
    return *ns;
  }
  std::string dir_;
  std::unique_ptr<memory::Registry> registry_;
};

constexpr char kProvider[] = R"(
[server]
time_zone = "UTC"
[[providers]]
name = "main"
base_url = "http://127.0.0.1:PORT/v1"
api_key_env = "CILIA_DOCTOR_TEST_KEY"
)";

std::string WithPort(std::string toml, int port) {
  toml.replace(toml.find("PORT"), 4, std::to_string(port));
  return toml;
}

TEST_F(DoctorTest, AFreshSetupHasNoProblemOnlyTheHashEmbedderToLookAt) {
  ZoneOfThisMachine utc("UTC");
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig("[server]\ntime_zone = \"UTC\"\n")}}, &out), kExitOk) << out;
  for (const char* check : {"config", "data dir", "free disk", "server", "keys", "time zone", "models", "jobs",
                            "extraction budget", "candidates"}) {
    EXPECT_THAT(out, HasSubstr(std::string("ok    ") + check)) << out;
  }
  EXPECT_THAT(out, HasSubstr("missing; created on first use"));
  EXPECT_THAT(out, HasSubstr("WARN  embedder           hash (built in, 256 dimensions)"));
  EXPECT_THAT(out, Not(HasSubstr("FAIL")));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/data")) << "doctor must not create the data dir";
}

// The loaded model's line is LocalEmbedder::Describe (local_embedder_test.cpp), which doctor
// prints as it is (tests/e2e/local-embedding.test.mjs runs doctor on a model file).
TEST_F(DoctorTest, ALocalModelThatCannotLoadIsAProblemNamingWhy) {
  nlohmann::json missing = JsonCheck(
      {{"config", WriteConfig("[embedding]\nkind = \"local\"\nmodel = \"" + dir_ + "/none.gguf\"\n")}}, "embedder");
  EXPECT_EQ(missing["verdict"], "problem") << missing.dump();
  if (embed::LocalEmbeddingBuiltIn()) {
    EXPECT_EQ(missing["detail"], "embedding.model: " + dir_ + "/none.gguf: no such file");
    EXPECT_THAT(missing["mend"].get<std::string>(), HasSubstr("GGUF"));
  } else {
    EXPECT_THAT(missing["detail"].get<std::string>(), HasSubstr("built without"));
    EXPECT_THAT(missing["mend"].get<std::string>(), HasSubstr("scripts/setup.sh"));
  }
}

TEST_F(DoctorTest, AMissingProviderKeyFailsWithHowToMendIt) {
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(WithPort(kProvider, 9))}}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  provider main"));
  EXPECT_THAT(out, HasSubstr("-> export CILIA_DOCTOR_TEST_KEY=<the provider's key>"));
}

TEST_F(DoctorTest, WithTheKeySetTheProviderIsOkWithoutCallingIt) {
  setenv("CILIA_DOCTOR_TEST_KEY", "sk-doctor-test-0123456789", 1);
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(WithPort(kProvider, 9))}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("key from CILIA_DOCTOR_TEST_KEY"));
  EXPECT_THAT(out, Not(HasSubstr("sk-doctor-test")));
}

TEST_F(DoctorTest, CredentialsInABaseUrlAreNotPrinted) {
  setenv("CILIA_DOCTOR_TEST_KEY", "sk-doctor-test-0123456789", 1);
  std::string toml = WithPort(kProvider, 9);
  toml.replace(toml.find("http://"), 7, "http://proxyuser:hunter2pass@");
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(toml)}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("at http://[redacted]@127.0.0.1:9/v1"));
  EXPECT_THAT(out, Not(HasSubstr("hunter2pass")));
  EXPECT_THAT(out, Not(HasSubstr("proxyuser")));
  EXPECT_EQ(Doctor({{"config", WriteConfig(toml)}, {"online", ""}}, &out), kExitFailure) << "nothing listens on port 9";
  EXPECT_THAT(out, Not(HasSubstr("hunter2pass")));
}

TEST_F(DoctorTest, OnlineItAsksTheProviderAndReportsARefusedKey) {
  httplib::Server upstream;
  upstream.Get("/v1/models", [](const httplib::Request& req, httplib::Response& res) {
    res.status = req.get_header_value("Authorization") == "Bearer sk-good-key-0123456789" ? 200 : 401;
    res.set_content("{}", "application/json");
  });
  int port = upstream.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { upstream.listen_after_bind(); });
  std::string config = WriteConfig(WithPort(kProvider, port));

  setenv("CILIA_DOCTOR_TEST_KEY", "sk-wrong-key-0123456789", 1);
  std::string out;
  EXPECT_EQ(Doctor({{"config", config}, {"online", ""}}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  provider main"));
  EXPECT_THAT(out, HasSubstr("the key is refused (HTTP 401)"));

  setenv("CILIA_DOCTOR_TEST_KEY", "sk-good-key-0123456789", 1);
  EXPECT_EQ(Doctor({{"config", config}, {"online", ""}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("reachable (HTTP 200 for /models)"));
  upstream.stop();
  serving.join();
}

TEST_F(DoctorTest, ABadConfigIsOneFailLineAndExitTwo) {
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig("[server]\nlisen = 1\n")}}, &out), kExitUsage);
  EXPECT_THAT(out, HasSubstr("FAIL  config"));
  EXPECT_THAT(out, HasSubstr("unknown key \"server.lisen\""));
}

TEST_F(DoctorTest, AFileWhereTheDataDirShouldBeFails) {
  std::ofstream(dir_ + "/data") << "not a directory";
  std::string out;
  EXPECT_EQ(Doctor({}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  data dir"));
  EXPECT_THAT(out, HasSubstr("is not a directory"));
}

TEST_F(DoctorTest, AZoneOtherThanTheMachinesIsAWarningNamingBoth) {
  ZoneOfThisMachine berlin("Europe/Berlin");
  int code = -1;
  nlohmann::json check =
      JsonCheck({{"config", WriteConfig("[server]\ntime_zone = \"Asia/Shanghai\"\n")}}, "time zone", &code);
  EXPECT_EQ(code, kExitOk) << "a warning is not a problem";
  EXPECT_EQ(check["verdict"], "warning") << check;
  EXPECT_THAT(check.value("detail", ""), HasSubstr("Asia/Shanghai (UTC+08:00 now), but this machine's is Europe/Berlin"));
  EXPECT_THAT(check.value("mend", ""), HasSubstr("time_zone = \"Europe/Berlin\" under [server]"));
}

TEST_F(DoctorTest, AnAliasOfTheMachinesZoneIsOk) {
  ZoneOfThisMachine shanghai("Asia/Shanghai");
  nlohmann::json check = JsonCheck({{"config", WriteConfig("[server]\ntime_zone = \"Asia/Chongqing\"\n")}}, "time zone");
  EXPECT_EQ(check["verdict"], "ok") << check;
}

TEST_F(DoctorTest, TheHashEmbedderWarningGivesALineThatSwitchesToAnEndpoint) {
  setenv("CILIA_DOCTOR_TEST_KEY", "sk-doctor-test-0123456789", 1);
  nlohmann::json hash = JsonCheck({{"config", WriteConfig(WithPort(kProvider, 9))}}, "embedder");
  EXPECT_EQ(hash["verdict"], "warning") << hash;
  const std::string mend = hash.value("mend", "");
  const std::string line = "embedding = { kind = \"openai\", provider = \"main\", model = \"text-embedding-3-small\" }";
  ASSERT_THAT(mend, HasSubstr(line));
  // The line, put at the top as it says, is a config doctor reads as the endpoint.
  nlohmann::json openai = JsonCheck({{"config", WriteConfig(line + "\n" + WithPort(kProvider, 9))}}, "embedder");
  EXPECT_EQ(openai["verdict"], "ok") << openai;
  EXPECT_EQ(openai["detail"], "openai via main, model text-embedding-3-small");
}

TEST_F(DoctorTest, ANewestRunThatFailedIsAWarningAnOlderOneNot) {
  auto ns = DefaultNamespace();
  auto record = [&](const char* job, store::JobOutcome outcome, const char* error) {
    ASSERT_TRUE(ns->store()
                    .Write([&](store::Database& db) -> Status {
                      store::JobRunRepo runs(db);
                      CILIA_ASSIGN_OR_RETURN(int64_t id, runs.Start(job, "default", "manual", 1'780'000'000'000));
                      return runs.Finish(id, outcome, error, 0, nlohmann::json::object(), 1'780'000'001'000);
                    })
                    .ok());
  };
  record("nightly", store::JobOutcome::kFailed, "old trouble");
  record("nightly", store::JobOutcome::kOk, "");
  EXPECT_EQ(JsonCheck({}, "jobs")["verdict"], "ok");
  record("extract", store::JobOutcome::kFailed, "upstream answered HTTP 500");
  int code = -1;
  nlohmann::json check = JsonCheck({}, "jobs", &code);
  EXPECT_EQ(code, kExitOk);
  EXPECT_EQ(check["verdict"], "warning") << check;
  EXPECT_THAT(check.value("detail", ""), HasSubstr("default: extract failed (upstream answered HTTP 500)"));
  EXPECT_THAT(check.value("detail", ""), Not(HasSubstr("old trouble")));
}

TEST_F(DoctorTest, ANewestRunThatPartlyFailedIsAWarningToo) {
  auto ns = DefaultNamespace();
  ASSERT_TRUE(ns->store()
                  .Write([&](store::Database& db) -> Status {
                    store::JobRunRepo runs(db);
                    CILIA_ASSIGN_OR_RETURN(int64_t id, runs.Start("nightly", "default", "schedule", 1'780'000'000'000));
                    return runs.Finish(id, store::JobOutcome::kPartial, "1 item(s) failed: day 2026-05-27", 3,
                                       nlohmann::json::object(), 1'780'000'001'000);
                  })
                  .ok());
  nlohmann::json check = JsonCheck({}, "jobs");
  EXPECT_EQ(check["verdict"], "warning") << check;
  EXPECT_THAT(check.value("detail", ""), HasSubstr("default: nightly partly failed (1 item(s) failed"));
}

TEST_F(DoctorTest, TheExtractionBudgetShowsWhatIsLeftTodayAndWarnsWhenItIsSpent) {
  auto ns = DefaultNamespace();
  nlohmann::json fresh = JsonCheck({}, "extraction budget");
  EXPECT_EQ(fresh["verdict"], "ok") << fresh;
  EXPECT_EQ(fresh["detail"], "500000 tokens a day — today default: 0 spent, 500000 left");
  auto spend = [&](int64_t tokens) {
    ASSERT_TRUE(ns->store()
                    .Write([&](store::Database& db) -> Status {
                      store::JobRunRepo runs(db);
                      const UnixMs now = Clock::System().Now();
                      CILIA_ASSIGN_OR_RETURN(int64_t id, runs.Start("extract", "default", "schedule", now));
                      return runs.Finish(id, store::JobOutcome::kOk, "", 0, {{"tokens_in", tokens}, {"tokens_out", 0}},
                                         now);
                    })
                    .ok());
  };
  spend(120'000);
  EXPECT_EQ(JsonCheck({}, "extraction budget")["detail"], "500000 tokens a day — today default: 120000 spent, 380000 left");
  spend(400'000);
  nlohmann::json spent = JsonCheck({}, "extraction budget");
  EXPECT_EQ(spent["verdict"], "warning") << spent;
  EXPECT_THAT(spent.value("mend", ""), HasSubstr("waits for the next local day"));
  std::string out;
  Doctor({{"config", WriteConfig("[extraction]\ndaily_token_budget = 0\n")}}, &out);
  EXPECT_THAT(out, HasSubstr("ok    extraction budget  no daily limit"));
}

TEST_F(DoctorTest, PendingCandidatesAreAWarningWithTheirCount) {
  auto ns = DefaultNamespace();
  EXPECT_EQ(JsonCheck({}, "candidates")["verdict"], "ok");
  ingest::IngestConversation c;
  c.conversation_id = "chat";
  c.messages = {{"u1", "user", "Lena", "I moved to Beijing last week.", 1'779'900'000'000}};
  ASSERT_TRUE(memory::Archive(*ns).StoreAndIndex(c).ok());
  memory::NewExcerpt item;
  item.content = "Lena lives in Beijing.";
  item.quote = "I moved to Beijing";
  item.conversation_id = "chat";
  item.message_id = "u1";
  item.type = "fact";
  auto quote = memory::Excerpts(*ns).CheckQuote(item);
  ASSERT_TRUE(quote.ok()) << quote.status().ToString();
  memory::Excerpts::Draft draft;
  draft.content = item.content;
  draft.quote = *quote;
  draft.confidence = 0.5;
  ASSERT_TRUE(memory::Candidates(*ns).Queue(draft, "2026-05-20", "low_confidence", std::nullopt).ok());
  nlohmann::json check = JsonCheck({}, "candidates");
  EXPECT_EQ(check["verdict"], "warning") << check;
  EXPECT_THAT(check.value("detail", ""), HasSubstr("1 in default"));
  EXPECT_THAT(check.value("mend", ""), HasSubstr("approve or discard"));
}

TEST_F(DoctorTest, JsonCarriesTheWorstVerdictAndEveryCheck) {
  std::ofstream(dir_ + "/data") << "not a directory";
  std::string out;
  EXPECT_EQ(Doctor({{"json", ""}}, &out), kExitFailure);
  nlohmann::json report = nlohmann::json::parse(out);
  EXPECT_EQ(report["verdict"], "problem");
  ASSERT_TRUE(report["checks"].is_array());
  EXPECT_EQ(report["checks"][1]["name"], "data dir");
  EXPECT_EQ(report["checks"][1]["verdict"], "problem");
  EXPECT_THAT(report["checks"][1].value("mend", ""), HasSubstr("--data"));
}

}  // namespace
}  // namespace cilia::app
