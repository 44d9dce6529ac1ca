// Status and Result: how errors cross module lines. Library exceptions are
// caught at the edge of the module that calls the library and turned into one
// of these; nothing above the edge throws.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace cilia {

enum class Code {
  kOk = 0,
  kInvalidArgument,  // the caller sent something wrong (HTTP 400)
  kUnauthenticated,  // no or bad key (401)
  kPermissionDenied, // key lacks the scope (403)
  kNotFound,         // (404)
  kConflict,         // e.g. same message id with other content (409)
  kTooLarge,         // body over the limit (413)
  kBusy,             // the data dir is held by another process, or a lock timed out (503)
  kDiskFull,         // no room left on the disk: nothing of the write was kept (507)
  kUnavailable,      // an upstream could not be reached (502)
  kTimeout,          // an upstream did not answer in time (504)
  kIOError,          // disk or database trouble (500)
  kInternal,         // a bug (500)
};

const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {Code::kPermissionDenied, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status Conflict(std::string m) { return {Code::kConflict, std::move(m)}; }
  static Status TooLarge(std::string m) { return {Code::kTooLarge, std::move(m)}; }
  static Status Busy(std::string m) { return {Code::kBusy, std::move(m)}; }
  static Status DiskFull(std::string m) { return {Code::kDiskFull, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status Timeout(std::string m) { return {Code::kTimeout, std::move(m)}; }
  static Status IOError(std::string m) { return {Code::kIOError, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Prefixes the message with context, keeping the code.
  Status With(const std::string& context) const {
    return ok() ? *this : Status(code_, context + ": " + message_);
  }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}           // NOLINT: implicit by design
  Result(Status status) : data_(std::move(status)) {}    // NOLINT: must not be ok

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace cilia

// Returns early from the enclosing function when a Status is not ok.
#define CILIA_RETURN_IF_ERROR(expr)           \
  do {                                        \
    ::cilia::Status _st = (expr);             \
    if (!_st.ok()) return _st;                \
  } while (0)

#define CILIA_CONCAT_INNER(a, b) a##b
#define CILIA_CONCAT(a, b) CILIA_CONCAT_INNER(a, b)
// Declares `lhs` from a Result, or returns its Status.
#define CILIA_ASSIGN_OR_RETURN(lhs, expr)                          \
  auto CILIA_CONCAT(_res_, __LINE__) = (expr);                     \
  if (!CILIA_CONCAT(_res_, __LINE__).ok())                         \
    return CILIA_CONCAT(_res_, __LINE__).status();                 \
  lhs = std::move(CILIA_CONCAT(_res_, __LINE__)).value()
