#include "api/rate_limit.h"

#include <algorithm>
#include <cmath>

namespace cilia::api {

RateLimiter::RateLimiter(int64_t requests_per_minute, int64_t tokens_per_minute, const Clock& clock)
    : requests_per_minute_(requests_per_minute), tokens_per_minute_(tokens_per_minute), clock_(clock) {}

std::optional<int64_t> RateLimiter::TakeRequest(const std::string& key) {
  if (requests_per_minute_ <= 0) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  return Take(requests_[key], requests_per_minute_, 1);
}

std::optional<int64_t> RateLimiter::TakeTokens(const std::string& key, int64_t tokens) {
  if (tokens_per_minute_ <= 0 || tokens <= 0) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  return Take(tokens_[key], tokens_per_minute_, std::min(tokens, tokens_per_minute_));
}

std::optional<int64_t> RateLimiter::Take(Bucket& bucket, int64_t per_minute, int64_t amount) {
  const UnixMs now = clock_.Now();
  const double capacity = static_cast<double>(per_minute);
  const double per_ms = capacity / 60'000.0;
  if (!bucket.started) {
    bucket = Bucket{capacity, now, true};
  } else if (now > bucket.at) {
    bucket.level = std::min(capacity, bucket.level + static_cast<double>(now - bucket.at) * per_ms);
    bucket.at = now;
  }
  const double wanted = static_cast<double>(amount);
  if (bucket.level >= wanted) {
    bucket.level -= wanted;
    return std::nullopt;
  }
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil((wanted - bucket.level) / per_ms / 1000.0)));
}

}  // namespace cilia::api
