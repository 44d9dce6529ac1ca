#include "store/vfs.h"

#include <sqlite3.h>

#include <cstring>
#include <mutex>
#include <string>

#include "core/env.h"

namespace cilia::store {

namespace {

constexpr char kName[] = "cilia";

sqlite3_vfs* g_base = nullptr;
sqlite3_vfs g_vfs;

// Our file: SQLite's own file right behind it, and the path for the Env.
struct File {
  sqlite3_file base;
  sqlite3_file* real;
  const char* path;
};

sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

// The Env's verdict on `op` as a SQLite result code.
int Ask(sqlite3_file* f, DiskOp op, int io_error) {
  const char* path = reinterpret_cast<File*>(f)->path;
  const Status st = Env::Current().BeforeDiskOp(op, path ? path : "");
  if (st.ok()) return SQLITE_OK;
  if (st.code() == Code::kDiskFull) return SQLITE_FULL;
  if (st.code() == Code::kBusy) return SQLITE_BUSY;
  return io_error;
}

int Close(sqlite3_file* f) {
  int rc = Real(f)->pMethods ? Real(f)->pMethods->xClose(Real(f)) : SQLITE_OK;
  sqlite3_free(Real(f));
  return rc;
}
int Read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  return Real(f)->pMethods->xRead(Real(f), buffer, amount, offset);
}
int Write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) {
  if (int rc = Ask(f, DiskOp::kWrite, SQLITE_IOERR_WRITE); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xWrite(Real(f), buffer, amount, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (int rc = Ask(f, DiskOp::kWrite, SQLITE_IOERR_TRUNCATE); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (int rc = Ask(f, DiskOp::kSync, SQLITE_IOERR_FSYNC); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xSync(Real(f), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) { return Real(f)->pMethods->xFileSize(Real(f), size); }
int Lock(sqlite3_file* f, int level) {
  if (int rc = Ask(f, DiskOp::kLock, SQLITE_IOERR_LOCK); rc != SQLITE_OK) return rc;
  return Real(f)->pMethods->xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReservedLock(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int FileControl(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, out);
}
// In WAL mode the file lock is taken once; contention is on the WAL's
// exclusive locks (the writer's above all), which SQLite's busy handler
// waits for. Shared (reader) locks are not asked: SQLite retries those for
// seconds on its own, past any busy timeout.
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  if ((flags & SQLITE_SHM_LOCK) && (flags & SQLITE_SHM_EXCLUSIVE)) {
    if (int rc = Ask(f, DiskOp::kLock, SQLITE_IOERR_SHMLOCK); rc != SQLITE_OK) return rc;
  }
  return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int delete_flag) { return Real(f)->pMethods->xShmUnmap(Real(f), delete_flag); }
int Fetch(sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
  return Real(f)->pMethods->xFetch(Real(f), offset, amount, out);
}
int Unfetch(sqlite3_file* f, sqlite3_int64 offset, void* page) {
  return Real(f)->pMethods->xUnfetch(Real(f), offset, page);
}

// Version 3 methods; those the real file lacks (an older version) are left out.
sqlite3_io_methods MethodsFor(const sqlite3_io_methods* real) {
  sqlite3_io_methods m{};
  m.iVersion = real->iVersion;
  m.xClose = Close;
  m.xRead = Read;
  m.xWrite = Write;
  m.xTruncate = Truncate;
  m.xSync = Sync;
  m.xFileSize = FileSize;
  m.xLock = Lock;
  m.xUnlock = Unlock;
  m.xCheckReservedLock = CheckReservedLock;
  m.xFileControl = FileControl;
  m.xSectorSize = SectorSize;
  m.xDeviceCharacteristics = DeviceCharacteristics;
  if (real->iVersion >= 2) {
    m.xShmMap = ShmMap;
    m.xShmLock = ShmLock;
    m.xShmBarrier = ShmBarrier;
    m.xShmUnmap = ShmUnmap;
  }
  if (real->iVersion >= 3) {
    m.xFetch = Fetch;
    m.xUnfetch = Unfetch;
  }
  return m;
}

// One table of methods per version of the real file's.
const sqlite3_io_methods* Wrapped(const sqlite3_io_methods* real) {
  static sqlite3_io_methods by_version[4];
  static std::once_flag once[4];
  const int v = real->iVersion < 1 ? 1 : real->iVersion > 3 ? 3 : real->iVersion;
  std::call_once(once[v], [&] { by_version[v] = MethodsFor(real); });
  return &by_version[v];
}

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = reinterpret_cast<File*>(f);
  file->base.pMethods = nullptr;
  file->path = name;  // SQLite keeps the name alive while the file is open
  file->real = static_cast<sqlite3_file*>(sqlite3_malloc(g_base->szOsFile));
  if (!file->real) return SQLITE_NOMEM;
  std::memset(file->real, 0, static_cast<size_t>(g_base->szOsFile));
  int rc = g_base->xOpen(g_base, name, file->real, flags, out_flags);
  if (rc != SQLITE_OK || !file->real->pMethods) {
    if (file->real->pMethods) file->real->pMethods->xClose(file->real);
    sqlite3_free(file->real);
    file->real = nullptr;
    return rc == SQLITE_OK ? SQLITE_CANTOPEN : rc;
  }
  file->base.pMethods = Wrapped(file->real->pMethods);
  return SQLITE_OK;
}

}  // namespace

const char* CiliaVfsName() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_base = sqlite3_vfs_find(nullptr);
    g_vfs = *g_base;  // everything but opening a file is SQLite's own
    g_vfs.zName = kName;
    g_vfs.szOsFile = static_cast<int>(sizeof(File));
    g_vfs.xOpen = Open;
    g_vfs.pNext = nullptr;
    sqlite3_vfs_register(&g_vfs, /*makeDflt=*/0);
  });
  return kName;
}

}  // namespace cilia::store
