// A remote embedder speaking the OpenAI embeddings API (POST {base_url}/embeddings),
// which OpenAI, vLLM, Ollama, LM Studio, TEI and most gateways serve.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "embed/embedder.h"

namespace cilia::embed {

struct OpenAIEmbedderOptions {
  std::string base_url;  // e.g. "https://api.openai.com/v1"
  std::string api_key;   // sent as "Authorization: Bearer"; empty sends none
  std::string model;
  int dimensions = 0;  // 0: whatever the model returns (asked once in Create)
  int batch_size = 64;
  int timeout_ms = 30000;  // per request
};

class OpenAIEmbedder final : public Embedder {
 public:
  // Checks the options; when dimensions is 0, embeds one probe text to learn
  // the model's dimension, so that id() and dimension() are fixed from the
  // start. A set dimension is also sent as "dimensions" (for models that can
  // shorten their vectors) and every reply is checked against it.
  static Result<std::unique_ptr<OpenAIEmbedder>> Create(OpenAIEmbedderOptions options);

  const std::string& id() const override { return id_; }  // "openai:<model>:<dimension>"
  int dimension() const override { return options_.dimensions; }

  // Sends batch_size texts a request; 429, 5xx and transport failures are
  // tried three times in all, with backoff (honouring Retry-After). Empty
  // texts are not sent: they get the zero vector. Replies are put in input
  // order by their "index" and L2-normalised.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts, Purpose purpose) const override;
  bool remote() const override { return true; }

 private:
  explicit OpenAIEmbedder(OpenAIEmbedderOptions options);

  // One request for `texts` (all non-empty); `expected_dimension` 0 accepts
  // any one dimension shared by all vectors.
  Result<std::vector<std::vector<float>>> EmbedBatch(const std::vector<std::string>& texts,
                                                     int expected_dimension) const;

  OpenAIEmbedderOptions options_;
  std::string url_;
  std::string id_;
};

}  // namespace cilia::embed
