// Throughput of the text path that every ingested message takes: normalise,
// segment into words (IndexText), CJK unigrams/bigrams, sentence segments and
// the token estimate. Ingest must reach 5,000 messages/s, so IndexText must
// stay well above ~5 MB/s of chat text on one core.
//
// Data: the zh-dev messages (Chinese chat) and the LoCoMo conversation 26
// turns (English chat) from ../shared/bench, found beside the repository or
// under $CILIA_BENCH_DATA. Measured numbers and their context: docs/segmentation.md.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_data.h"
#include "text/normalize.h"
#include "text/segmenter.h"
#include "text/sentences.h"
#include "text/tokens.h"
#include "text/utf8.h"

namespace {

namespace fs = std::filesystem;
using cilia::text::WordSegmenter;

using cilia::bench::BenchDataDir;
using cilia::bench::ReadJson;

std::vector<std::string> LoadChinese() {
  std::vector<std::string> messages;
  const nlohmann::json data = ReadJson(BenchDataDir() / "zh-dev" / "zh-dev.json");
  if (!data.is_object()) return messages;
  for (const auto& conversation : data["conversations"]) {
    for (const auto& message : conversation["messages"]) messages.push_back(message.value("content", ""));
  }
  return messages;
}

std::vector<std::string> LoadEnglish() {
  std::vector<std::string> messages;
  const nlohmann::json data = ReadJson(BenchDataDir() / "locomo-dev" / "26.json");
  if (!data.is_object()) return messages;
  for (const auto& [key, value] : data.items()) {
    if (key.rfind("session_", 0) != 0 || !value.is_array()) continue;
    for (const auto& turn : value) messages.push_back(turn.value("text", ""));
  }
  return messages;
}

// Chinese and English messages alternating, as in a bilingual archive.
std::vector<std::string> LoadMixed() {
  const std::vector<std::string> zh = LoadChinese();
  const std::vector<std::string> en = LoadEnglish();
  std::vector<std::string> mixed;
  for (size_t i = 0; i < zh.size() || i < en.size(); ++i) {
    if (i < zh.size()) mixed.push_back(zh[i]);
    if (i < en.size()) mixed.push_back(en[i]);
  }
  return mixed;
}

const std::vector<std::string>& Corpus(int which) {
  static const std::vector<std::string> corpora[] = {LoadChinese(), LoadEnglish(), LoadMixed()};
  return corpora[which];
}

constexpr const char* kCorpusNames[] = {"zh", "en", "mixed"};

// Runs `fn` over every message of corpus state.range(0) per iteration.
template <typename Fn>
void OverCorpus(benchmark::State& state, Fn fn) {
  const std::vector<std::string>& messages = Corpus(static_cast<int>(state.range(0)));
  state.SetLabel(kCorpusNames[state.range(0)]);
  if (messages.empty()) {
    state.SkipWithError("bench data not found: set CILIA_BENCH_DATA to the shared/bench folder");
    return;
  }
  size_t bytes = 0;
  for (const std::string& m : messages) bytes += m.size();
  WordSegmenter::Get();  // build outside the timed loop
  for (auto _ : state) {
    for (const std::string& m : messages) fn(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * messages.size()));
}

void BM_NormalizeForMatch(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) { benchmark::DoNotOptimize(cilia::text::NormalizeForMatch(m)); });
}

void BM_IndexText(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) { benchmark::DoNotOptimize(cilia::text::IndexText(m)); });
}

// What the cilia_cjk tokenizer does with each token (hands it to FTS5), at its cost.
void CountToken(std::string_view token, bool) { benchmark::DoNotOptimize(token.size()); }

void BM_Words(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) { benchmark::DoNotOptimize(WordSegmenter::Get().Words(m)); });
}

void BM_ShortCjkTokens(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) { cilia::text::ForEachShortCjkToken(m, CountToken); });
}

void BM_SplitSegments(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) {
    benchmark::DoNotOptimize(cilia::text::SplitSegments(cilia::text::DecodeUtf8(m)));
  });
}

void BM_EstimateTokens(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) { benchmark::DoNotOptimize(cilia::text::EstimateTokens(m)); });
}

// Everything ingest does to one message's text.
void BM_IngestTextPath(benchmark::State& state) {
  OverCorpus(state, [](const std::string& m) {
    benchmark::DoNotOptimize(cilia::text::IndexText(m));
    cilia::text::ForEachShortCjkToken(m, CountToken);
    benchmark::DoNotOptimize(cilia::text::SplitSegments(cilia::text::DecodeUtf8(m)));
    benchmark::DoNotOptimize(cilia::text::EstimateTokens(m));
  });
}

BENCHMARK(BM_NormalizeForMatch)->DenseRange(0, 2);
BENCHMARK(BM_IndexText)->DenseRange(0, 2);
BENCHMARK(BM_Words)->Arg(0);
BENCHMARK(BM_ShortCjkTokens)->Arg(0);
BENCHMARK(BM_SplitSegments)->Arg(2);
BENCHMARK(BM_EstimateTokens)->Arg(2);
BENCHMARK(BM_IngestTextPath)->Arg(2);

}  // namespace

BENCHMARK_MAIN();
