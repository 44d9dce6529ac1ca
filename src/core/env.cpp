#include "core/env.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <mutex>

namespace cilia {

namespace {

std::atomic<Env*> g_installed{nullptr};
std::mutex g_observer_mu;  // faults are rare: a lock costs nothing
std::function<void(Code)> g_observer;

Status ErrnoStatus(int error, std::string_view what, const std::string& path) {
  std::string message = fmt::format("{} {}: {}", what, path, std::strerror(error));
  if (error == ENOSPC || error == EDQUOT) return Status::DiskFull(std::move(message));
  return Status::IOError(std::move(message));
}

Status WriteAll(Env& env, int fd, std::string_view bytes, const std::string& path) {
  CILIA_RETURN_IF_ERROR(env.BeforeDiskOp(DiskOp::kWrite, path));
  while (!bytes.empty()) {
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoStatus(errno, "write", path);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status Sync(Env& env, int fd, const std::string& path) {
  CILIA_RETURN_IF_ERROR(env.BeforeDiskOp(DiskOp::kSync, path));
  if (fsync(fd) != 0) return ErrnoStatus(errno, "fsync", path);
  return Status::Ok();
}

Status WriteAndSync(Env& env, const std::string& tmp, std::string_view bytes) {
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoStatus(errno, "create", tmp);
  Status st = WriteAll(env, fd, bytes, tmp);
  if (st.ok()) st = Sync(env, fd, tmp);
  if (close(fd) != 0 && st.ok()) st = ErrnoStatus(errno, "close", tmp);
  return st;
}

Status SyncFolder(Env& env, const std::string& path) {
  const std::string folder = std::filesystem::path(path).parent_path().string();
  const int fd = open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus(errno, "open", folder);
  Status st = Sync(env, fd, folder);
  close(fd);
  return st;
}

}  // namespace

Status Env::BeforeDiskOp(DiskOp, std::string_view) { return Status::Ok(); }

Status Env::WriteFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  Status st = WriteAndSync(*this, tmp, bytes);
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0) st = ErrnoStatus(errno, "rename", tmp);
  if (!st.ok()) {
    unlink(tmp.c_str());
    return ReportDiskFault(st);
  }
  // The rename is durable only once the folder is: a failure here leaves
  // the whole file in place (or none after a crash), never a part of it.
  return ReportDiskFault(SyncFolder(*this, path));
}

Env& Env::Current() {
  static Env real;
  Env* installed = g_installed.load(std::memory_order_acquire);
  return installed ? *installed : real;
}

void Env::SetCurrentForTesting(Env* env) { g_installed.store(env, std::memory_order_release); }

void SetDiskFaultObserver(std::function<void(Code)> observer) {
  std::lock_guard lock(g_observer_mu);
  g_observer = std::move(observer);
}

Status ReportDiskFault(Status status) {
  const Code code = status.code();
  if (code == Code::kDiskFull || code == Code::kIOError || code == Code::kBusy) {
    std::lock_guard lock(g_observer_mu);
    if (g_observer) g_observer(code);
  }
  return status;
}

}  // namespace cilia
