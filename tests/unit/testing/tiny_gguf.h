// Writes BERT-architecture GGUF files with random weights through ggml's gguf
// API: the embedding models the tests and benchmarks run, since no real
// weights can be downloaded. Two vocabularies: a WordPiece one (tokenizer
// "bert", as bge-small-zh's) and a Unigram one (tokenizer "t5", as bge-m3's
// XLM-R SentencePiece), each with English, Chinese and emoji pieces whose ids
// the tests know.
#pragma once

#include <ggml.h>
#include <gguf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace cilia::testing {

enum class TinyTokenizer { kWordPiece, kUnigram };

struct TinyBertSpec {
  std::string name = "tiny-bert";  // empty: no general.name
  TinyTokenizer tokenizer = TinyTokenizer::kWordPiece;
  int hidden = 32;
  int layers = 2;
  int heads = 4;
  int ffn = 64;
  int context = 64;
  int pooling = 2;  // llama.cpp's numbering: 1 mean, 2 CLS, 3 last; 0 writes no pooling_type
  uint32_t seed = 1;
  bool f16 = false;       // matrices in f16 (norms and biases stay f32)
  int vocab_padding = 0;  // filler pieces after the known ones, for a realistic embedding table
  std::string architecture = "bert";
  std::string omit_tensor;  // a tensor left out: a file llama.cpp refuses
};

// Piece ids of the WordPiece vocabulary. llama.cpp's GGUF form of WordPiece
// marks a word's first piece with "▁" instead of marking continuations "##".
namespace wp {
inline constexpr int kPad = 0, kUnk = 1, kCls = 2, kSep = 3, kMask = 4, kHello = 5, kWorld = 6, kComma = 7,
                     kBang = 8, kMem = 9, kOry = 10, kWo = 11, kMen = 12, kZu = 13, kXin = 14, kLai = 15, kDe = 16,
                     kXiao = 17, kZhou = 18, kEmojiWord = 19, kEmoji = 20, kCoffee = 21;
}  // namespace wp
// Piece ids of the Unigram vocabulary (XLM-R's specials: <s> 0, <pad> 1, </s> 2, <unk> 3).
namespace ug {
inline constexpr int kBos = 0, kPad = 1, kEos = 2, kUnk = 3, kHello = 4, kWorld = 5, kSpace = 6, kComma = 7,
                     kBang = 8, kWomen = 9, kWo = 10, kMen = 11, kXiaoZhou = 12, kSpaceXiao = 13, kZhou = 14,
                     kEmoji = 15, kMem = 16, kOry = 17, kCoffee = 18;
}  // namespace ug

inline std::vector<std::pair<std::string, float>> TinyVocabulary(TinyTokenizer tokenizer) {
  if (tokenizer == TinyTokenizer::kWordPiece) {
    return {{"[PAD]", 0},  {"[UNK]", 0},  {"[CLS]", 0},  {"[SEP]", 0},  {"[MASK]", 0},   {"▁hello", 0},
            {"▁world", 0}, {"▁,", 0},     {"▁!", 0},     {"▁mem", 0},   {"ory", 0},      {"▁我", 0},
            {"▁们", 0},    {"▁组", 0},    {"▁新", 0},    {"▁来", 0},    {"▁的", 0},      {"▁小", 0},
            {"▁周", 0},    {"▁😀", 0},    {"😀", 0},     {"▁coffee", 0}};
  }
  return {{"<s>", 0},      {"<pad>", 0},   {"</s>", 0},  {"<unk>", 0},  {"▁hello", -2},  {"▁world", -2},
          {"▁", -3},       {",", -3},      {"!", -3},    {"▁我们", -2}, {"我", -4},      {"们", -4},
          {"小周", -3},    {"▁小", -3},    {"周", -4},   {"😀", -3},    {"▁mem", -3},    {"ory", -3},
          {"▁coffee", -2}};
}

