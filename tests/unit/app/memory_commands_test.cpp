// `cilia jobs run …` (memory_commands.cpp) against a data dir and a scripted
// cheap model on loopback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "testing/upkeep_test_helpers.h"
#include "testing/scripted_model.h"
#include "testing/temp_dir.h"
#include "app/commands.h"
#include "memory/registry.h"
#include "store/digest_repo.h"
#include "store/job_run_repo.h"

namespace cilia::app {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class JobsCommandTest : public ::testing::Test {
 protected:
  JobsCommandTest()
      : model_([](const json& r) -> std::string {
          if (testing::ScriptedModel::Instructions(r).find("day's log") != std::string::npos) {
            return R"({"title": "t", "entries": [{"text": "我们聊了搬家", "messages": [1]}]})";
          }
          return R"({"digest": "搬家的事"})";
        }) {
    Config config = model_.MakeConfig();
    std::ofstream(config_file_) << "[server]\ndata_dir = \"" << dir_.Sub("data") << "\"\ntime_zone = \"Asia/Shanghai\"\n"
                                << "[[providers]]\nname = \"fake\"\nbase_url = \"" << config.providers[0].base_url
                                << "\"\n[models]\nchat = \"fake/cheap\"\n";
  }

  // A message at noon of yesterday (the owner's), stored through a registry
  // that is closed again before the command runs.
  void StoreYesterday() {
    Config config;
    config.server.data_dir = dir_.Sub("data");
    auto registry = memory::Registry::Open(config);
    ASSERT_TRUE(registry.ok()) << registry.status().ToString();
    auto ns = (*registry)->Get("default");
    const std::string yesterday = AddDays((*ns)->tz().LocalDate(Clock::System().Now()), -1).ToString();
    testing::Store(**ns, "chat", {{"D1:1", "user", "下个月搬家", testing::LocalTime(**ns, yesterday, 12)}});
    yesterday_ = yesterday;
  }

  int Run(const std::string& job, std::string* out) {
    ::testing::internal::CaptureStdout();
    int code = RunJobs(CommandLine{"jobs", {"run", job}, {{"config", config_file_}}});
    *out = ::testing::internal::GetCapturedStdout();
    return code;
  }

  testing::TempDir dir_;
  std::string config_file_ = dir_.Sub("cilia.toml");
  testing::ScriptedModel model_;
  std::string yesterday_;
};

TEST_F(JobsCommandTest, NightlyRunsInTheForegroundPrintsItsOutcomeAndIsRecorded) {
  StoreYesterday();
  std::string out;
  ASSERT_EQ(Run("nightly", &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("nightly: ok, 2 items"));
  EXPECT_THAT(out, HasSubstr(yesterday_));

  Config config;
  config.server.data_dir = dir_.Sub("data");
  auto registry = memory::Registry::Open(config);
  auto ns = (*registry)->Get("default");
  auto runs = (*ns)->store().Read([](store::Database& db) { return store::JobRunRepo(db).List("nightly", std::nullopt, 5); });
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].started_by, "manual");
  auto log = (*ns)->store().Read([&](store::Database& db) { return store::DigestRepo(db).GetLog(yesterday_); });
  ASSERT_TRUE(log->has_value());
  EXPECT_EQ((*log)->entries[0].sources[0].second, "D1:1");
}

TEST_F(JobsCommandTest, ReindexStillWorksAndUnknownJobsAreUsageErrors) {
  std::string out;
  EXPECT_EQ(Run("reindex", &out), kExitOk);
  EXPECT_THAT(out, HasSubstr("reindex: ok"));
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(Run("dream", &out), kExitUsage);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("usage: cilia jobs run"));
}

TEST(FormatResultsTest, DateTitleAndScoreThenTheTextWithoutIds) {
  json reply = {{"results",
                 {{{"id", "w_12"},
                   {"conversation_id", "run-club"},
                   {"message_ids", {"1", "2"}},
                   {"created_at", "2026-05-01T23:38:00+08:00"},
                   {"score", 0.8312},
                   {"text", "[2026-05-01 · 跑步]\n阿杰: 报上了！6月14号那个天府锦江半马"}},
                  {{"id", "x_3"},
                   {"conversation_id", "trip"},
                   {"message_ids", {"a1"}},
                   {"layer", "excerpt"},
                   {"created_at", "2026-05-08T10:00:00+08:00"},
                   {"score", 0.5},
                   {"text", "Mina plans a trip"}}}}};
  EXPECT_EQ(FormatResults(reply),
            "2026-05-01 · 跑步 · 0.831\n阿杰: 报上了！6月14号那个天府锦江半马\n"
            "\n"
            "2026-05-08 · trip · 0.500\nMina plans a trip\n");
  EXPECT_EQ(FormatResults(json{{"results", json::array()}}), "no results\n");
}

TEST(FormatJobRunTest, OutcomeItemsErrorAndDetail) {
  json run = {
      {"job", "nightly"}, {"outcome", "failed"}, {"items", 2}, {"error", "upstream 502"}, {"detail", {{"days", 1}}}};
  EXPECT_EQ(FormatJobRun(run), "nightly: failed, 2 items — upstream 502\n{\n  \"days\": 1\n}\n");
}

TEST(FormatExtractionEstimateTest, SaysWhatExtractionCostsAndHowImportedHistoryIsAskedFor) {
  json waiting = {{"messages", 20000}, {"batches", 715}, {"estimated_prompt_tokens", 2310000}, {"automatic", false},
                  {"waiting_messages", 20000}, {"waiting_batches", 715}, {"daily_token_budget", 500000},
                  {"max_batches_per_run", 20}, {"days_at_budget", 5}};
  EXPECT_EQ(FormatExtractionEstimate(waiting),
            "extraction: 715 batches, about 2310000 prompt tokens (estimated), for 20000 messages not extracted yet\n"
            "  715 of the batches are imported history, which is extracted only when asked: `cilia jobs run extract "
            "--backfill` (or backfill = true under [extraction]); then at most 20 batches a run, daily_token_budget "
            "500000: about 5 days\n");
  json automatic = waiting;
  automatic["automatic"] = true;
  automatic["daily_token_budget"] = 0;
  automatic["days_at_budget"] = nullptr;
  EXPECT_THAT(FormatExtractionEstimate(automatic),
              ::testing::HasSubstr("  the extract job takes them in its next runs (at most 20 batches a run)\n"));
  EXPECT_EQ(FormatExtractionEstimate({{"batches", 0}}), "extraction: nothing new to extract\n");
  EXPECT_EQ(FormatExtractionEstimate(json()), "") << "a reply without one (an older server)";
}

}  // namespace
}  // namespace cilia::app
