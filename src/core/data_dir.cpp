#include "core/data_dir.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "core/log.h"

namespace cilia {

namespace fs = std::filesystem;

namespace {

constexpr fs::perms kGroupOrOthers = fs::perms::group_all | fs::perms::others_all;

// Drops group and other bits of one entry; true when there were some.
Result<bool> Tighten(const fs::path& path, const fs::file_status& status) {
  if ((status.permissions() & kGroupOrOthers) == fs::perms::none) return false;
  std::error_code ec;
  fs::permissions(path, kGroupOrOthers, fs::perm_options::remove | fs::perm_options::nofollow, ec);
  if (ec) return Status::IOError("make " + path.string() + " private: " + ec.message());
  return true;
}

}  // namespace

Status PrepareDataDir(const std::string& data_dir) {
  umask(077);
  std::error_code ec;
  fs::create_directories(data_dir, ec);
  if (ec) return Status::IOError("create data dir " + data_dir + ": " + ec.message());
  int tightened = 0;
  CILIA_ASSIGN_OR_RETURN(bool dir_was_open, Tighten(data_dir, fs::status(data_dir, ec)));
  tightened += dir_was_open;
  for (auto it = fs::recursive_directory_iterator(data_dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    if (ec || fs::is_symlink(status)) continue;
    CILIA_ASSIGN_OR_RETURN(bool was_open, Tighten(it->path(), status));
    tightened += was_open;
  }
  if (ec) return Status::IOError("read data dir " + data_dir + ": " + ec.message());
  if (tightened > 0) {
    LogWarn("data dir {}: {} entr{} could be read by other users; now only the owner can (0700 folders, 0600 files)",
            data_dir, tightened, tightened == 1 ? "y" : "ies");
  }
  return Status::Ok();
}

}  // namespace cilia
