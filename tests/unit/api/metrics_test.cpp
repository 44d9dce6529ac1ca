#include "api/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace cilia::api {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, ACounterCountsAndRenders) {
  Metrics metrics;
  metrics.Counter("cilia_ingest_messages_total").Add(3);
  metrics.Counter("cilia_ingest_messages_total").Add();
  EXPECT_EQ(metrics.Counter("cilia_ingest_messages_total").Value(), 4u);
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_ingest_messages_total counter\ncilia_ingest_messages_total 4\n"));
}

TEST(MetricsTest, LabelsMakeSeparateSeries) {
  Metrics metrics;
  metrics.Counter("cilia_upstream_requests_total", {{"provider", "main"}}).Add(2);
  metrics.Counter("cilia_upstream_requests_total", {{"provider", "claude"}}).Add(5);
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("cilia_upstream_requests_total{provider=\"main\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_upstream_requests_total{provider=\"claude\"} 5\n"));
  EXPECT_EQ(text.find("# TYPE cilia_upstream_requests_total"), text.rfind("# TYPE cilia_upstream_requests_total"));
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Metrics metrics;
  metrics.Gauge("cilia_windows", {{"namespace", "a\"b\\c\nd 数据"}}).Set(1);
  EXPECT_THAT(metrics.RenderPrometheus(), HasSubstr("cilia_windows{namespace=\"a\\\"b\\\\c\\nd 数据\"} 1\n"));
}

TEST(MetricsTest, AGaugeGoesUpAndDown) {
  Metrics metrics;
  Gauge& open = metrics.Gauge("cilia_open_streams");
  open.Add(3);
  open.Add(-1);
  EXPECT_DOUBLE_EQ(open.Value(), 2);
  metrics.Gauge("cilia_cache_hit_ratio").Set(0.25);
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_open_streams gauge\ncilia_open_streams 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_cache_hit_ratio 0.25\n"));
}

TEST(MetricsTest, ANonFiniteGaugeRendersAsPrometheusSpellsIt) {
  Metrics metrics;
  metrics.Gauge("g_inf").Set(std::numeric_limits<double>::infinity());
  metrics.Gauge("g_nan").Set(std::numeric_limits<double>::quiet_NaN());
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("g_inf +Inf\n"));
  EXPECT_THAT(text, HasSubstr("g_nan NaN\n"));
}

TEST(HistogramTest, BucketsAreCumulative) {
  Histogram histogram({0.1, 1, 10});
  for (double v : {0.05, 0.1, 0.5, 2.0, 50.0}) histogram.Observe(v);
  EXPECT_THAT(histogram.CumulativeCounts(), ElementsAre(2u, 3u, 4u, 5u));
  EXPECT_DOUBLE_EQ(histogram.Sum(), 52.65);
}

TEST(MetricsTest, AHistogramRendersBucketsSumAndCount) {
  Metrics metrics;
  Histogram& latency = metrics.Histogram("cilia_recall_seconds", {{"layer", "archive"}}, {0.01, 0.1});
  latency.Observe(0.005);
  latency.Observe(0.05);
  latency.Observe(3);
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_recall_seconds histogram\n"
                              "cilia_recall_seconds_bucket{layer=\"archive\",le=\"0.01\"} 1\n"
                              "cilia_recall_seconds_bucket{layer=\"archive\",le=\"0.1\"} 2\n"
                              "cilia_recall_seconds_bucket{layer=\"archive\",le=\"+Inf\"} 3\n"
                              "cilia_recall_seconds_sum{layer=\"archive\"} 3.055\n"
                              "cilia_recall_seconds_count{layer=\"archive\"} 3\n"));
}

TEST(MetricsTest, RequestsAreCountedAndTimedByRoute) {
  Metrics metrics;
  metrics.ObserveRequest("POST", "/v1/recall", 200, 0.002);
  metrics.ObserveRequest("POST", "/v1/recall", 200, 0.004);
  metrics.ObserveRequest("POST", "/v1/recall", 400, 0.001);
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("# HELP cilia_http_requests_total "));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"POST\",route=\"/v1/recall\",status=\"200\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_requests_total{method=\"POST\",route=\"/v1/recall\",status=\"400\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_request_duration_seconds_count{method=\"POST\",route=\"/v1/recall\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("cilia_http_request_duration_seconds_bucket{method=\"POST\",route=\"/v1/recall\","
                              "le=\"0.005\"} 3\n"));
}

TEST(MetricsTest, DescribeAddsAHelpLine) {
  Metrics metrics;
  metrics.Describe("cilia_jobs_failed_total", "Job runs that ended in an error.");
  metrics.Counter("cilia_jobs_failed_total");
  EXPECT_THAT(metrics.RenderPrometheus(), HasSubstr("# HELP cilia_jobs_failed_total Job runs that ended in an error.\n"
                                                    "# TYPE cilia_jobs_failed_total counter\n"
                                                    "cilia_jobs_failed_total 0\n"));
}

TEST(MetricsTest, NamesAPrometheusCannotHoldAreMended) {
  Metrics metrics;
  metrics.Counter("cilia.bad-name 数").Add();
  metrics.Counter("9lives").Add();
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("\ncilia_bad_name_"));
  EXPECT_THAT(text, HasSubstr("\n_lives 1\n"));
}

TEST(MetricsTest, ANameUsedForAnotherKindIsNotRenderedTwice) {
  Metrics metrics;
  metrics.Counter("cilia_things").Add(2);
  metrics.Gauge("cilia_things").Set(99);  // a programming error: dropped
  std::string text = metrics.RenderPrometheus();
  EXPECT_THAT(text, HasSubstr("# TYPE cilia_things counter\ncilia_things 2\n"));
  EXPECT_THAT(text, Not(HasSubstr("cilia_things 99")));
  EXPECT_THAT(text, Not(HasSubstr("# TYPE cilia_things gauge")));
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Metrics metrics;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&metrics, t] {
      for (int i = 0; i < 10000; ++i) {
        metrics.Counter("cilia_total").Add();
        metrics.Counter("cilia_by_thread", {{"thread", std::to_string(t % 2)}}).Add();
        metrics.ObserveRequest("GET", "/x", 200, 0.001);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(metrics.Counter("cilia_total").Value(), 80000u);
  EXPECT_EQ(metrics.Counter("cilia_by_thread", {{"thread", "0"}}).Value(), 40000u);
  EXPECT_THAT(metrics.RenderPrometheus(),
              HasSubstr("cilia_http_request_duration_seconds_count{method=\"GET\",route=\"/x\"} 80000\n"));
}

TEST(MetricsTest, AFreshRegistryRendersTheRequestFamiliesWithoutSeries) {
  Metrics metrics;
  EXPECT_EQ(metrics.RenderPrometheus(),
            "# HELP cilia_http_request_duration_seconds Time from routing a request to the last byte of its answer, "
            "by method and route.\n"
            "# TYPE cilia_http_request_duration_seconds histogram\n"
            "# HELP cilia_http_requests_total HTTP requests answered, by method, route and status.\n"
            "# TYPE cilia_http_requests_total counter\n");
}

}  // namespace
}  // namespace cilia::api
