// recall@10 of int8 vectors with a per-vector scale, and of float16, against
// float32 (issue 16): before storing vectors in a compact form, how much of
// the exact top 10 would survive.
//
// For each vector v, scale = max|v_i| / 127 and q_i = round(v_i / scale); the
// similarity of a float query x is scale * Σ x_i q_i (asymmetric: the query
// stays float), or with the query quantised the same way (symmetric, as an
// HNSW graph over int8 storage would compare two stored vectors). float16 is
// measured the same two ways. Exact scans
// both: this measures the quantisation alone, not the graph.
//
// Data: the hash embedder's vectors (256 and 1024 dimensions) of the messages
// of the bench corpora (zh-dev, the three LoCoMo conversations), each message
// in turn (every n-th, about 1,000) a query against all the others; and random unit vectors (20,000,
// 300 queries). Prints one line a set; the numbers belong in bench/RESULTS.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "bench_data.h"
#include "embed/hash_embedder.h"

namespace {

namespace fs = std::filesystem;
constexpr size_t kK = 10;

using cilia::bench::BenchDataDir;
using cilia::bench::ReadJson;

std::vector<std::string> CorpusMessages() {
  std::vector<std::string> out;
  const nlohmann::json zh = ReadJson(BenchDataDir() / "zh-dev" / "zh-dev.json");
  if (zh.is_object()) {
    for (const auto& conversation : zh["conversations"]) {
      for (const auto& message : conversation["messages"]) out.push_back(message.value("content", ""));
    }
  }
  for (const char* name : {"26.json", "30.json", "41.json"}) {
    const nlohmann::json data = ReadJson(BenchDataDir() / "locomo-dev" / name);
    if (!data.is_object()) continue;
    for (const auto& [key, value] : data.items()) {
      if (key.rfind("session_", 0) != 0 || !value.is_array()) continue;
      for (const auto& turn : value) out.push_back(turn.value("text", ""));
    }
  }
  return out;
}

struct Set {
  size_t dim;
  std::vector<float> vectors;  // n * dim
  size_t size() const { return vectors.size() / dim; }
  const float* at(size_t i) const { return vectors.data() + i * dim; }
};

Set Embedded(const std::vector<std::string>& texts, int dim) {
  cilia::embed::HashEmbedder embedder(dim);
  Set s{static_cast<size_t>(dim), {}};
  for (const std::string& t : texts) {
    std::vector<float> v = embedder.EmbedOne(t);
    s.vectors.insert(s.vectors.end(), v.begin(), v.end());
  }
  return s;
}

Set RandomUnit(size_t n, size_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Set s{dim, std::vector<float>(n * dim)};
  for (size_t i = 0; i < n; ++i) {
    float* v = s.vectors.data() + i * dim;
    double norm = 0;
    for (size_t d = 0; d < dim; ++d) {
      v[d] = normal(rng);
      norm += v[d] * v[d];
    }
    for (size_t d = 0; d < dim; ++d) v[d] = static_cast<float>(v[d] / std::sqrt(norm));
  }
  return s;
}

// The int8 form, dequantised (q_i * scale): the scores are the same as the
// integer dot times the scales, up to float rounding.
std::vector<float> Int8(const float* v, size_t dim) {
  float max_abs = 0;
  for (size_t d = 0; d < dim; ++d) max_abs = std::max(max_abs, std::fabs(v[d]));
  std::vector<float> out(dim, 0.0f);
  if (max_abs == 0) return out;  // the zero vector stays zero
  const float scale = max_abs / 127.0f;
  for (size_t d = 0; d < dim; ++d) out[d] = static_cast<float>(std::lround(v[d] / scale)) * scale;
  return out;
}

// The float16 form (IEEE half, round to nearest), read back as float.
std::vector<float> Float16(const float* v, size_t dim) {
  std::vector<float> out(dim);
  for (size_t d = 0; d < dim; ++d) out[d] = static_cast<float>(static_cast<_Float16>(v[d]));
  return out;
}

using Form = std::vector<float> (*)(const float*, size_t);

float Dot(const float* a, const float* b, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// Ids of the k best of `base` for `query` (ties to the smaller id), leaving out `skip`.
std::vector<size_t> TopK(const float* query, const Set& base, size_t skip) {
  std::vector<std::pair<float, size_t>> scored;
  scored.reserve(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    if (i != skip) scored.emplace_back(-Dot(query, base.at(i), base.dim), i);
  }
  const size_t k = std::min(kK, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(k), scored.end());
  std::vector<size_t> ids;
  for (size_t i = 0; i < k; ++i) ids.push_back(scored[i].second);
  return ids;
}

// Queries are every `stride`-th vector of `queries`; when they are `base`
// itself, each query's own vector is left out of its neighbours.
void Measure(const char* name, const char* form_name, Form form, const Set& base, const Set& queries,
             bool queries_are_base, size_t stride) {
  Set quantised{base.dim, {}};
  quantised.vectors.reserve(base.vectors.size());
  for (size_t i = 0; i < base.size(); ++i) {
    std::vector<float> q = form(base.at(i), base.dim);
    quantised.vectors.insert(quantised.vectors.end(), q.begin(), q.end());
  }
  double asymmetric = 0, symmetric = 0;
  size_t counted = 0;
  for (size_t qi = 0; qi < queries.size(); qi += stride) {
    const float* query = queries.at(qi);
    float norm = Dot(query, query, queries.dim);
    if (norm == 0) continue;  // text without features: no neighbours to find
    const size_t skip = queries_are_base ? qi : SIZE_MAX;
    const std::vector<size_t> truth = TopK(query, base, skip);
    const std::vector<size_t> a = TopK(query, quantised, skip);
    const std::vector<float> query_q = form(query, queries.dim);
    const std::vector<size_t> s = TopK(query_q.data(), quantised, skip);
    auto overlap = [&truth](const std::vector<size_t>& got) {
      size_t n = 0;
      for (size_t id : got) n += std::count(truth.begin(), truth.end(), id);
      return static_cast<double>(n) / static_cast<double>(truth.size());
    };
    asymmetric += overlap(a);
    symmetric += overlap(s);
    ++counted;
  }
  std::printf("%-7s %-28s dim %4zu  vectors %6zu  queries %5zu  recall@10 float query %.4f  %s query %.4f\n",
              form_name, name, base.dim, base.size(), counted, asymmetric / counted, form_name, symmetric / counted);
}

}  // namespace

int main() {
  const std::vector<std::string> messages = CorpusMessages();
  if (messages.empty()) {
    std::fprintf(stderr, "no bench corpora under %s (CILIA_BENCH_DATA)\n", BenchDataDir().c_str());
    return 1;
  }
  for (int dim : {256, 1024}) {
    const Set corpus = Embedded(messages, dim);
    const Set random = RandomUnit(20000, static_cast<size_t>(dim), 42);
    const Set queries = RandomUnit(300, static_cast<size_t>(dim), 7);
    for (auto [form_name, form] : {std::pair<const char*, Form>{"int8", Int8}, {"float16", Float16}}) {
      Measure("hash embedder, bench corpora", form_name, form, corpus, corpus, true,
              std::max<size_t>(1, corpus.size() / 1000));
      Measure("random unit vectors", form_name, form, random, queries, false, 1);
    }
  }
  return 0;
}
