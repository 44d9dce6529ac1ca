// Builds the embedder the config asks for.
#pragma once

#include <memory>

#include "core/config.h"
#include "core/status.h"
#include "embed/embedder.h"

namespace cilia::embed {

// kind "hash": the built-in feature-hashing embedder (embedding.dimensions,
// default 256); kind "openai": the provider's /v1/embeddings; kind "local": a
// GGUF model file run in process, refused with a message saying so when this
// binary was built without llama.cpp.
Result<std::shared_ptr<const Embedder>> MakeEmbedder(const Config& config);

// Whether this binary has llama.cpp in it, so that kind "local" can work
// (CMake's CILIA_LOCAL_EMBEDDING, on by default).
bool LocalEmbeddingBuiltIn();

}  // namespace cilia::embed
