// Where the benchmarks find the evaluation data (../shared/bench beside the
// repository, or $CILIA_BENCH_DATA), and a JSON reader that gives null for a
// missing or malformed file so that a benchmark can skip that set.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace cilia::bench {

inline std::filesystem::path BenchDataDir() {
  if (const char* dir = std::getenv("CILIA_BENCH_DATA")) return dir;
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / "shared" / "bench";
}

inline nlohmann::json ReadJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return nullptr;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

}  // namespace cilia::bench
