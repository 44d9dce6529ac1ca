// Embedders turn texts into vectors for the vector lane of retrieval. Every
// stored vector records the id of the embedder that made it; vectors of
// different ids are never compared.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace cilia::embed {

// What a text is embedded for. Some model families are trained with a different
// instruction prefix on each side ("query: " / "passage: " for e5); a
// symmetric embedder ignores it.
enum class Purpose { kQuery, kPassage };

class Embedder {
 public:
  virtual ~Embedder() = default;

  // Names the model and its output, e.g. "hash-v1-256" or "openai:bge-m3:1024";
  // two embedders with the same id give the same vector for the same text.
  virtual const std::string& id() const = 0;
  virtual int dimension() const = 0;

  // One L2-normalised vector of dimension() floats per text, in order. An
  // empty text gets the zero vector, which is similar to nothing. Thread-safe.
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                        Purpose purpose) const = 0;
  // Whether Embed goes over the network.
  virtual bool remote() const { return false; }
  // Whether Embed takes too long to run inside a write transaction: a remote
  // one, or a model on the CPU (tens of ms a text), must not hold the writer.
  virtual bool slow() const { return remote(); }
  // One line for the owner (`cilia doctor`): what model this is. The id, unless
  // the embedder knows more.
  virtual std::string Describe() const { return id(); }
};

}  // namespace cilia::embed
