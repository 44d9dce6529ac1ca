// This process among the gateways that share a store: host, pid, and a
// random part that tells it from an earlier process that had the same pid.
// Job claims name their holder with it, and the change log its writers.
#pragma once

#include <string>

namespace cilia {

// "host:pid:random8hex", the same for the whole life of the process.
const std::string& ProcessIdentity();

}  // namespace cilia
