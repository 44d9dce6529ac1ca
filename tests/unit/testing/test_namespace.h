// A namespace in a temporary folder with the hash embedder and a fake clock,
// for tests of the memory layer.
#pragma once

#include <memory>

#include "testing/temp_dir.h"
#include "core/clock.h"
#include "embed/hash_embedder.h"
#include "memory/namespace.h"

namespace cilia::testing {

class TestNamespace {
 public:
  explicit TestNamespace(UnixMs now = 1'780'000'000'000 /* 2026-05-28 */, size_t hnsw_threshold = 50000)
      : clock_(now), tz_(*TimeZone::Load("Asia/Shanghai")) {
    Reopen(hnsw_threshold);
  }
  // Opens the namespace again on the same files, as a restart would, with a
  // hash embedder of `dimension` (another dimension is another embedder),
  // and `executor` for the work recall runs beside its own.
  void Reopen(size_t hnsw_threshold = 50000, int dimension = embed::HashEmbedder::kDefaultDimension,
              Executor* executor = nullptr) {
    ns_.reset();
    memory::NamespaceOptions o;
    o.name = "default";
    o.dir = dir_.Sub("ns/default");
    o.hnsw_threshold = hnsw_threshold;
    auto ns = memory::Namespace::Open(o, std::make_shared<embed::HashEmbedder>(dimension), tz_, clock_, executor);
    if (!ns.ok()) throw std::runtime_error(ns.status().ToString());
    ns_ = *ns;
  }
  memory::Namespace& ns() { return *ns_; }
  FakeClock& clock() { return clock_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  FakeClock clock_;
  TimeZone tz_;
  std::shared_ptr<memory::Namespace> ns_;
};

}  // namespace cilia::testing
