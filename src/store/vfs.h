// The SQLite VFS every cilia database is opened with: SQLite's own default
// VFS, with each write, sync and lock first asking Env::Current() (the
// fault seam of core/env.h). On the real disk that answer is always yes.
#pragma once

namespace cilia::store {

// The VFS's name for sqlite3_open_v2; registered on first use.
const char* CiliaVfsName();

}  // namespace cilia::store
