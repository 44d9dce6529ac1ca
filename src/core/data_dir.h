// The data dir holds every conversation: only its owner may read it.
#pragma once

#include <string>

#include "core/status.h"

namespace cilia {

// Creates `data_dir` when missing and makes it private. The process umask
// becomes 077, so everything created from then on (databases, their WAL and
// shared memory, images, keys) is 0700/0600; an existing dir or entry below
// it that group or others may use is tightened to 0700/0600, with a warning
// saying how many. Symlinks are left alone.
Status PrepareDataDir(const std::string& data_dir);

}  // namespace cilia
