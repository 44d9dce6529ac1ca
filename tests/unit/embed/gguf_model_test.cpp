#include "embed/gguf_model.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/codec.h"
#include "testing/temp_dir.h"
#include "testing/tiny_gguf.h"

namespace cilia::embed {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string ErrorOf(const std::string& path) {
  auto info = InspectGguf(path);
  return info.ok() ? "" : info.status().message();
}

class GgufModelTest : public ::testing::Test {
 protected:
  cilia::testing::TempDir dir_;
};

TEST_F(GgufModelTest, ReadsWhatTheHeaderSays) {
  cilia::testing::TinyBertSpec spec;
  spec.name = "bge-tiny";
  spec.hidden = 48;
  spec.layers = 3;
  spec.context = 40;
  spec.pooling = 1;
  const std::string path = dir_.Sub("m.gguf");
  ASSERT_TRUE(cilia::testing::WriteTinyBert(path, spec));
  auto info = InspectGguf(path);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->architecture, "bert");
  EXPECT_EQ(info->name, "bge-tiny");
  EXPECT_EQ(info->tokenizer, "bert");
  EXPECT_EQ(info->dimension, 48);
  EXPECT_EQ(info->layers, 3);
  EXPECT_EQ(info->context_length, 40);
  EXPECT_EQ(info->pooling, 1);
  EXPECT_EQ(info->file_bytes, std::filesystem::file_size(path));
  EXPECT_EQ(info->sha256, Sha256Hex(ReadAll(path)));
}

TEST_F(GgufModelTest, NamesTheModelAfterItsFileWithoutGeneralName) {
  cilia::testing::TinyBertSpec spec;
  spec.name = "";
  spec.tokenizer = cilia::testing::TinyTokenizer::kUnigram;
  spec.pooling = 0;
  ASSERT_TRUE(cilia::testing::WriteTinyBert(dir_.Sub("my-model.gguf"), spec));
  auto info = InspectGguf(dir_.Sub("my-model.gguf"));
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->name, "my-model");
  EXPECT_EQ(info->tokenizer, "t5");
  EXPECT_EQ(info->pooling, 0);
}

TEST_F(GgufModelTest, RefusesWhatIsNotAWholeEmbeddingModelNamingFileAndProblem) {
  const std::string missing = dir_.Sub("missing.gguf");
  EXPECT_EQ(ErrorOf(missing), "embedding.model: " + missing + ": no such file");

  const std::string text = dir_.Sub("notes.gguf");
  WriteAll(text, "these are not weights\n");
  EXPECT_EQ(ErrorOf(text), "embedding.model: " + text + ": not a GGUF file (it does not start with \"GGUF\")");

  const std::string garbage = dir_.Sub("garbage.gguf");
  WriteAll(garbage, std::string("GGUF") + std::string(64, '\xff'));
  EXPECT_THAT(ErrorOf(garbage), HasSubstr("embedding.model: " + garbage + ": a corrupt or truncated GGUF header"));

  const std::string whole = dir_.Sub("whole.gguf");
  ASSERT_TRUE(cilia::testing::WriteTinyBert(whole, {}));
  const std::string bytes = ReadAll(whole);
  const std::string cut = dir_.Sub("cut.gguf");
  WriteAll(cut, bytes.substr(0, bytes.size() - 1000));
  EXPECT_THAT(ErrorOf(cut), HasSubstr("embedding.model: " + cut + ": truncated: its tensors need " +
                                      std::to_string(bytes.size()) + " bytes, the file has " +
                                      std::to_string(bytes.size() - 1000)));
  const std::string header_only = dir_.Sub("header.gguf");
  WriteAll(header_only, bytes.substr(0, 200));
  EXPECT_THAT(ErrorOf(header_only), HasSubstr("a corrupt or truncated GGUF header"));

  cilia::testing::TinyBertSpec decoder;
  decoder.architecture = "llama";
  const std::string chat = dir_.Sub("chat.gguf");
  ASSERT_TRUE(cilia::testing::WriteTinyBert(chat, decoder));
  EXPECT_THAT(ErrorOf(chat), HasSubstr("embedding.model: " + chat +
                                       ": architecture \"llama\" is not an embedding (BERT-family encoder) model"));
}

TEST(GgufModel, KnowsTheEncoderArchitecturesAndPoolingNames) {
  EXPECT_TRUE(IsEmbeddingArchitecture("bert"));
  EXPECT_TRUE(IsEmbeddingArchitecture("nomic-bert"));
  EXPECT_TRUE(IsEmbeddingArchitecture("jina-bert-v2"));
  EXPECT_FALSE(IsEmbeddingArchitecture("llama"));
  EXPECT_FALSE(IsEmbeddingArchitecture("qwen2"));
  EXPECT_STREQ(PoolingName(1), "mean");
  EXPECT_STREQ(PoolingName(2), "cls");
  EXPECT_STREQ(PoolingName(3), "last");
  EXPECT_STREQ(PoolingName(0), "none");
  EXPECT_EQ(TokenizerName("bert"), "WordPiece");
  EXPECT_EQ(TokenizerName("t5"), "Unigram");
  EXPECT_EQ(TokenizerName("rwkv"), "rwkv");
}

}  // namespace
}  // namespace cilia::embed
