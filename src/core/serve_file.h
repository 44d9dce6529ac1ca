// Where a running `cilia serve` listens, so that the CLI beside it can do its
// work through the server instead of refusing (docs/cli.md).
//
// Once it listens, serve writes DATA/serve.json,
//   {"pid": 4242, "url": "http://127.0.0.1:8420"}
// (a wildcard listen address is written as loopback), and removes it when it
// stops cleanly. A file a killed server left behind is never trusted by
// itself: the server it names must also hold the data dir's lock
// (data_dir_lock.h) under the same pid. The flock goes with the process, so
// a dead pid can never pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/config.h"
#include "core/status.h"

namespace cilia {

struct ServeInfo {
  int64_t pid = 0;
  std::string url;  // "http://127.0.0.1:8420", no trailing slash
};

// The URL a client on this machine reaches `address` at: 0.0.0.0 and ::
// become 127.0.0.1 and [::1]; an IPv6 host is bracketed.
std::string LocalUrlFor(const ListenAddress& address);

// Writes DATA/serve.json for this process, atomically (a temporary file
// renamed over it), so that a reader never sees half of it.
Status WriteServeFile(const std::string& data_dir, const ServeInfo& info);
// Removes DATA/serve.json; nothing when it is not there.
void RemoveServeFile(const std::string& data_dir);

// The `cilia serve` that holds `data_dir` now:
// - nullopt when nobody holds the data dir (a serve.json left behind is
//   ignored), or another command does (its lock refuses the caller);
// - the server's pid and URL when `cilia serve` holds it and serve.json
//   names that pid;
// - Busy when `cilia serve` holds it but has not written serve.json yet (it
//   is still starting) or the file names another pid.
Result<std::optional<ServeInfo>> FindRunningServer(const std::string& data_dir);

}  // namespace cilia
