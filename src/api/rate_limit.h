// Rate limits per API key (server.rate_limit_*; off by default): requests
// per minute, and the tokens of chat request bodies per minute, each a
// bucket that holds a minute's allowance and refills evenly over the minute.
// A request that finds a bucket short is refused with 429 and Retry-After.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/clock.h"
#include "core/thread_annotations.h"

namespace cilia::api {

class RateLimiter {
 public:
  // 0 turns a limit off. `clock` must outlive the limiter.
  RateLimiter(int64_t requests_per_minute, int64_t tokens_per_minute, const Clock& clock);

  bool enabled() const { return requests_per_minute_ > 0 || tokens_per_minute_ > 0; }

  // Takes one request from `key`'s allowance: nullopt when there was one,
  // else the whole seconds until there is.
  std::optional<int64_t> TakeRequest(const std::string& key);
  // Takes `tokens` (more than a minute's allowance counts as one minute's);
  // nullopt when they were there, else the seconds until they are.
  std::optional<int64_t> TakeTokens(const std::string& key, int64_t tokens);

  int64_t requests_per_minute() const { return requests_per_minute_; }
  int64_t tokens_per_minute() const { return tokens_per_minute_; }

 private:
  struct Bucket {
    double level = 0;  // what is left, in units of the limit
    UnixMs at = 0;     // when `level` was true
    bool started = false;
  };
  std::optional<int64_t> Take(Bucket& bucket, int64_t per_minute, int64_t amount);

  const int64_t requests_per_minute_;
  const int64_t tokens_per_minute_;
  const Clock& clock_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> requests_ CILIA_GUARDED_BY(mu_);
  std::unordered_map<std::string, Bucket> tokens_ CILIA_GUARDED_BY(mu_);
};

}  // namespace cilia::api
