// Builds the embedder the config asks for.
#pragma once

#include <memory>

#include "core/config.h"
#include "core/status.h"
#include "embed/embedder.h"

namespace cilia::embed {

// kind "hash": the built-in feature-hashing embedder (embedding.dimensions,
// default 256); kind "openai": the provider's /v1/embeddings. Kind "local"
// is not built into this binary and is refused with a message saying so.
Result<std::shared_ptr<const Embedder>> MakeEmbedder(const Config& config);

}  // namespace cilia::embed
