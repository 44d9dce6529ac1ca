#include "embed/llama_runtime.h"

#include <gguf.h>
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "testing/temp_dir.h"

namespace cilia::embed {
namespace {

TEST(LlamaRuntime, KeepsTheErrorsOfThisThreadUntilCleared) {
  InitLlamaRuntime();
  InitLlamaRuntime();  // idempotent
  cilia::testing::TempDir dir;
  std::ofstream(dir.Sub("bad.gguf"), std::ios::binary) << "GGUF" << std::string(32, '\xff');
  ClearLlamaError();
  EXPECT_EQ(LlamaErrors(), "");
  gguf_init_params params{true, nullptr};
  EXPECT_EQ(gguf_init_from_file(dir.Sub("bad.gguf").c_str(), params), nullptr);
  const std::string error = LlamaErrors();
  EXPECT_FALSE(error.empty());
  EXPECT_NE(error.back(), '\n');
  std::string elsewhere = "unset";
  std::thread([&] { elsewhere = LlamaErrors(); }).join();
  EXPECT_EQ(elsewhere, "");
  ClearLlamaError();
  EXPECT_EQ(LlamaErrors(), "");
}

}  // namespace
}  // namespace cilia::embed
