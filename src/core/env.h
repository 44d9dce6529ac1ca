// The disk under cilia's data (LevelDB's Env idea, cut to what cilia needs).
// Every write that must survive passes this seam: the image files through
// WriteFileAtomically, the databases through the SQLite VFS in store/vfs.h.
// A test installs an Env that makes the disk full, an fsync fail, a lock busy
// or the disk slow, and sees each failure come out as a clear Status with
// nothing half-written.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace cilia {

enum class DiskOp { kWrite, kSync, kLock };

class Env {
 public:
  virtual ~Env() = default;

  // Asked before each write, fsync and database lock of `path`: a Status
  // that is not ok fails that operation (kDiskFull, kIOError or kBusy). It
  // may also sleep, as a slow disk would. The real disk says ok.
  virtual Status BeforeDiskOp(DiskOp op, std::string_view path);

  // `bytes` into `path`, whole or not at all: a temporary file beside it is
  // written and fsynced, renamed over `path`, and the folder fsynced. A full
  // disk is kDiskFull; on any failure the temporary file is gone.
  Status WriteFileAtomically(const std::string& path, std::string_view bytes);

  // The Env in use: the real disk unless a test installed another.
  static Env& Current();
  // Installs `env` for the whole process (nullptr: the real disk again).
  static void SetCurrentForTesting(Env* env);
};

// Every Status made from a disk or database error (kDiskFull, kIOError,
// kBusy) is reported once, where it is made, to the observer: `cilia serve`
// counts them in cilia_disk_faults_total{kind}. None by default.
void SetDiskFaultObserver(std::function<void(Code)> observer);
// Reports `status` when it is one of those kinds, and returns it.
Status ReportDiskFault(Status status);

}  // namespace cilia
