#include "embed/local_embedder.h"

#include <fmt/format.h>
#include <llama.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "core/codec.h"
#include "embed/llama_runtime.h"

namespace cilia::embed {

namespace {

// Stored windows are a few hundred tokens at most; a longer context only
// makes the attention of one pass (whose tokens all see each other) larger.
constexpr int kMaxContextTokens = 512;
// Sequences in one pass: llama.cpp allows 256; more than this gains nothing
// on a CPU once the pass is full of tokens.
constexpr int kMaxSequencesPerPass = 64;

struct Batch {
  explicit Batch(int n) : b(llama_batch_init(n, 0, 1)) {}
  ~Batch() { llama_batch_free(b); }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  llama_batch b;
};

void Normalise(const float* in, int n, std::vector<float>& out) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<double>(in[i]) * in[i];
  out.assign(in, in + n);
  if (sum <= 0) return;
  const auto inv = static_cast<float>(1.0 / std::sqrt(sum));
  for (float& x : out) x *= inv;
}

}  // namespace

Result<std::unique_ptr<LocalEmbedder>> LocalEmbedder::Create(LocalEmbedderOptions options) {
  const auto start = std::chrono::steady_clock::now();
  CILIA_ASSIGN_OR_RETURN(GgufModelInfo info, InspectGguf(options.model_path));
  const std::string& path = info.path;
  int pooling = info.pooling;
  if (pooling == 0) pooling = LLAMA_POOLING_TYPE_MEAN;  // what sentence-transformers does without a pooling config
  if (pooling != LLAMA_POOLING_TYPE_MEAN && pooling != LLAMA_POOLING_TYPE_CLS && pooling != LLAMA_POOLING_TYPE_LAST) {
    return Status::InvalidArgument(fmt::format(
        "embedding.model: {}: pooling type {} is not an embedding's (a reranker?); cls, mean or last are", path,
        pooling));
  }

  InitLlamaRuntime();
  std::unique_ptr<LocalEmbedder> e(new LocalEmbedder());
  e->options_ = std::move(options);
  e->pooling_ = pooling;

  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  ClearLlamaError();
  e->model_ = llama_model_load_from_file(path.c_str(), mp);
  if (!e->model_) {
    const std::string why = LlamaErrors();
    return Status::InvalidArgument(
        fmt::format("embedding.model: {}: llama.cpp cannot load it{}", path, why.empty() ? "" : ": " + why));
  }
  // A power of two of sequences, and a context that is a multiple of it: llama.cpp sizes its
  // pooling graph for an even split of the context between the sequences, and aborts otherwise.
  e->n_seq_max_ = 1;
  while (e->n_seq_max_ * 2 <= std::clamp(e->options_.batch_size, 1, kMaxSequencesPerPass)) e->n_seq_max_ *= 2;
  const int trained = llama_model_n_ctx_train(e->model_);
  e->n_ctx_ = std::min(trained > 0 ? trained : kMaxContextTokens, kMaxContextTokens);
  if (e->n_ctx_ >= e->n_seq_max_) e->n_ctx_ -= e->n_ctx_ % e->n_seq_max_;
  const int threads = e->options_.threads > 0 ? e->options_.threads
                                              : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  llama_context_params cp = llama_context_default_params();
  cp.embeddings = true;
  cp.pooling_type = static_cast<enum llama_pooling_type>(pooling);
  // An encoder sees a whole pass at once: context, batch and micro-batch are one size.
  cp.n_ctx = cp.n_batch = cp.n_ubatch = static_cast<uint32_t>(e->n_ctx_);
  cp.n_seq_max = static_cast<uint32_t>(e->n_seq_max_);
  cp.n_threads = cp.n_threads_batch = threads;
  ClearLlamaError();
  e->ctx_ = llama_init_from_model(e->model_, cp);
  if (!e->ctx_) {
    const std::string why = LlamaErrors();
    return Status::InvalidArgument(
        fmt::format("embedding.model: {}: llama.cpp cannot run it{}", path, why.empty() ? "" : ": " + why));
  }
  info.dimension = llama_model_n_embd_out(e->model_);
  e->info_ = std::move(info);
  const std::string fingerprint =
      Sha256Hex(e->info_.sha256 + "\n" + e->options_.query_prefix + "\n" + e->options_.passage_prefix).substr(0, 12);
  e->id_ = fmt::format("local:{}:{}:{}", e->info_.name, fingerprint, e->info_.dimension);
  e->load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return e;
}

