#include "api/route_support.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

namespace cilia::api {

Result<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback, int64_t lo, int64_t hi) {
  if (!req.has_param(name)) return fallback;
  const std::string value = req.get_param_value(name);
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(value.c_str(), &end, 10);
  // strtoll skips leading spaces and takes a sign; only plain digits count.
  bool digits = !value.empty() && (value[0] == '-' || (value[0] >= '0' && value[0] <= '9'));
  if (!digits || *end != '\0' || errno == ERANGE || n < lo || n > hi) {
    return Status::InvalidArgument(fmt::format("{}: must be an integer {}..{}, got \"{}\"", name, lo, hi, value));
  }
  return static_cast<int64_t>(n);
}

Result<bool> BoolParam(const httplib::Request& req, const char* name, bool fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string value = req.get_param_value(name);
  if (value == "true") return true;
  if (value == "false") return false;
  return Status::InvalidArgument(fmt::format("{}: must be true or false, got \"{}\"", name, value));
}

}  // namespace cilia::api
