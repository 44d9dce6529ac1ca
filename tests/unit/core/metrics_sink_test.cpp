#include "core/metrics_sink.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cilia {
namespace {

class RecordingSink : public MetricsSink {
 public:
  void RecordTurn(const TurnSample& turn) override { seen.push_back("turn " + std::string(turn.model)); }
  void RecordExtractionCall(const ExtractionCallSample& call) override {
    seen.push_back("extraction " + std::string(call.model) + (call.ok ? " ok" : " failed"));
  }
  void RecordJobRun(std::string_view job, std::string_view outcome) override {
    seen.push_back("job " + std::string(job) + " " + std::string(outcome));
  }
  std::vector<std::string> seen;
};

TEST(MetricsSinkTest, ReportsReachTheInstalledSinkAndNothingOnceItIsRemoved) {
  RecordingSink sink;
  ReportJobRun("extract", "ok");  // none installed: goes nowhere
  SetMetricsSink(&sink);
  ReportTurn({"main/chat"});
  ReportExtractionCall({"main/cheap", false, 0, 0});
  ReportJobRun("nightly", "failed");
  SetMetricsSink(nullptr);
  ReportTurn({"main/chat"});
  EXPECT_EQ(sink.seen,
            (std::vector<std::string>{"turn main/chat", "extraction main/cheap failed", "job nightly failed"}));
}

}  // namespace
}  // namespace cilia
