#include "app/server_link.h"

#include <fmt/format.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "api/http_util.h"
#include "core/json_read.h"
#include "net/http_client.h"

namespace cilia::app {

namespace {

constexpr int kConnectTimeoutMs = 5000;

net::HttpRequest RequestTo(const ServerLink& link, std::string method, const std::string& path, std::string body,
                           Progress* progress) {
  net::HttpRequest request;
  request.method = std::move(method);
  request.url = link.serve.url + path;
  request.headers = {{"Authorization", "Bearer " + link.key}};
  if (!body.empty()) request.headers.emplace_back("Content-Type", "application/octet-stream");
  request.body = std::move(body);
  request.connect_timeout_ms = kConnectTimeoutMs;
  request.first_byte_timeout_ms = 0;
  request.idle_timeout_ms = 0;
  if (progress) {
    request.cancelled = [progress] {
      progress->Tick();
      return false;
    };
  }
  return request;
}

// The server's error as a Status: its message (OpenAI-shaped errors), or the
// start of the body when it is not one.
Status ServerError(long status, const std::string& body) {
  std::string message = body.substr(0, 300);
  auto parsed = cilia::json::ParseJsonText(body);
  if (parsed.ok() && parsed->is_object()) {
    const nlohmann::json& error = parsed->value("error", nlohmann::json());
    if (error.is_object() && error.value("message", nlohmann::json()).is_string()) {
      message = error["message"].get<std::string>();
    }
  }
  return Status(api::CodeForHttpStatus(static_cast<int>(status)),
                fmt::format("the server answered {}: {}", status, message));
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string AdminKeyFor(const Config& config) {
  std::ifstream in(config.server.data_dir + "/admin.key");
  std::string key;
  if (in && std::getline(in, key) && !Trimmed(key).empty()) return Trimmed(key);
  return config.client_api_key;
}

std::string PercentEncode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Result<std::optional<ServerLink>> FindServerLink(const Config& config, std::string_view name_space,
                                                 std::string_view doing) {
  const std::string& data_dir = config.server.data_dir;
  CILIA_ASSIGN_OR_RETURN(std::optional<ServeInfo> serve, FindRunningServer(data_dir));
  if (!serve) return std::optional<ServerLink>();
  const std::string where = fmt::format("`cilia serve` (pid {}) holds {}", serve->pid, data_dir);
  ServerLink link{*serve, AdminKeyFor(config)};
  if (link.key.empty()) {
    return Status::Unauthenticated(fmt::format(
        "{}, and there is no key to reach it with: {}/admin.key is missing and CILIA_API_KEY is not set; set "
        "CILIA_API_KEY to an admin key of namespace \"{}\", or stop the server",
        where, data_dir, name_space));
  }
  auto who = CallServerJson(link, "GET", "/v1/whoami", "");
  if (!who.ok()) return who.status().With(fmt::format("{}; reaching it at {}", where, serve->url));
  const std::string key_namespace = who->value("namespace", "");
  if (key_namespace != name_space) {
    return Status::InvalidArgument(fmt::format(
        "{}; its admin key is for namespace \"{}\", and a key reaches only its own namespace: stop the server to "
        "work on \"{}\" directly, or set CILIA_API_KEY to an admin key of \"{}\"",
        where, key_namespace, name_space, name_space));
  }
  const nlohmann::json scopes = who->value("scopes", nlohmann::json::array());
  if (std::find(scopes.begin(), scopes.end(), "admin") == scopes.end()) {
    return Status::PermissionDenied(
        fmt::format("{}; the key in use lacks the admin scope, which the CLI needs to work through it", where));
  }
  std::fprintf(stderr, "cilia: %s; %s through it at %s\n", where.c_str(), std::string(doing).c_str(),
               serve->url.c_str());
  return std::optional<ServerLink>(std::move(link));
}

Result<std::string> CallServer(const ServerLink& link, std::string method, const std::string& path, std::string body,
                               Progress* progress) {
  CILIA_ASSIGN_OR_RETURN(net::HttpResponse response,
                         net::Send(RequestTo(link, std::move(method), path, std::move(body), progress)));
  if (response.status < 200 || response.status >= 300) return ServerError(response.status, response.body);
  return std::move(response.body);
}

Result<nlohmann::json> CallServerJson(const ServerLink& link, std::string method, const std::string& path,
                                      std::string body, Progress* progress) {
  CILIA_ASSIGN_OR_RETURN(std::string reply, CallServer(link, std::move(method), path, std::move(body), progress));
  CILIA_ASSIGN_OR_RETURN(nlohmann::json parsed, cilia::json::ParseJsonText(reply));
  return parsed;
}

Status DownloadFromServer(const ServerLink& link, const std::string& path, std::ostream& out, Progress* progress) {
  long status = 0;
  int64_t total = 0, done = 0;
  std::string error_body;
  auto on_head = [&](long code, const net::Headers& headers) {
    status = code;
    for (const auto& [name, value] : headers) {
      if (strcasecmp(name.c_str(), "Content-Length") == 0) total = std::strtoll(value.c_str(), nullptr, 10);
    }
    return true;
  };
  auto on_data = [&](std::string_view chunk) {
    if (status < 200 || status >= 300) {
      error_body.append(chunk);
      return true;
    }
    out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    done += static_cast<int64_t>(chunk.size());
    if (progress) progress->Update(done, total, "bytes");
    return static_cast<bool>(out);
  };
  CILIA_ASSIGN_OR_RETURN(net::StreamResult result,
                         net::SendStreaming(RequestTo(link, "GET", path, "", nullptr), on_head, on_data));
  if (status < 200 || status >= 300) return ServerError(status, error_body);
  if (result.cancelled || !out) return Status::IOError("writing the download failed");
  out.flush();
  return Status::Ok();
}

}  // namespace cilia::app
