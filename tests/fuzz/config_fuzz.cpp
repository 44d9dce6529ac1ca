// cilia.toml as LoadConfig reads it (from a file: that is its only door).
// Any file is a Config or an InvalidArgument, never a crash.
#include <unistd.h>

#include <fstream>
#include <string>

#include "core/config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cilia;
  static const std::string path = "/tmp/cilia-config-fuzz-" + std::to_string(getpid()) + ".toml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ConfigSources sources;
  sources.file = path;
  auto config = LoadConfig(sources);
  if (!config.ok()) {
    fuzz::Require(config.status().code() == Code::kInvalidArgument || config.status().code() == Code::kIOError,
                  "a bad config is InvalidArgument");
  }
  const std::string_view text = fuzz::Input(data, size);
  (void)ParseTimeOfDay(text);
  (void)ParseListenAddress(text);
  return 0;
}
