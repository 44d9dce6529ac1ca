// Counters, gauges and histograms, rendered as Prometheus text for
// GET /metrics. The server counts every request here
// (cilia_http_requests_total{method,route,status},
// cilia_http_request_duration_seconds{method,route}); any route can add its own:
//   server.metrics().Counter("cilia_ingest_messages_total").Add(n);
//   server.metrics().Gauge("cilia_windows", {{"namespace", ns}}).Set(count);
// Everything is thread-safe. Updating a metric is one atomic operation; the
// lookup by name takes a shared lock, so hot paths may keep the reference
// (it lives as long as the Metrics).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cilia::api {

// Label name and value pairs, rendered in the order given.
using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

class Gauge {
 public:
  void Set(double value) { value_.store(value, std::memory_order_relaxed); }
  void Add(double delta) { value_.fetch_add(delta, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  // Upper bounds of the buckets, ascending; +Inf is implied.
  explicit Histogram(std::vector<double> bounds);
  void Observe(double value);

  const std::vector<double>& bounds() const { return bounds_; }
  // Observations <= bounds()[i], for each i, then the total count.
  std::vector<uint64_t> CumulativeCounts() const;
  double Sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // one per bound, plus one past the last
  std::atomic<double> sum_{0};
};

// Seconds, from a fast local call to a long stream.
std::vector<double> DefaultLatencyBuckets();

class Metrics {
 public:
  Metrics();

  // The series of that name and labels, created on first use. A name already
  // used for another kind of metric is a programming error: it is logged and
  // the update goes nowhere. Characters a Prometheus name cannot hold become '_'.
  api::Counter& Counter(std::string_view name, const Labels& labels = {});
  api::Gauge& Gauge(std::string_view name, const Labels& labels = {});
  api::Histogram& Histogram(std::string_view name, const Labels& labels = {},
                            const std::vector<double>& bounds = DefaultLatencyBuckets());

  // The # HELP line of a metric.
  void Describe(std::string_view name, std::string_view help);

  // One HTTP request, as the server records it.
  void ObserveRequest(std::string_view method, std::string_view route, int status, double seconds);

  // The Prometheus text exposition format, families sorted by name.
  std::string RenderPrometheus() const;

 private:
  enum class Kind { kCounter, kGauge, kHistogram };
  using Series = std::variant<std::unique_ptr<api::Counter>, std::unique_ptr<api::Gauge>,
                              std::unique_ptr<api::Histogram>>;
  struct Family {
    Kind kind;
    std::map<std::string, Series> series;  // by rendered label set
  };

  static const char* KindName(Kind kind);
  template <typename M, typename Make>
  M& Find(Kind kind, std::string_view name, const Labels& labels, Make make);

  mutable std::shared_mutex mu_;
  std::map<std::string, Family, std::less<>> families_;
  std::map<std::string, std::string, std::less<>> help_;
};

}  // namespace cilia::api
