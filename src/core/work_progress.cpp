#include "core/work_progress.h"

#include <algorithm>

namespace cilia {

void WorkProgress::Begin(int64_t total, std::string_view unit, UnixMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.done = 0;
  s_.total = std::max<int64_t>(0, total);
  s_.unit = std::string(unit);
  s_.updated_at = now;
}

void WorkProgress::Advance(int64_t n, UnixMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.done += n;
  // An estimate of the total may fall short; the count never runs past it.
  if (s_.total > 0) s_.total = std::max(s_.total, s_.done);
  s_.updated_at = now;
}

void WorkProgress::AddTokens(int64_t tokens, UnixMs now) {
  std::lock_guard<std::mutex> lock(mu_);
  s_.tokens += tokens;
  s_.updated_at = now;
}

WorkProgress::Snapshot WorkProgress::Read() const {
  std::lock_guard<std::mutex> lock(mu_);
  return s_;
}

}  // namespace cilia
