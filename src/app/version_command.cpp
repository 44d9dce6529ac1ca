#include <cstdio>

#include "app/commands.h"
#include "core/version.h"

namespace cilia::app {

int RunVersion(const CommandLine&) {
  std::printf("cilia %s\n", kVersion);
  return kExitOk;
}

}  // namespace cilia::app
