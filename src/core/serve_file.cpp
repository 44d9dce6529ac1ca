#include "core/serve_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/data_dir_lock.h"
#include "core/json_read.h"

namespace cilia {

namespace {

constexpr char kServeFile[] = "serve.json";
constexpr char kServeCommand[] = "cilia serve";

std::string ServePath(const std::string& data_dir) { return data_dir + "/" + kServeFile; }

// The file's contents, or nullopt when it is absent or not of our shape.
std::optional<ServeInfo> ReadServeFile(const std::string& data_dir) {
  std::ifstream in(ServePath(data_dir), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  auto parsed = json::ParseJsonText(text.str());
  if (!parsed.ok() || !parsed->is_object()) return std::nullopt;
  const auto pid = parsed->find("pid");
  const auto url = parsed->find("url");
  if (pid == parsed->end() || !pid->is_number_integer() || url == parsed->end() || !url->is_string()) {
    return std::nullopt;
  }
  return ServeInfo{pid->get<int64_t>(), url->get<std::string>()};
}

}  // namespace

std::string LocalUrlFor(const ListenAddress& address) {
  std::string host = address.host;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return fmt::format("http://{}:{}", host, address.port);
}

Status WriteServeFile(const std::string& data_dir, const ServeInfo& info) {
  const std::string path = ServePath(data_dir);
  const std::string temporary = fmt::format("{}.{}.tmp", path, getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << nlohmann::json{{"pid", info.pid}, {"url", info.url}}.dump() << '\n';
    out.flush();
    if (!out) return Status::IOError("write " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary, ec);
    return Status::IOError(fmt::format("rename {} to {}: {}", temporary, path, ec.message()));
  }
  return Status::Ok();
}

void RemoveServeFile(const std::string& data_dir) {
  std::error_code ec;
  std::filesystem::remove(ServePath(data_dir), ec);
}

Result<std::optional<ServeInfo>> FindRunningServer(const std::string& data_dir) {
  std::optional<DataDirHolderInfo> holder = FindDataDirHolder(data_dir);
  if (!holder || holder->command != kServeCommand) return std::optional<ServeInfo>();
  std::optional<ServeInfo> info = ReadServeFile(data_dir);
  if (!info || info->pid != holder->pid) {
    return Status::Busy(fmt::format(
        "data dir {} is held by `cilia serve` (pid {}), which has not said where it listens yet ({}/{}); try again "
        "once it is listening",
        data_dir, holder->pid, data_dir, kServeFile));
  }
  return info;
}

}  // namespace cilia
