// An embedding model in process: a BERT-family GGUF file (bge, e5, nomic,
// jina, ...) run on the CPU through llama.cpp's C API. Tokenisation is the
// model's own (WordPiece or Unigram, as its GGUF says), pooling the one it
// declares (mean when it declares none), and every vector L2-normalised.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "embed/embedder.h"
#include "embed/gguf_model.h"

struct llama_model;
struct llama_context;

namespace cilia::embed {

struct LocalEmbedderOptions {
  std::string model_path;
  int threads = 0;      // 0: one per core
  int batch_size = 64;  // texts per pass through the model
  std::string query_prefix;
  std::string passage_prefix;
};

class LocalEmbedder final : public Embedder {
 public:
  // Checks the file (InspectGguf) and loads it; a file llama.cpp cannot load
  // is refused with its reason.
  static Result<std::unique_ptr<LocalEmbedder>> Create(LocalEmbedderOptions options);
  ~LocalEmbedder() override;
  LocalEmbedder(const LocalEmbedder&) = delete;
  LocalEmbedder& operator=(const LocalEmbedder&) = delete;

  // "local:<model name>:<12 hex of the file's and the prefixes' sha256>:<dimension>":
  // another file, or other prefixes, give another id, and so a re-embed.
  const std::string& id() const override { return id_; }
  int dimension() const override { return static_cast<int>(info_.dimension); }

  // Texts longer than the context (the model's, at most 512 tokens) are cut
  // to their first tokens, keeping the closing special token: stored windows
  // are shorter, and attention costs grow with the square of the length.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts, Purpose purpose) const override;
  bool slow() const override { return true; }
  // "local model <path>: <name> (<architecture>), <n> dimensions, <pooling>
  // pooling, <tokenizer> tokenizer, <n> layers, loaded in <n> ms".
  std::string Describe() const override;

  // The token ids the model sees for text, its special tokens included.
  Result<std::vector<int32_t>> Tokenize(const std::string& text) const;

  const GgufModelInfo& info() const { return info_; }
  int pooling() const { return pooling_; }  // as llama.cpp numbers it; gguf_model.h
  int context_tokens() const { return n_ctx_; }
  double load_ms() const { return load_ms_; }

 private:
  LocalEmbedder() = default;
  Result<std::vector<int32_t>> TokenizeLocked(const std::string& text) const;
  // One llama_encode of the sequences, their pooled, normalised vectors into out.
  Status EncodeLocked(const std::vector<std::vector<int32_t>>& seqs, const std::vector<size_t>& which,
                      std::vector<std::vector<float>>& out) const;

  LocalEmbedderOptions options_;
  GgufModelInfo info_;
  std::string id_;
  int pooling_ = 0;
  int n_ctx_ = 0;
  int n_seq_max_ = 1;
  double load_ms_ = 0;
  llama_model* model_ = nullptr;
  // One context, one caller at a time: llama.cpp's context is not thread-safe,
  // and its threads already use every core given to it.
  mutable std::mutex mu_;
  llama_context* ctx_ = nullptr;
};

}  // namespace cilia::embed
