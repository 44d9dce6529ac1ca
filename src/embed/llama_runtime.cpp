#include "embed/llama_runtime.h"

#include <llama.h>

#include <mutex>

namespace cilia::embed {

namespace {

thread_local std::string last_error;  // every error since ClearLlamaError

void KeepErrors(ggml_log_level level, const char* text, void*) {
  if (level != GGML_LOG_LEVEL_ERROR || !text) return;
  std::string line = text;
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (line.empty()) return;
  last_error += (last_error.empty() ? "" : "; ") + line;
}

}  // namespace

void InitLlamaRuntime() {
  static std::once_flag once;
  std::call_once(once, [] {
    llama_log_set(KeepErrors, nullptr);
    llama_backend_init();
  });
}

std::string LlamaErrors() { return last_error; }

void ClearLlamaError() { last_error.clear(); }

}  // namespace cilia::embed
