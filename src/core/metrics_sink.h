// Where the gateway, extraction and the job runner report what /metrics
// counts. The layers below api/ may not depend on it, so they report here and
// `cilia serve` installs api/metrics' implementation for as long as its
// metrics live. None installed (tests, the CLI): reports go nowhere.
#pragma once

#include <cstdint>
#include <string_view>

namespace cilia {

// One chat turn as its record has it. `model` is the routed upstream model
// ("<provider>/<id>", from the config), never a client's string.
struct TurnSample {
  std::string_view model;
  int http_status = 200;
  int64_t input_tokens = 0, output_tokens = 0, cache_read_tokens = 0, cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t first_byte_ms = -1;  // -1: nothing reached the client
  int64_t total_ms = 0;
  int recall_rounds = 0;
};

// One call of extraction's model (`model` as above).
struct ExtractionCallSample {
  std::string_view model;
  bool ok = true;
  int64_t input_tokens = 0, output_tokens = 0;
};

class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  virtual void RecordTurn(const TurnSample& turn) = 0;
  virtual void RecordExtractionCall(const ExtractionCallSample& call) = 0;
  // `outcome` is ok, skipped or failed.
  virtual void RecordJobRun(std::string_view job, std::string_view outcome) = 0;
};

// Installs `sink` for the whole process (nullptr: none). The caller keeps it
// alive until it installs nullptr; a report in flight finishes first.
void SetMetricsSink(MetricsSink* sink);

void ReportTurn(const TurnSample& turn);
void ReportExtractionCall(const ExtractionCallSample& call);
void ReportJobRun(std::string_view job, std::string_view outcome);

}  // namespace cilia
