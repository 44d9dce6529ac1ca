#include "core/status.h"

namespace cilia {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kUnauthenticated: return "unauthenticated";
    case Code::kPermissionDenied: return "permission_denied";
    case Code::kNotFound: return "not_found";
    case Code::kConflict: return "conflict";
    case Code::kTooLarge: return "too_large";
    case Code::kBusy: return "busy";
    case Code::kDiskFull: return "disk_full";
    case Code::kUnavailable: return "unavailable";
    case Code::kTimeout: return "timeout";
    case Code::kIOError: return "io_error";
    case Code::kInternal: return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(CodeName(code_)) + ": " + message_;
}

}  // namespace cilia
