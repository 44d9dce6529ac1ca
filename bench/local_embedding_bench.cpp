// What `[embedding] kind = "local"` costs on this machine: embeddings per
// second for short (30-token) and passage (200-token) texts, milliseconds per
// recall query (one short text), and the resident memory a loaded model adds.
//
// Models: random weights (tests/unit/testing/tiny_gguf.h) in the shapes of
// bge-small-zh-v1.5 (512 hidden, 12 layers, 8 heads, 2048 ffn, 21128 pieces)
// and bge-m3 (1024 hidden, 24 layers, 16 heads, 4096 ffn, 250002 pieces),
// matrices in f16 as the usual GGUF conversions ship them. Speed depends on the
// shape, not the weights. Written once to $TMPDIR (about 0.1 and 1.1 GB).
// Texts: random vocabulary pieces, one token each. Threads: 2. The measured
// numbers belong in bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "embed/local_embedder.h"
#include "testing/tiny_gguf.h"

namespace {

using cilia::embed::LocalEmbedder;
using cilia::embed::Purpose;

struct Shape {
  const char* name;
  int hidden, layers, heads, ffn, vocab;
};
const Shape kShapes[] = {{"bge-small-zh-shape", 512, 12, 8, 2048, 21128},
                         {"bge-m3-shape", 1024, 24, 16, 4096, 250002}};

double RssMb() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kb = 0;
      status >> kb;
      return kb / 1024;
    }
  }
  return 0;
}

struct Loaded {
  std::unique_ptr<LocalEmbedder> embedder;
  double rss_mb = 0;  // what loading it and one embedding pass added
  double load_ms = 0;
};

Loaded& Model(int shape_index) {
  static std::map<int, Loaded> models;
  auto it = models.find(shape_index);
  if (it != models.end()) return it->second;
  const Shape& s = kShapes[shape_index];
  const std::string path = (std::filesystem::temp_directory_path() / (std::string("cilia-bench-") + s.name + ".gguf")).string();
  cilia::testing::TinyBertSpec spec;
  spec.name = s.name;
  spec.hidden = s.hidden;
  spec.layers = s.layers;
  spec.heads = s.heads;
  spec.ffn = s.ffn;
  spec.context = 512;
  spec.f16 = true;
  spec.vocab_padding = s.vocab - static_cast<int>(cilia::testing::TinyVocabulary(spec.tokenizer).size());
  if (!std::filesystem::exists(path)) cilia::testing::WriteTinyBert(path, spec);
  const double before = RssMb();
  cilia::embed::LocalEmbedderOptions o;
  o.model_path = path;
  o.threads = 2;
  auto e = LocalEmbedder::Create(o);
  if (!e.ok()) {
    fprintf(stderr, "%s\n", e.status().ToString().c_str());
    std::abort();
  }
  Loaded loaded;
  loaded.embedder = std::move(*e);
  loaded.load_ms = loaded.embedder->load_ms();
  (void)loaded.embedder->Embed({"hello world"}, Purpose::kPassage);
  loaded.rss_mb = RssMb() - before;
  return models.emplace(shape_index, std::move(loaded)).first->second;
}

// n texts of tokens pieces each (the model adds [CLS] and [SEP]).
std::vector<std::string> Texts(int n, int tokens, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> piece(0, 20000);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string t;
    for (int k = 0; k < tokens; ++k) t += "filler" + std::to_string(piece(rng)) + " ";
    out.push_back(t);
  }
  return out;
}

void Report(benchmark::State& state, const Loaded& m) {
  state.counters["rss_mb"] = m.rss_mb;
  state.counters["load_ms"] = m.load_ms;
}

// range(0): shape; range(1): tokens a text. 16 texts a call, as the indexer batches them.
void BM_EmbedBatch(benchmark::State& state) {
  Loaded& m = Model(static_cast<int>(state.range(0)));
  const auto texts = Texts(16, static_cast<int>(state.range(1)) - 2, 7);
  for (auto _ : state) benchmark::DoNotOptimize(m.embedder->Embed(texts, Purpose::kPassage));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(texts.size()));
  state.SetLabel(kShapes[state.range(0)].name);
  Report(state, m);
}

// One recall query of 30 tokens: what the vector lane adds to a recall.
void BM_Query(benchmark::State& state) {
  Loaded& m = Model(static_cast<int>(state.range(0)));
  const auto texts = Texts(1, 28, 11);
  for (auto _ : state) benchmark::DoNotOptimize(m.embedder->Embed(texts, Purpose::kQuery));
  state.SetLabel(kShapes[state.range(0)].name);
  Report(state, m);
}

BENCHMARK(BM_EmbedBatch)->Args({0, 30})->Args({0, 200})->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);
BENCHMARK(BM_EmbedBatch)->Args({1, 30})->Args({1, 200})->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);
BENCHMARK(BM_Query)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);
BENCHMARK(BM_Query)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(3);

}  // namespace

BENCHMARK_MAIN();
