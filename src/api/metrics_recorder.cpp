#include "api/metrics_recorder.h"

#include <array>

#include "memory/upkeep/jobs.h"

namespace cilia::api {

namespace {

constexpr std::string_view kOther = "other";
constexpr std::array<std::string_view, 5> kTokenKinds = {"input", "output", "cache_read", "cache_write", "reasoning"};
constexpr std::array<std::string_view, 4> kJobOutcomes = {"ok", "partial", "skipped", "failed"};
constexpr std::array<std::string_view, 3> kDiskFaultKinds = {"disk_full", "io_error", "busy"};

std::vector<double> RecallRoundBuckets() { return {0, 1, 2, 3, 5, 8}; }

double Seconds(int64_t ms) { return static_cast<double>(ms) / 1000.0; }

Labels ModelKind(const std::string& model, std::string_view kind) {
  return {{"model", model}, {"kind", std::string(kind)}};
}

}  // namespace

MetricsRecorder::MetricsRecorder(Metrics& metrics, const Config& config) : metrics_(metrics) {
  for (const std::string* model :
       {&config.models.chat, &config.models.extract, &config.models.vision, &config.models.fallback}) {
    if (!model->empty()) models_.insert(*model);
  }
  for (const auto& alias : config.models.aliases) models_.insert(alias.second);
  models_.insert(std::string(kOther));

  metrics_.Describe("cilia_ingest_messages_total", "Messages stored through POST /v1/ingest.");
  metrics_.Describe("cilia_windows", "Windows of the namespace that ingested last.");
  metrics_.Describe("cilia_disk_faults_total", "Disk and database failures wherever they happened, by kind.");
  metrics_.Describe("cilia_turns_total", "Chat turns answered, by upstream model and HTTP status.");
  metrics_.Describe("cilia_turn_first_byte_seconds",
                    "From a turn's arrival to its first byte to the client (memory and recall rounds included), "
                    "by upstream model.");
  metrics_.Describe("cilia_turn_duration_seconds", "From a turn's arrival to its end, by upstream model.");
  metrics_.Describe("cilia_tokens_total",
                    "Tokens of chat turns by upstream model and kind: input (cached included), output, cache_read, "
                    "cache_write, reasoning (part of output).");
  metrics_.Describe("cilia_recall_rounds", "Recall rounds the gateway ran in one turn.");
  metrics_.Describe("cilia_extraction_calls_total",
                    "Calls of the extraction model, by model and outcome (ok, failed).");
  metrics_.Describe("cilia_extraction_tokens_total", "Tokens of extraction calls, by model and kind (input, output).");
  metrics_.Describe("cilia_job_runs_total", "Job runs, by job and outcome (ok, skipped, failed).");

  metrics_.Counter("cilia_ingest_messages_total");
  metrics_.Gauge("cilia_windows");
  for (std::string_view kind : kDiskFaultKinds)
    metrics_.Counter("cilia_disk_faults_total", {{"kind", std::string(kind)}});
  for (const std::string& model : models_) {
    metrics_.Counter("cilia_turns_total", {{"model", model}, {"status", "200"}});
    metrics_.Histogram("cilia_turn_first_byte_seconds", {{"model", model}});
    metrics_.Histogram("cilia_turn_duration_seconds", {{"model", model}});
    for (std::string_view kind : kTokenKinds) metrics_.Counter("cilia_tokens_total", ModelKind(model, kind));
  }
  metrics_.Histogram("cilia_recall_rounds", {}, RecallRoundBuckets());
  const std::string& extract = config.models.extract.empty() ? config.models.chat : config.models.extract;
  for (const std::string& model : {extract, std::string(kOther)}) {
    if (model.empty()) continue;
    for (std::string_view outcome : {"ok", "failed"}) {
      metrics_.Counter("cilia_extraction_calls_total", {{"model", model}, {"outcome", std::string(outcome)}});
    }
    for (std::string_view kind : {"input", "output"})
      metrics_.Counter("cilia_extraction_tokens_total", ModelKind(model, kind));
  }
  for (const memory::JobSpec& job : memory::StandardJobs(config)) {
    for (std::string_view outcome : kJobOutcomes) {
      metrics_.Counter("cilia_job_runs_total", {{"job", job.name}, {"outcome", std::string(outcome)}});
    }
  }
  SetMetricsSink(this);
}

MetricsRecorder::~MetricsRecorder() { SetMetricsSink(nullptr); }

std::string MetricsRecorder::ModelLabel(std::string_view model) const {
  return std::string(models_.count(model) ? model : kOther);
}

void MetricsRecorder::RecordTurn(const TurnSample& turn) {
  const std::string model = ModelLabel(turn.model);
  metrics_.Counter("cilia_turns_total", {{"model", model}, {"status", std::to_string(turn.http_status)}}).Add();
  if (turn.first_byte_ms >= 0) {
    metrics_.Histogram("cilia_turn_first_byte_seconds", {{"model", model}}).Observe(Seconds(turn.first_byte_ms));
  }
  metrics_.Histogram("cilia_turn_duration_seconds", {{"model", model}}).Observe(Seconds(turn.total_ms));
  const std::array<int64_t, kTokenKinds.size()> tokens = {turn.input_tokens, turn.output_tokens, turn.cache_read_tokens,
                                                          turn.cache_write_tokens, turn.reasoning_tokens};
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] > 0) metrics_.Counter("cilia_tokens_total", ModelKind(model, kTokenKinds[i])).Add(tokens[i]);
  }
  metrics_.Histogram("cilia_recall_rounds", {}, RecallRoundBuckets()).Observe(turn.recall_rounds);
}

void MetricsRecorder::RecordExtractionCall(const ExtractionCallSample& call) {
  const std::string model = ModelLabel(call.model);
  metrics_.Counter("cilia_extraction_calls_total", {{"model", model}, {"outcome", call.ok ? "ok" : "failed"}}).Add();
  if (call.input_tokens > 0)
    metrics_.Counter("cilia_extraction_tokens_total", ModelKind(model, "input")).Add(call.input_tokens);
  if (call.output_tokens > 0) {
    metrics_.Counter("cilia_extraction_tokens_total", ModelKind(model, "output")).Add(call.output_tokens);
  }
}

void MetricsRecorder::RecordJobRun(std::string_view job, std::string_view outcome) {
  // Both come from the code (StandardJobs' names, JobResult's outcomes), not from a request.
  metrics_.Counter("cilia_job_runs_total", {{"job", std::string(job)}, {"outcome", std::string(outcome)}}).Add();
}

}  // namespace cilia::api