std::string LocalEmbedder::Describe() const {
  return fmt::format("local model {}: {} ({}), {} dimensions, {} pooling, {} tokenizer, {} layers, loaded in {:.0f} ms",
                     info_.path, info_.name, info_.architecture, dimension(), PoolingName(pooling_),
                     TokenizerName(info_.tokenizer), info_.layers, load_ms_);
}

LocalEmbedder::~LocalEmbedder() {
  if (ctx_) llama_free(ctx_);
  if (model_) llama_model_free(model_);
}

Result<std::vector<int32_t>> LocalEmbedder::Tokenize(const std::string& text) const {
  std::lock_guard<std::mutex> lock(mu_);
  return TokenizeLocked(text);
}

Result<std::vector<int32_t>> LocalEmbedder::TokenizeLocked(const std::string& text) const {
  const llama_vocab* vocab = llama_model_get_vocab(model_);
  std::vector<llama_token> tokens(text.size() + 8);
  auto n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                          static_cast<int32_t>(tokens.size()), /*add_special=*/true, /*parse_special=*/false);
  if (n < 0) {
    tokens.resize(static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                       static_cast<int32_t>(tokens.size()), true, false);
  }
  if (n < 0) return Status::Internal("llama_tokenize failed");
  tokens.resize(static_cast<size_t>(n));
  if (static_cast<int>(tokens.size()) > n_ctx_) {
    const llama_token last = tokens.back();
    const bool closing = llama_vocab_is_control(vocab, last);
    tokens.resize(static_cast<size_t>(n_ctx_));
    if (closing) tokens.back() = last;
  }
  return std::vector<int32_t>(tokens.begin(), tokens.end());
}

Status LocalEmbedder::EncodeLocked(const std::vector<std::vector<int32_t>>& seqs, const std::vector<size_t>& which,
                                   std::vector<std::vector<float>>& out) const {
  int total = 0;
  for (size_t s : which) total += static_cast<int>(seqs[s].size());
  Batch batch(total);
  llama_batch& b = batch.b;
  b.n_tokens = 0;
  for (size_t j = 0; j < which.size(); ++j) {
    const std::vector<int32_t>& tokens = seqs[which[j]];
    for (size_t p = 0; p < tokens.size(); ++p) {
      const int k = b.n_tokens++;
      b.token[k] = tokens[p];
      b.pos[k] = static_cast<llama_pos>(p);
      b.n_seq_id[k] = 1;
      b.seq_id[k][0] = static_cast<llama_seq_id>(j);
      b.logits[k] = 1;
    }
  }
  ClearLlamaError();
  if (llama_encode(ctx_, b) != 0) {
    const std::string why = LlamaErrors();
    return Status::Internal(fmt::format("embedding: llama_encode failed{}", why.empty() ? "" : ": " + why));
  }
  const int dim = dimension();
  for (size_t j = 0; j < which.size(); ++j) {
    const float* v = llama_get_embeddings_seq(ctx_, static_cast<llama_seq_id>(j));
    if (!v) return Status::Internal("embedding: llama.cpp gave no pooled vector");
    Normalise(v, dim, out[which[j]]);
  }
  return Status::Ok();
}

Result<std::vector<std::vector<float>>> LocalEmbedder::Embed(const std::vector<std::string>& texts,
                                                             Purpose purpose) const {
  std::vector<std::vector<float>> out(texts.size(), std::vector<float>(static_cast<size_t>(dimension()), 0.0f));
  const std::string& prefix = purpose == Purpose::kQuery ? options_.query_prefix : options_.passage_prefix;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::vector<int32_t>> seqs(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].empty()) continue;  // the zero vector
    CILIA_ASSIGN_OR_RETURN(seqs[i], TokenizeLocked(prefix + texts[i]));
  }
  // Passes of whole sequences, as many as fit the context.
  std::vector<size_t> pass;
  int tokens = 0;
  for (size_t i = 0; i <= texts.size(); ++i) {
    const bool end = i == texts.size();
    const int n = end ? 0 : static_cast<int>(seqs[i].size());
    if (!pass.empty() && (end || tokens + n > n_ctx_ || static_cast<int>(pass.size()) == n_seq_max_)) {
      CILIA_RETURN_IF_ERROR(EncodeLocked(seqs, pass, out));
      pass.clear();
      tokens = 0;
    }
    if (end || n == 0) continue;
    pass.push_back(i);
    tokens += n;
  }
  return out;
}

}  // namespace cilia::embed
