// Latency of one vector-lane search (k=10): the exact flat scan against the
// HNSW graph, at 10k and 100k vectors of dimension 256 (the hash embedder),
// unfiltered and with a filter that lets half the ids through; at 100k also
// of dimension 512 and 1024 (bge-small-zh's and bge-m3's, for kind "local");
// plus what building the graph costs, and what loading it from the vector
// cache costs instead (the start-up after a clean shutdown) with the cache's
// size on disk.
//
// Data: random unit vectors (a fixed seed). They are a hard case for HNSW:
// real embeddings cluster, so the graph's recall on them is higher than here,
// and its latency no worse. The measured numbers belong in bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <tuple>
#include <vector>

#include "index/vector_index.h"

namespace {

using cilia::index::VectorIndex;

constexpr size_t kK = 10;

std::vector<float> RandomUnitVectors(size_t n, int dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> out(n * dim);
  for (size_t i = 0; i < n; ++i) {
    float* v = out.data() + i * dim;
    float norm = 0;
    for (int d = 0; d < dim; ++d) {
      v[d] = normal(rng);
      norm += v[d] * v[d];
    }
    for (int d = 0; d < dim; ++d) v[d] /= std::sqrt(norm);
  }
  return out;
}

// Indexes are built once per (size, dimension, kind) and kept for every benchmark.
VectorIndex& IndexOf(size_t n, int dim, bool graph) {
  static std::map<std::tuple<size_t, int, bool>, std::unique_ptr<VectorIndex>> built;
  auto& slot = built[{n, dim, graph}];
  if (!slot) {
    // Threshold 1 makes the first insert a graph; SIZE_MAX keeps it flat.
    slot = std::make_unique<VectorIndex>(dim, graph ? 1 : SIZE_MAX);
    std::vector<int64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int64_t>(i);
    const std::vector<float> vectors = RandomUnitVectors(n, dim, 42);
    if (!slot->UpsertMany(ids, vectors).ok()) std::abort();
  }
  return *slot;
}

void Search(benchmark::State& state, bool graph, bool filtered) {
  const size_t n = static_cast<size_t>(state.range(0));
  const int dim = static_cast<int>(state.range(1));
  VectorIndex& index = IndexOf(n, dim, graph);
  const std::vector<float> queries = RandomUnitVectors(256, dim, 7);
  const std::function<bool(int64_t)> half = [](int64_t id) { return id % 2 == 0; };
  size_t q = 0;
  for (auto _ : state) {
    std::span<const float> query(queries.data() + (q++ % 256) * dim, dim);
    benchmark::DoNotOptimize(index.Search(query, kK, filtered ? half : std::function<bool(int64_t)>()));
  }
  state.SetLabel(graph ? "hnsw" : "flat");
}

void BM_FlatSearch(benchmark::State& state) { Search(state, false, false); }
void BM_GraphSearch(benchmark::State& state) { Search(state, true, false); }
void BM_FlatSearchHalfFiltered(benchmark::State& state) { Search(state, false, true); }
void BM_GraphSearchHalfFiltered(benchmark::State& state) { Search(state, true, true); }

void BM_GraphBuild(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  std::vector<int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int64_t>(i);
  const std::vector<float> vectors = RandomUnitVectors(n, 256, 43);
  for (auto _ : state) {
    VectorIndex index(256, 1);
    if (!index.UpsertMany(ids, vectors).ok()) std::abort();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * n));
}

// Args: vectors, graph (1) or flat (0). Dimension 256.
void BM_CacheLoad(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const bool graph = state.range(1) != 0;
  VectorIndex& index = IndexOf(n, 256, graph);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cilia-vector-bench-" + std::to_string(getpid()) + ".cache")).string();
  if (!index.SaveTo(path).ok()) std::abort();
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path) + (graph ? std::filesystem::file_size(path + ".hnsw") : 0);
  for (auto _ : state) {
    auto loaded = VectorIndex::LoadFrom(path, graph ? 1 : SIZE_MAX);
    if (!loaded.ok() || (*loaded)->size() != n) std::abort();
  }
  std::filesystem::remove(path, ec);
  std::filesystem::remove(path + ".hnsw", ec);
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  state.SetLabel(graph ? "hnsw" : "flat");
}

// Args: vectors, dimension.
BENCHMARK(BM_FlatSearch)->Args({10000, 256})->Args({100000, 256})->Args({100000, 512})->Args({100000, 1024})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GraphSearch)->Args({10000, 256})->Args({100000, 256})->Args({100000, 512})->Args({100000, 1024})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FlatSearchHalfFiltered)->Args({10000, 256})->Args({100000, 256})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GraphSearchHalfFiltered)->Args({10000, 256})->Args({100000, 256})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GraphBuild)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CacheLoad)->Args({100000, 1})->Args({100000, 0})->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
