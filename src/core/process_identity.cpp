#include "core/process_identity.h"

#include <fmt/format.h>
#include <unistd.h>

#include <random>

namespace cilia {

const std::string& ProcessIdentity() {
  static const std::string* const identity = [] {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    return new std::string(fmt::format("{}:{}:{:08x}", host, getpid(), std::random_device{}()));
  }();
  return *identity;
}

}  // namespace cilia
