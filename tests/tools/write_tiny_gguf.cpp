// write_tiny_gguf PATH [--seed N] [--unigram] [--name NAME] [--architecture ARCH]
// A tiny random-weight BERT GGUF (tests/unit/testing/tiny_gguf.h), for the
// end-to-end tests of `[embedding] kind = "local"`.
#include <cstdio>
#include <string>

#include "testing/tiny_gguf.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: write_tiny_gguf PATH [--seed N] [--unigram] [--name NAME] [--architecture ARCH]\n");
    return 2;
  }
  cilia::testing::TinyBertSpec spec;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--seed" && has_value) {
      spec.seed = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (arg == "--unigram") {
      spec.tokenizer = cilia::testing::TinyTokenizer::kUnigram;
    } else if (arg == "--name" && has_value) {
      spec.name = argv[++i];
    } else if (arg == "--architecture" && has_value) {
      spec.architecture = argv[++i];
    } else {
      std::fprintf(stderr, "write_tiny_gguf: unknown argument %s\n", arg.c_str());
      return 2;
    }
  }
  if (!cilia::testing::WriteTinyBert(argv[1], spec)) {
    std::fprintf(stderr, "write_tiny_gguf: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
