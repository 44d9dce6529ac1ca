// What a GGUF model file says about itself, read from its header before
// llama.cpp is given the file: llama.cpp reports a bad file only to its log,
// and would load a chat model as readily as an embedding model.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace cilia::embed {

struct GgufModelInfo {
  std::string path;
  std::string architecture;  // general.architecture, e.g. "bert"
  std::string name;          // general.name, or the file's stem when it has none
  std::string tokenizer;     // tokenizer.ggml.model: "bert" (WordPiece), "t5" (Unigram), ...
  int64_t dimension = 0;     // <arch>.embedding_length
  int64_t layers = 0;        // <arch>.block_count
  int64_t context_length = 0;
  // <arch>.pooling_type as llama.cpp numbers it (1 mean, 2 CLS, 3 last); 0
  // when the file declares none.
  int pooling = 0;
  uint64_t file_bytes = 0;
  std::string sha256;  // of the whole file: a changed model gives a changed embedder id
};

// The encoder architectures llama.cpp builds embedding models of.
bool IsEmbeddingArchitecture(const std::string& architecture);

// Reads and checks the header of path: a GGUF file of an embedding
// architecture, with a vocabulary and an embedding length, whose tensors all
// lie inside the file. The error names the file and what is wrong with it.
Result<GgufModelInfo> InspectGguf(const std::string& path);

// "cls", "mean", "last", or "none".
const char* PoolingName(int pooling);
// What tokenizer.ggml.model stands for: "WordPiece" for "bert", "Unigram" for "t5", ...
std::string TokenizerName(const std::string& model);

}  // namespace cilia::embed
