// The seam through which code asks what time it is, so tests can fix "now".
#pragma once

#include <atomic>

#include "core/time.h"

namespace cilia {

class Clock {
 public:
  virtual ~Clock();
  virtual UnixMs Now() const = 0;
  // The real wall clock (UTC); lives for the whole program.
  static const Clock& System();
};

// A clock that reads whatever it was last set to; safe to set from one thread
// while others read.
class FakeClock : public Clock {
 public:
  explicit FakeClock(UnixMs now = 0) : now_(now) {}
  UnixMs Now() const override { return now_.load(std::memory_order_relaxed); }
  void Set(UnixMs now) { now_.store(now, std::memory_order_relaxed); }
  void Advance(int64_t ms) { now_.fetch_add(ms, std::memory_order_relaxed); }

 private:
  std::atomic<UnixMs> now_;
};

}  // namespace cilia
