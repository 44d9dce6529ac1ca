// The built-in embedder: feature hashing of character n-grams. No model, no
// network, deterministic across runs and machines; good at "same words, same
// characters", blind to synonyms. The default when no remote embedder is set.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "embed/embedder.h"

namespace cilia::embed {

// Features of the text normalised for matching (text::NormalizeForMatch):
// runs of CJK letters give every character and every adjacent pair; other
// words give the word itself and its character trigrams (with word-boundary
// marks, so short words count too); emoji and other symbols count alone.
// Each feature is hashed (FNV-1a, then mixed) to a slot and a sign, weighted
// 1 + ln(count), and the sum is L2-normalised. Text without features (empty,
// only spaces or punctuation) gives the zero vector.
class HashEmbedder final : public Embedder {
 public:
  static constexpr int kDefaultDimension = 256;

  // dimension below 1 is taken as 1.
  explicit HashEmbedder(int dimension = kDefaultDimension);

  const std::string& id() const override { return id_; }  // "hash-v1-<dimension>"
  int dimension() const override { return dimension_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts, Purpose purpose) const override;

  // The vector of one text; Embed of one text gives the same.
  std::vector<float> EmbedOne(std::string_view text) const;

 private:
  int dimension_;
  std::string id_;
};

}  // namespace cilia::embed
