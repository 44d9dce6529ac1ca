// llama.cpp's process-wide state: its backend, initialised once, and its log,
// which is kept quiet and whose errors are kept for the Status that
// reports a failed call (llama.cpp itself returns only a null pointer).
#pragma once

#include <string>

namespace cilia::embed {

// Idempotent and thread-safe.
void InitLlamaRuntime();

// The errors llama.cpp or ggml logged on this thread since ClearLlamaError, joined by "; "
// (the first is the cause, the last often only "failed to load model"); empty when none.
std::string LlamaErrors();
void ClearLlamaError();

}  // namespace cilia::embed