// Writes the model to path; false when gguf cannot write it.
inline bool WriteTinyBert(const std::string& path, const TinyBertSpec& spec) {
  auto vocab = TinyVocabulary(spec.tokenizer);
  for (int i = 0; i < spec.vocab_padding; ++i) vocab.push_back({"▁filler" + std::to_string(i), -10});
  const int n_vocab = static_cast<int>(vocab.size());
  const bool wordpiece = spec.tokenizer == TinyTokenizer::kWordPiece;
  const int n_special = wordpiece ? 5 : 4;

  gguf_context* g = gguf_init_empty();
  const std::string a = spec.architecture;
  gguf_set_val_str(g, "general.architecture", a.c_str());
  if (!spec.name.empty()) gguf_set_val_str(g, "general.name", spec.name.c_str());
  gguf_set_val_u32(g, (a + ".context_length").c_str(), static_cast<uint32_t>(spec.context));
  gguf_set_val_u32(g, (a + ".embedding_length").c_str(), static_cast<uint32_t>(spec.hidden));
  gguf_set_val_u32(g, (a + ".block_count").c_str(), static_cast<uint32_t>(spec.layers));
  gguf_set_val_u32(g, (a + ".feed_forward_length").c_str(), static_cast<uint32_t>(spec.ffn));
  gguf_set_val_u32(g, (a + ".attention.head_count").c_str(), static_cast<uint32_t>(spec.heads));
  gguf_set_val_f32(g, (a + ".attention.layer_norm_epsilon").c_str(), 1e-12f);
  gguf_set_val_bool(g, (a + ".attention.causal").c_str(), false);
  if (spec.pooling > 0) gguf_set_val_u32(g, (a + ".pooling_type").c_str(), static_cast<uint32_t>(spec.pooling));

  std::vector<const char*> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;
  for (int i = 0; i < n_vocab; ++i) {
    pieces.push_back(vocab[i].first.c_str());
    scores.push_back(vocab[i].second);
    const bool unknown = i == (wordpiece ? wp::kUnk : ug::kUnk);
    types.push_back(unknown ? 2 : i < n_special ? 3 : 1);  // llama.cpp: 1 normal, 2 unknown, 3 control
  }
  gguf_set_val_str(g, "tokenizer.ggml.model", wordpiece ? "bert" : "t5");
  gguf_set_arr_str(g, "tokenizer.ggml.tokens", pieces.data(), pieces.size());
  gguf_set_arr_data(g, "tokenizer.ggml.scores", GGUF_TYPE_FLOAT32, scores.data(), scores.size());
  gguf_set_arr_data(g, "tokenizer.ggml.token_type", GGUF_TYPE_INT32, types.data(), types.size());
  gguf_set_val_u32(g, "tokenizer.ggml.token_type_count", 2);
  if (wordpiece) {
    gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", wp::kCls);
    gguf_set_val_u32(g, "tokenizer.ggml.cls_token_id", wp::kCls);
    gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", wp::kUnk);
    gguf_set_val_u32(g, "tokenizer.ggml.seperator_token_id", wp::kSep);  // [sic], llama.cpp's spelling
    gguf_set_val_u32(g, "tokenizer.ggml.padding_token_id", wp::kPad);
    gguf_set_val_u32(g, "tokenizer.ggml.mask_token_id", wp::kMask);
    gguf_set_val_bool(g, "tokenizer.ggml.normalizer.lowercase", true);
  } else {
    gguf_set_val_u32(g, "tokenizer.ggml.bos_token_id", ug::kBos);
    gguf_set_val_u32(g, "tokenizer.ggml.eos_token_id", ug::kEos);
    gguf_set_val_u32(g, "tokenizer.ggml.unknown_token_id", ug::kUnk);
    gguf_set_val_u32(g, "tokenizer.ggml.padding_token_id", ug::kPad);
    gguf_set_val_bool(g, "tokenizer.ggml.add_bos_token", true);
    gguf_set_val_bool(g, "tokenizer.ggml.add_eos_token", true);
    gguf_set_val_bool(g, "tokenizer.ggml.add_space_prefix", true);
    gguf_set_val_bool(g, "tokenizer.ggml.remove_extra_whitespaces", true);
  }

  // name, ne0, ne1 (0 for a vector), what to fill it with
  enum class Fill { kRandom, kOnes, kSmall };
  struct T {
    std::string name;
    int64_t ne0, ne1;
    Fill fill;
  };
  const int64_t d = spec.hidden;
  std::vector<T> tensors = {{"token_embd.weight", d, n_vocab, Fill::kRandom},
                            {"token_types.weight", d, 2, Fill::kRandom},
                            {"position_embd.weight", d, spec.context, Fill::kRandom},
                            {"token_embd_norm.weight", d, 0, Fill::kOnes},
                            {"token_embd_norm.bias", d, 0, Fill::kSmall}};
  for (int l = 0; l < spec.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
      tensors.push_back({b + m + ".weight", d, d, Fill::kRandom});
      tensors.push_back({b + m + ".bias", d, 0, Fill::kSmall});
    }
    tensors.push_back({b + "attn_output_norm.weight", d, 0, Fill::kOnes});
    tensors.push_back({b + "attn_output_norm.bias", d, 0, Fill::kSmall});
    tensors.push_back({b + "ffn_up.weight", d, spec.ffn, Fill::kRandom});
    tensors.push_back({b + "ffn_up.bias", spec.ffn, 0, Fill::kSmall});
    tensors.push_back({b + "ffn_down.weight", spec.ffn, d, Fill::kRandom});
    tensors.push_back({b + "ffn_down.bias", d, 0, Fill::kSmall});
    tensors.push_back({b + "layer_output_norm.weight", d, 0, Fill::kOnes});
    tensors.push_back({b + "layer_output_norm.bias", d, 0, Fill::kSmall});
  }

  size_t bytes = 0;
  for (const T& t : tensors) bytes += static_cast<size_t>(t.ne0 * std::max<int64_t>(t.ne1, 1)) * 4 + 64;
  ggml_init_params params{bytes + tensors.size() * ggml_tensor_overhead(), nullptr, false};
  ggml_context* ctx = ggml_init(params);
  std::mt19937 rng(spec.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values;
  for (const T& t : tensors) {
    if (t.name == spec.omit_tensor) continue;
    const bool matrix = t.ne1 > 0;
    // The token-type and position tables are added to f32 activations as they are: f32, as
    // convert_hf_to_gguf.py keeps them.
    const bool added = t.name.rfind("token_types", 0) == 0 || t.name.rfind("position_embd", 0) == 0;
    const ggml_type type = matrix && spec.f16 && !added ? GGML_TYPE_F16 : GGML_TYPE_F32;
    ggml_tensor* x = matrix ? ggml_new_tensor_2d(ctx, type, t.ne0, t.ne1) : ggml_new_tensor_1d(ctx, type, t.ne0);
    ggml_set_name(x, t.name.c_str());
    values.resize(static_cast<size_t>(ggml_nelements(x)));
    // Weights ~ N(0, 1/fan_in), as an initialised model has: activations stay of order one.
    const float scale = t.fill == Fill::kRandom ? 1.0f / std::sqrt(static_cast<float>(t.ne0)) : 0.02f;
    for (float& v : values) v = t.fill == Fill::kOnes ? 1.0f + 0.02f * normal(rng) : scale * normal(rng);
    if (type == GGML_TYPE_F16) {
      ggml_fp32_to_fp16_row(values.data(), static_cast<ggml_fp16_t*>(x->data), ggml_nelements(x));
    } else {
      std::copy(values.begin(), values.end(), static_cast<float*>(x->data));
    }
    gguf_add_tensor(g, x);
  }
  const bool ok = gguf_write_to_file(g, path.c_str(), /*only_meta=*/false);
  ggml_free(ctx);
  gguf_free(g);
  return ok;
}

}  // namespace cilia::testing
