// The one HTTP client (libcurl) used by the embedders and the upstream chat
// clients. Calls are blocking and thread-safe; connections to the same host
// are kept alive and reused across calls and threads.
//
// Proxies: libcurl reads http_proxy / https_proxy / no_proxy (and their
// upper-case forms) from the environment by itself; this client never sets a
// proxy option, so that behaviour is left on.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace cilia::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "POST";
  std::string url;
  Headers headers;
  std::string body;
  // Each limit in milliseconds; 0 or less turns that limit off.
  int connect_timeout_ms = 10000;
  int first_byte_timeout_ms = 120000;  // from the start until the first response byte
  int idle_timeout_ms = 120000;        // longest silence after the first byte
  int total_timeout_ms = 0;
  // Asked about once a second, and with every piece of data: returning true
  // cuts the transfer (e.g. the client this call serves went away while the
  // upstream was silent). Empty: never.
  std::function<bool()> cancelled;
};

struct HttpResponse {
  long status = 0;
  Headers headers;
  std::string body;

  // The first header of that name (case-insensitive), or "" when absent.
  std::string Header(std::string_view name) const;
};

// How a streamed transfer ended when no error stopped it.
struct StreamResult {
  long status = 0;
  bool cancelled = false;  // a callback returned false and the transfer was cut
};

// Returning false from a callback cancels the transfer at once.
using HeadCallback = std::function<bool(long status, const Headers& headers)>;
using DataCallback = std::function<bool(std::string_view chunk)>;

// Sends the request and reads the whole answer. Any HTTP status is a
// successful exchange; errors are transport failures only: Unavailable
// (refused, DNS, reset), Timeout (a limit passed), InvalidArgument (bad URL).
// Messages name the scheme and host, never the path, query or headers.
Result<HttpResponse> Send(const HttpRequest& request);

// Like Send, but hands the answer over as it arrives: on_head once with the
// final status and headers, then on_data with each piece libcurl receives.
// on_head is called even when the body is empty.
Result<StreamResult> SendStreaming(const HttpRequest& request, const HeadCallback& on_head,
                                   const DataCallback& on_data);

}  // namespace cilia::net
