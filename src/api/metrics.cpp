#include "api/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/log.h"

namespace cilia::api {

namespace {

bool IsNameChar(char c, bool first) {
  bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  return letter || (!first && c >= '0' && c <= '9');
}

std::string SanitizeName(std::string_view name) {
  std::string out(name.empty() ? "_" : name);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!IsNameChar(out[i], i == 0)) out[i] = '_';
  }
  return out;
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out;
}

// `name="value",…` — the inside of the braces.
std::string RenderLabels(const Labels& labels) {
  std::string out;
  for (const auto& [name, value] : labels) {
    if (!out.empty()) out.push_back(',');
    out += fmt::format("{}=\"{}\"", SanitizeName(name), EscapeLabelValue(value));
  }
  return out;
}

std::string SeriesName(std::string_view name, std::string_view labels) {
  return labels.empty() ? std::string(name) : fmt::format("{}{{{}}}", name, labels);
}

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  std::sort(bounds_.begin(), bounds_.end());
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double value) {
  size_t bucket = std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin();
  buckets_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::vector<uint64_t> Histogram::CumulativeCounts() const {
  std::vector<uint64_t> counts(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    counts[i] = running;
  }
  return counts;
}

std::vector<double> DefaultLatencyBuckets() {
  return {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};
}

const char* Metrics::KindName(Kind kind) {
  switch (kind) {
    case Kind::kCounter: return "counter";
    case Kind::kGauge: return "gauge";
    case Kind::kHistogram: return "histogram";
  }
  return "untyped";
}

Metrics::Metrics() {
  Describe("cilia_http_requests_total", "HTTP requests answered, by method, route and status.");
  Describe("cilia_http_request_duration_seconds",
           "Time from routing a request to the last byte of its answer, by method and route.");
  // Rendered (HELP and TYPE) before the first request is: a scrape finds them from the start.
  families_.try_emplace("cilia_http_requests_total", Family{Kind::kCounter, {}});
  families_.try_emplace("cilia_http_request_duration_seconds", Family{Kind::kHistogram, {}});
}

template <typename M, typename Make>
M& Metrics::Find(Kind kind, std::string_view raw_name, const Labels& labels, Make make) {
  std::string name = SanitizeName(raw_name);
  std::string label_key = RenderLabels(labels);
  {
    std::shared_lock lock(mu_);
    auto family = families_.find(name);
    if (family != families_.end() && family->second.kind == kind) {
      auto series = family->second.series.find(label_key);
      if (series != family->second.series.end()) return *std::get<std::unique_ptr<M>>(series->second);
    }
  }
  std::unique_lock lock(mu_);
  Family& family = families_.try_emplace(name, Family{kind, {}}).first->second;
  if (family.kind != kind) {
    LogError("metric {} is a {}, not a {}; this update is dropped", name, KindName(family.kind),
             KindName(kind));
    static M* const discarded = make().release();
    return *discarded;
  }
  Series& series = family.series[label_key];
  if (!std::holds_alternative<std::unique_ptr<M>>(series) || !std::get<std::unique_ptr<M>>(series)) {
    series = make();
  }
  return *std::get<std::unique_ptr<M>>(series);
}

api::Counter& Metrics::Counter(std::string_view name, const Labels& labels) {
  return Find<api::Counter>(Kind::kCounter, name, labels, [] { return std::make_unique<api::Counter>(); });
}

api::Gauge& Metrics::Gauge(std::string_view name, const Labels& labels) {
  return Find<api::Gauge>(Kind::kGauge, name, labels, [] { return std::make_unique<api::Gauge>(); });
}

api::Histogram& Metrics::Histogram(std::string_view name, const Labels& labels, const std::vector<double>& bounds) {
  return Find<api::Histogram>(Kind::kHistogram, name, labels,
                              [&bounds] { return std::make_unique<api::Histogram>(bounds); });
}

void Metrics::Describe(std::string_view name, std::string_view help) {
  std::unique_lock lock(mu_);
  help_[SanitizeName(name)] = std::string(help);
}

void Metrics::ObserveRequest(std::string_view method, std::string_view route, int status, double seconds) {
  Counter("cilia_http_requests_total",
          {{"method", std::string(method)}, {"route", std::string(route)}, {"status", std::to_string(status)}})
      .Add();
  Histogram("cilia_http_request_duration_seconds", {{"method", std::string(method)}, {"route", std::string(route)}})
      .Observe(seconds);
}

std::string Metrics::RenderPrometheus() const {
  std::shared_lock lock(mu_);
  std::string out;
  for (const auto& [name, family] : families_) {
    if (auto help = help_.find(name); help != help_.end()) out += fmt::format("# HELP {} {}\n", name, help->second);
    out += fmt::format("# TYPE {} {}\n", name, KindName(family.kind));
    for (const auto& [labels, series] : family.series) {
      if (auto* counter = std::get_if<std::unique_ptr<api::Counter>>(&series)) {
        out += fmt::format("{} {}\n", SeriesName(name, labels), (*counter)->Value());
      } else if (auto* gauge = std::get_if<std::unique_ptr<api::Gauge>>(&series)) {
        out += fmt::format("{} {}\n", SeriesName(name, labels), FormatValue((*gauge)->Value()));
      } else {
        const api::Histogram& histogram = *std::get<std::unique_ptr<api::Histogram>>(series);
        std::vector<uint64_t> counts = histogram.CumulativeCounts();
        std::string prefix = labels.empty() ? "" : labels + ",";
        for (size_t i = 0; i < counts.size(); ++i) {
          std::string le = i < histogram.bounds().size() ? FormatValue(histogram.bounds()[i]) : "+Inf";
          out += fmt::format("{}_bucket{{{}le=\"{}\"}} {}\n", name, prefix, le, counts[i]);
        }
        out += fmt::format("{} {}\n", SeriesName(name + "_sum", labels), FormatValue(histogram.Sum()));
        out += fmt::format("{} {}\n", SeriesName(name + "_count", labels), counts.back());
      }
    }
  }
  return out;
}

}  // namespace cilia::api
