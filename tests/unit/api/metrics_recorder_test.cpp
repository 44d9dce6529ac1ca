#include "api/metrics_recorder.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace cilia::api {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Config TwoModels() {
  Config config;
  config.models.chat = "main/chat-model";
  config.models.extract = "main/cheap-model";
  config.models.aliases = {{"gpt-4o", "other-provider/big"}};
  return config;
}

class MetricsRecorderTest : public ::testing::Test {
 protected:
  Metrics metrics_;
  MetricsRecorder recorder_{metrics_, TwoModels()};
  std::string Scrape() const { return metrics_.RenderPrometheus(); }
};

TEST_F(MetricsRecorderTest, BeforeAnythingEveryFamilyAndKnownSeriesIsThereAtZero) {
  const std::string text = Scrape();
  for (const char* family :
       {"cilia_turns_total counter", "cilia_turn_first_byte_seconds histogram", "cilia_turn_duration_seconds histogram",
        "cilia_tokens_total counter", "cilia_recall_rounds histogram", "cilia_extraction_calls_total counter",
        "cilia_extraction_tokens_total counter", "cilia_job_runs_total counter", "cilia_ingest_messages_total counter",
        "cilia_windows gauge", "cilia_disk_faults_total counter", "cilia_http_requests_total counter",
        "cilia_http_request_duration_seconds histogram"}) {
    EXPECT_THAT(text, HasSubstr(std::string("# TYPE ") + family + "\n")) << family;
  }
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"cache_write\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"other-provider/big\",kind=\"input\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("cilia_extraction_calls_total{model=\"main/cheap-model\",outcome=\"failed\"} 0\n"));
  for (const char* job : {"extract", "nightly", "retention", "reindex"}) {
    for (const char* outcome : {"ok", "partial", "skipped", "failed"}) {
      EXPECT_THAT(text, HasSubstr(fmt::format("cilia_job_runs_total{{job=\"{}\",outcome=\"{}\"}} 0\n", job, outcome)));
    }
  }
  EXPECT_THAT(text, HasSubstr("cilia_disk_faults_total{kind=\"busy\"} 0\n"));
}

TEST_F(MetricsRecorderTest, AReportedTurnCountsItsTokensLatencyAndRecallRounds) {
  ReportTurn({"main/chat-model", 200, 1200, 80, 1000, 150, 30, 450, 2300, 2});
  ReportTurn({"main/chat-model", 502, 0, 0, 0, 0, 0, -1, 5000, 0});
  const std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("cilia_turns_total{model=\"main/chat-model\",status=\"200\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_turns_total{model=\"main/chat-model\",status=\"502\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"input\"} 1200\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"output\"} 80\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"cache_read\"} 1000\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"cache_write\"} 150\n"));
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"main/chat-model\",kind=\"reasoning\"} 30\n"));
  // The failed turn reached no client: only the first one has a first byte.
  EXPECT_THAT(text, HasSubstr("cilia_turn_first_byte_seconds_count{model=\"main/chat-model\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_turn_first_byte_seconds_sum{model=\"main/chat-model\"} 0.45\n"));
  EXPECT_THAT(text, HasSubstr("cilia_turn_duration_seconds_count{model=\"main/chat-model\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_turn_duration_seconds_sum{model=\"main/chat-model\"} 7.3\n"));
  EXPECT_THAT(text, HasSubstr("cilia_recall_rounds_bucket{le=\"0\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_recall_rounds_bucket{le=\"2\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_recall_rounds_sum 2\n"));
}

TEST_F(MetricsRecorderTest, AModelTheConfigDoesNotNameCountsAsOther) {
  ReportTurn({"main/whatever-a-client-sent", 200, 10, 5, 0, 0, 0, 100, 200, 0});
  const std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("cilia_tokens_total{model=\"other\",kind=\"input\"} 10\n"));
  EXPECT_THAT(text, Not(HasSubstr("whatever-a-client-sent")));
}

TEST_F(MetricsRecorderTest, ExtractionCallsAndJobRunsAreCounted) {
  ReportExtractionCall({"main/cheap-model", true, 3000, 400});
  ReportExtractionCall({"main/cheap-model", true, 1000, 100});
  ReportExtractionCall({"main/cheap-model", false, 0, 0});
  ReportJobRun("extract", "failed");
  ReportJobRun("nightly", "ok");
  ReportJobRun("nightly", "ok");
  const std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("cilia_extraction_calls_total{model=\"main/cheap-model\",outcome=\"ok\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_extraction_calls_total{model=\"main/cheap-model\",outcome=\"failed\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_extraction_tokens_total{model=\"main/cheap-model\",kind=\"input\"} 4000\n"));
  EXPECT_THAT(text, HasSubstr("cilia_extraction_tokens_total{model=\"main/cheap-model\",kind=\"output\"} 500\n"));
  EXPECT_THAT(text, HasSubstr("cilia_job_runs_total{job=\"extract\",outcome=\"failed\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_job_runs_total{job=\"nightly\",outcome=\"ok\"} 2\n"));
}

TEST(MetricsRecorderLifetime, OnceDestroyedReportsGoNowhere) {
  Metrics metrics;
  { MetricsRecorder recorder(metrics, TwoModels()); }
  ReportJobRun("extract", "ok");
  EXPECT_THAT(metrics.RenderPrometheus(), HasSubstr("cilia_job_runs_total{job=\"extract\",outcome=\"ok\"} 0\n"));
}

}  // namespace
}  // namespace cilia::api
