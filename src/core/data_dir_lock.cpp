#include "core/data_dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>

namespace cilia {

namespace {

constexpr char kLockFile[] = "serve.lock";
constexpr std::string_view kServeHolder = "cilia serve";

std::string LockPath(const std::string& data_dir) { return data_dir + "/" + kLockFile; }

// The file holds "<pid> <holder>\n", written by whoever has the lock.
std::string ReadHolderRecord(int fd) {
  char buffer[256];
  ssize_t n = pread(fd, buffer, sizeof(buffer) - 1, 0);
  if (n <= 0) return "";
  std::string record(buffer, static_cast<size_t>(n));
  while (!record.empty() && (record.back() == '\n' || record.back() == ' ')) record.pop_back();
  return record;
}

// "4242 cilia serve" -> {4242, "cilia serve"}; a record being written at
// this very moment may still be empty.
DataDirHolderInfo ParseHolderRecord(const std::string& record) {
  DataDirHolderInfo info;
  size_t space = record.find(' ');
  if (space == std::string::npos) return info;
  auto [end, error] = std::from_chars(record.data(), record.data() + space, info.pid);
  if (error != std::errc() || end != record.data() + space) return DataDirHolderInfo{};
  info.command = record.substr(space + 1);
  return info;
}

std::string DescribeHolder(const DataDirHolderInfo& holder) {
  if (holder.pid == 0) return "another cilia process (pid unknown)";
  return fmt::format("`{}` (pid {})", holder.command, holder.pid);
}

Status BusyStatus(const std::string& data_dir, int fd) {
  DataDirHolderInfo holder = ParseHolderRecord(ReadHolderRecord(fd));
  std::string hint = holder.command == kServeHolder ? "use the HTTP API" : "try again when it has finished";
  return Status::Busy(fmt::format("data dir {} is in use by a running {}; {}", data_dir, DescribeHolder(holder), hint));
}

}  // namespace

Result<DataDirLock> DataDirLock::Acquire(const std::string& data_dir, std::string_view holder) {
  std::string path = LockPath(data_dir);
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(fmt::format("open {}: {}", path, std::strerror(errno)));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int error = errno;
    Status status = error == EWOULDBLOCK ? BusyStatus(data_dir, fd)
                                         : Status::IOError(fmt::format("lock {}: {}", path, std::strerror(error)));
    close(fd);
    return status;
  }
  DataDirLock lock(fd);
  std::string record = fmt::format("{} {}\n", getpid(), holder);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, record.data(), record.size(), 0) != static_cast<ssize_t>(record.size())) {
    return Status::IOError(fmt::format("write {}: {}", path, std::strerror(errno)));
  }
  return lock;
}

DataDirLock::DataDirLock(DataDirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

DataDirLock& DataDirLock::operator=(DataDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

DataDirLock::~DataDirLock() {
  // Closing the last descriptor releases the flock; the file stays, since
  // removing a lock file races with the next process opening it.
  if (fd_ >= 0) close(fd_);
}

std::optional<DataDirHolderInfo> FindDataDirHolder(const std::string& data_dir) {
  int fd = open(LockPath(data_dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<DataDirHolderInfo> holder;
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
  } else {
    holder = ParseHolderRecord(ReadHolderRecord(fd));
  }
  close(fd);
  return holder;
}

std::string DataDirHolder(const std::string& data_dir) {
  std::optional<DataDirHolderInfo> holder = FindDataDirHolder(data_dir);
  return holder ? DescribeHolder(*holder) : "";
}

}  // namespace cilia
