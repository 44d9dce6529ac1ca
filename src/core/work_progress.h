// How far a piece of background work is (a job's run): the worker sets the
// total and counts what it has done; any thread may read a snapshot at any
// time (GET /v1/jobs shows the runs in progress). Counts only: what a count
// means is the worker's `unit` ("messages", "days").
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "core/thread_annotations.h"
#include "core/time.h"

namespace cilia {

class WorkProgress {
 public:
  struct Snapshot {
    int64_t done = 0;
    int64_t total = 0;  // 0: not known yet
    std::string unit;
    int64_t tokens = 0;     // model tokens spent so far (input and output)
    UnixMs updated_at = 0;  // 0: nothing reported yet
  };

  // Starts counting `total` `unit`s from zero.
  void Begin(int64_t total, std::string_view unit, UnixMs now);
  // `n` more done (the total grows with them when they pass it).
  void Advance(int64_t n, UnixMs now);
  void AddTokens(int64_t tokens, UnixMs now);
  Snapshot Read() const;

 private:
  mutable std::mutex mu_;
  Snapshot s_ CILIA_GUARDED_BY(mu_);
};

}  // namespace cilia
