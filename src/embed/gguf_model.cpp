#include "embed/gguf_model.h"

#include <fmt/format.h>
#include <gguf.h>
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "embed/llama_runtime.h"

namespace cilia::embed {

namespace {

namespace fs = std::filesystem;

Status Bad(const std::string& path, const std::string& problem) {
  return Status::InvalidArgument(fmt::format("embedding.model: {}: {}", path, problem));
}

// A key's value as an integer, whatever unsigned or signed width the converter wrote.
std::optional<int64_t> IntKey(const gguf_context* ctx, const std::string& key) {
  const int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0) return std::nullopt;
  switch (gguf_get_kv_type(ctx, id)) {
    case GGUF_TYPE_UINT8: return gguf_get_val_u8(ctx, id);
    case GGUF_TYPE_INT8: return gguf_get_val_i8(ctx, id);
    case GGUF_TYPE_UINT16: return gguf_get_val_u16(ctx, id);
    case GGUF_TYPE_INT16: return gguf_get_val_i16(ctx, id);
    case GGUF_TYPE_UINT32: return gguf_get_val_u32(ctx, id);
    case GGUF_TYPE_INT32: return gguf_get_val_i32(ctx, id);
    case GGUF_TYPE_UINT64: return static_cast<int64_t>(gguf_get_val_u64(ctx, id));
    case GGUF_TYPE_INT64: return gguf_get_val_i64(ctx, id);
    default: return std::nullopt;
  }
}

std::string StringKey(const gguf_context* ctx, const std::string& key) {
  const int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) return "";
  return gguf_get_val_str(ctx, id);
}

// Streamed, so that a model of a gigabyte is not read into memory at once; it
// also leaves the file in the page cache for llama.cpp's mmap.
Result<std::string> FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Bad(path, "cannot be read");
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestInit_ex(md.get(), EVP_sha256(), nullptr) != 1) return Status::Internal("sha256 init failed");
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(md.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Bad(path, "read failed");
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int n = 0;
  EVP_DigestFinal_ex(md.get(), digest.data(), &n);
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

}  // namespace

bool IsEmbeddingArchitecture(const std::string& architecture) {
  static const std::set<std::string> kEncoders = {"bert",         "modern-bert",  "nomic-bert", "nomic-bert-moe",
                                                  "neo-bert",     "jina-bert-v2", "jina-bert-v3", "eurobert"};
  return kEncoders.count(architecture) > 0;
}

const char* PoolingName(int pooling) {
  switch (pooling) {
    case 1: return "mean";
    case 2: return "cls";
    case 3: return "last";
    default: return "none";
  }
}

std::string TokenizerName(const std::string& model) {
  if (model == "bert") return "WordPiece";
  if (model == "t5") return "Unigram";
  if (model == "gpt2") return "BPE";
  if (model == "llama") return "SentencePiece BPE";
  return model;
}

Result<GgufModelInfo> InspectGguf(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return Bad(path, "no such file");
  if (!fs::is_regular_file(path, ec)) return Bad(path, "not a regular file");
  GgufModelInfo info;
  info.path = path;
  info.file_bytes = fs::file_size(path, ec);

  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Bad(path, "cannot be opened");
  char magic[4] = {};
  const size_t got = std::fread(magic, 1, 4, f);
  std::fclose(f);
  if (got != 4 || std::string(magic, 4) != "GGUF") return Bad(path, "not a GGUF file (it does not start with \"GGUF\")");

  InitLlamaRuntime();
  ClearLlamaError();
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  std::unique_ptr<gguf_context, decltype(&gguf_free)> ctx(gguf_init_from_file(path.c_str(), params), gguf_free);
  if (!ctx) {
    const std::string why = LlamaErrors();
    return Bad(path, "a corrupt or truncated GGUF header" + (why.empty() ? "" : " (" + why + ")"));
  }

  info.architecture = StringKey(ctx.get(), "general.architecture");
  if (info.architecture.empty()) return Bad(path, "no general.architecture in its header");
  if (!IsEmbeddingArchitecture(info.architecture)) {
    return Bad(path, fmt::format("architecture \"{}\" is not an embedding (BERT-family encoder) model; "
                                 "docs/embedding.md lists models that are",
                                 info.architecture));
  }
  const std::string& arch = info.architecture;
  info.name = StringKey(ctx.get(), "general.name");
  if (info.name.empty()) info.name = fs::path(path).stem().string();
  info.tokenizer = StringKey(ctx.get(), "tokenizer.ggml.model");
  if (info.tokenizer.empty()) return Bad(path, "no tokenizer (tokenizer.ggml.model) in its header");
  info.dimension = IntKey(ctx.get(), arch + ".embedding_length").value_or(0);
  if (info.dimension <= 0) return Bad(path, fmt::format("no {}.embedding_length in its header", arch));
  info.layers = IntKey(ctx.get(), arch + ".block_count").value_or(0);
  info.context_length = IntKey(ctx.get(), arch + ".context_length").value_or(0);
  info.pooling = static_cast<int>(IntKey(ctx.get(), arch + ".pooling_type").value_or(0));

  // The header may be whole and the tensor data cut short (an interrupted copy).
  const uint64_t data_start = gguf_get_data_offset(ctx.get());
  uint64_t data_end = data_start;
  for (int64_t i = 0; i < gguf_get_n_tensors(ctx.get()); ++i) {
    data_end = std::max<uint64_t>(data_end, data_start + gguf_get_tensor_offset(ctx.get(), i) +
                                                gguf_get_tensor_size(ctx.get(), i));
  }
  if (data_end > info.file_bytes) {
    return Bad(path, fmt::format("truncated: its tensors need {} bytes, the file has {}", data_end, info.file_bytes));
  }
  CILIA_ASSIGN_OR_RETURN(info.sha256, FileSha256(path));
  return info;
}

}  // namespace cilia::embed
