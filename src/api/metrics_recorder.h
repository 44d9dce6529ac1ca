// The MetricsSink of `cilia serve` (core/metrics_sink.h): turns, extraction
// calls and job runs, counted into the server's Metrics. It declares every
// metric docs/api.md lists, with a zero series for each label set the config
// makes known (its models, the standard jobs and their outcomes), and is the
// process's sink from construction to destruction.
//
// Labels stay bounded: a model the config does not name (a client may route
// to "<provider>/<any id>") counts as "other".
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "api/metrics.h"
#include "core/config.h"
#include "core/metrics_sink.h"

namespace cilia::api {

class MetricsRecorder : public MetricsSink {
 public:
  MetricsRecorder(Metrics& metrics, const Config& config);
  ~MetricsRecorder() override;
  MetricsRecorder(const MetricsRecorder&) = delete;
  MetricsRecorder& operator=(const MetricsRecorder&) = delete;

  void RecordTurn(const TurnSample& turn) override;
  void RecordExtractionCall(const ExtractionCallSample& call) override;
  void RecordJobRun(std::string_view job, std::string_view outcome) override;

  // The label for `model`: itself when the config names it, else "other".
  std::string ModelLabel(std::string_view model) const;

 private:
  Metrics& metrics_;
  std::set<std::string, std::less<>> models_;
};

}  // namespace cilia::api
