// The CLI beside a running `cilia serve`: a command that would write to a
// data dir the server holds does the same work through the server's HTTP API
// instead (docs/cli.md), and says so on stderr.
//
// The server is found by DATA/serve.json (core/serve_file.h) and reached with
// the data dir's admin key: DATA/admin.key (written by serve's first start),
// else CILIA_API_KEY. Before any work, GET /v1/whoami checks that the key is
// valid, has the admin scope and is for the command's namespace — a key sees
// only its own namespace, so another namespace cannot be reached this way.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "app/progress.h"
#include "core/config.h"
#include "core/serve_file.h"
#include "core/status.h"

namespace cilia::app {

struct ServerLink {
  ServeInfo serve;
  std::string key;
};

// nullopt when no `cilia serve` holds the data dir: the command works
// directly. The link when one does, after telling stderr "cilia: `cilia
// serve` (pid N) holds DIR; <doing> through it at URL". An error naming what
// is missing when the server cannot be used: no key, a key it refuses, a key
// for another namespace or without the admin scope, a server that is still
// starting.
Result<std::optional<ServerLink>> FindServerLink(const Config& config, std::string_view name_space,
                                                 std::string_view doing);

// The admin key of the data dir: DATA/admin.key, else CILIA_API_KEY; "" when
// there is neither.
std::string AdminKeyFor(const Config& config);

// "a b/c" -> "a%20b%2Fc": for a path segment or a query value.
std::string PercentEncode(std::string_view text);

// One request to the server; `path` includes the query. No time limit once
// connected (a job may run for minutes); `progress`, when given, ticks while
// waiting. A 2xx reply's body, or the server's error message as a Status of
// the matching code ("the server answered 413: …").
Result<std::string> CallServer(const ServerLink& link, std::string method, const std::string& path, std::string body,
                               Progress* progress = nullptr);
// The same, for a JSON reply.
Result<nlohmann::json> CallServerJson(const ServerLink& link, std::string method, const std::string& path,
                                      std::string body, Progress* progress = nullptr);
// A GET whose body is written to `out` as it arrives, counted in `progress`
// (in bytes, of Content-Length when the server sends it).
Status DownloadFromServer(const ServerLink& link, const std::string& path, std::ostream& out, Progress* progress);

}  // namespace cilia::app
