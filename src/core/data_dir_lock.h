// Who holds a data dir. `cilia serve` holds DATA/serve.lock (an flock, gone
// when the process dies, however it dies) for as long as it runs, and so does
// every writing CLI command while it writes; a second holder is refused with
// a message naming the first one and its pid. Reading commands take no lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace cilia {

class DataDirLock {
 public:
  // Takes the lock of `data_dir` (which must exist) for `holder`, the command
  // that asks, e.g. "cilia serve" or "cilia ingest". When someone else holds
  // it: Busy, e.g. "data dir ./data is in use by a running `cilia serve`
  // (pid 4242); use the HTTP API".
  static Result<DataDirLock> Acquire(const std::string& data_dir, std::string_view holder);

  DataDirLock(DataDirLock&& other) noexcept;
  DataDirLock& operator=(DataDirLock&& other) noexcept;
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;
  ~DataDirLock();  // releases the lock

 private:
  explicit DataDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// Who holds `data_dir` now: its pid (0 while the holder is still writing its
// record) and its command ("cilia serve"), or nullopt when nobody holds it.
// Takes nothing.
struct DataDirHolderInfo {
  int64_t pid = 0;
  std::string command;
};
std::optional<DataDirHolderInfo> FindDataDirHolder(const std::string& data_dir);

// Describes the current holder of `data_dir` ("`cilia serve` (pid 4242)"),
// or returns "" when nobody holds it. Takes nothing.
std::string DataDirHolder(const std::string& data_dir);

}  // namespace cilia
