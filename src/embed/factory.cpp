#include "embed/factory.h"

#include <fmt/format.h>

#include "embed/hash_embedder.h"
#include "embed/openai_embedder.h"
#ifdef CILIA_LOCAL_EMBEDDING
#include "embed/local_embedder.h"
#endif

namespace cilia::embed {

Result<std::shared_ptr<const Embedder>> MakeEmbedder(const Config& config) {
  const EmbeddingConfig& e = config.embedding;
  switch (e.kind) {
    case EmbedderKind::kHash:
      return std::shared_ptr<const Embedder>(std::make_shared<HashEmbedder>(e.dimensions > 0 ? e.dimensions : 256));
    case EmbedderKind::kOpenAI: {
      const ProviderConfig* p = config.FindProvider(e.provider);
      if (!p) return Status::InvalidArgument("embedding.provider: no provider named \"" + e.provider + "\"");
      OpenAIEmbedderOptions o;
      o.base_url = p->base_url;
      o.api_key = p->api_key;
      o.model = e.model;
      o.dimensions = e.dimensions;
      o.batch_size = e.batch_size;
      o.timeout_ms = e.timeout_ms;
      CILIA_ASSIGN_OR_RETURN(std::unique_ptr<OpenAIEmbedder> embedder, OpenAIEmbedder::Create(std::move(o)));
      return std::shared_ptr<const Embedder>(std::move(embedder));
    }
    case EmbedderKind::kLocal: {
#ifdef CILIA_LOCAL_EMBEDDING
      LocalEmbedderOptions o;
      o.model_path = e.model;
      o.threads = e.threads;
      o.batch_size = e.batch_size;
      o.query_prefix = e.query_prefix;
      o.passage_prefix = e.passage_prefix;
      CILIA_ASSIGN_OR_RETURN(std::unique_ptr<LocalEmbedder> embedder, LocalEmbedder::Create(std::move(o)));
      if (e.dimensions > 0 && e.dimensions != embedder->dimension()) {
        return Status::InvalidArgument(fmt::format("embedding.dimensions: {} gives {} dimensions, not {}", e.model,
                                                   embedder->dimension(), e.dimensions));
      }
      return std::shared_ptr<const Embedder>(std::move(embedder));
#else
      break;
#endif
    }
  }
  return Status::InvalidArgument(
      "embedding.kind: \"local\" needs a build with llama.cpp, and this binary was built without it "
      "(CILIA_LOCAL_EMBEDDING=OFF; docs/embedding.md); use \"hash\" or \"openai\"");
}

bool LocalEmbeddingBuiltIn() {
#ifdef CILIA_LOCAL_EMBEDDING
  return true;
#else
  return false;
#endif
}

}  // namespace cilia::embed
