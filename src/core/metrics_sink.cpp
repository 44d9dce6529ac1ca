#include "core/metrics_sink.h"

#include <mutex>
#include <shared_mutex>

namespace cilia {

namespace {

// Reports take the shared side, so that they run side by side and
// SetMetricsSink waits for those in flight before the sink may go away.
std::shared_mutex g_sink_mu;
MetricsSink* g_sink = nullptr;

template <typename F>
void WithSink(F report) {
  std::shared_lock lock(g_sink_mu);
  if (g_sink) report(*g_sink);
}

}  // namespace

void SetMetricsSink(MetricsSink* sink) {
  std::unique_lock lock(g_sink_mu);
  g_sink = sink;
}

void ReportTurn(const TurnSample& turn) {
  WithSink([&turn](MetricsSink& sink) { sink.RecordTurn(turn); });
}

void ReportExtractionCall(const ExtractionCallSample& call) {
  WithSink([&call](MetricsSink& sink) { sink.RecordExtractionCall(call); });
}

void ReportJobRun(std::string_view job, std::string_view outcome) {
  WithSink([job, outcome](MetricsSink& sink) { sink.RecordJobRun(job, outcome); });
}

}  // namespace cilia
