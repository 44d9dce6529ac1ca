#include "net/http_client.h"

#include <curl/curl.h>
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <memory>
#include <mutex>

namespace cilia::net {
namespace {

using Clock = std::chrono::steady_clock;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// "scheme://host[:port]" of a URL, for error messages: the path and query may
// hold secrets (some APIs take a key there) and are never shown.
std::string Origin(const std::string& url) {
  CURLU* parsed = curl_url();
  std::string origin = "(invalid URL)";
  if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* scheme = nullptr;
    char* host = nullptr;
    char* port = nullptr;
    curl_url_get(parsed, CURLUPART_SCHEME, &scheme, 0);
    curl_url_get(parsed, CURLUPART_HOST, &host, 0);
    curl_url_get(parsed, CURLUPART_PORT, &port, 0);
    if (scheme != nullptr && host != nullptr) {
      origin = fmt::format("{}://{}{}{}", scheme, host, port != nullptr ? ":" : "", port != nullptr ? port : "");
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(parsed);
  return origin;
}

// One share object for the whole process: the DNS cache and TLS sessions are
// shared by all threads (connections themselves are not: libcurl does not
// support sharing its connection cache between concurrent threads, so each
// thread keeps its own handles and with them its own live connections).
class Share {
 public:
  static CURLSH* Get() {
    // Created once and kept for the life of the process: easy handles held by
    // threads may outlive any static destructor order we could pick.
    static Share* share = new Share();
    return share->handle_;
  }

 private:
  Share() {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    handle_ = curl_share_init();
    curl_share_setopt(handle_, CURLSHOPT_LOCKFUNC, &Share::Lock);
    curl_share_setopt(handle_, CURLSHOPT_UNLOCKFUNC, &Share::Unlock);
    curl_share_setopt(handle_, CURLSHOPT_USERDATA, this);
    curl_share_setopt(handle_, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(handle_, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }

  static void Lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
    static_cast<Share*>(self)->locks_[data].lock();
  }
  static void Unlock(CURL*, curl_lock_data data, void* self) { static_cast<Share*>(self)->locks_[data].unlock(); }

  CURLSH* handle_ = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks_;
};

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
using EasyHandle = std::unique_ptr<CURL, EasyDeleter>;

// Lends this thread's idle easy handle (keeping its live connections for the
// next call to the same host), or a fresh one when a callback of an ongoing
// transfer sends a request of its own.
class HandleLease {
 public:
  HandleLease() {
    CURLSH* share = Share::Get();
    if (!Idle()) {
      handle_.reset(curl_easy_init());
    } else {
      handle_ = std::move(Idle());
      curl_easy_reset(handle_.get());
    }
    if (handle_ != nullptr) curl_easy_setopt(handle_.get(), CURLOPT_SHARE, share);
  }
  ~HandleLease() {
    if (handle_ != nullptr && !Idle()) Idle() = std::move(handle_);
  }
  HandleLease(const HandleLease&) = delete;
  HandleLease& operator=(const HandleLease&) = delete;

  CURL* get() const { return handle_.get(); }

 private:
  static EasyHandle& Idle() {
    thread_local EasyHandle idle;
    return idle;
  }
  EasyHandle handle_;
};

struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

enum class Stop { kNone, kCancelled, kFirstByteTimeout, kIdleTimeout, kCallbackThrew };

// State shared with libcurl's callbacks during one transfer.
struct Transfer {
  const HttpRequest* request = nullptr;
  const HeadCallback* on_head = nullptr;
  const DataCallback* on_data = nullptr;
  CURL* easy = nullptr;

  Clock::time_point start = Clock::now();
  Clock::time_point last_byte;
  bool any_byte = false;
  long status = 0;
  Headers headers;
  bool head_delivered = false;
  Stop stop = Stop::kNone;

  void NoteByte() {
    any_byte = true;
    last_byte = Clock::now();
  }

  // Hands status and headers over once, before the first body byte.
  bool DeliverHead() {
    if (head_delivered) return true;
    head_delivered = true;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (!(*on_head)(status, headers)) {
      stop = Stop::kCancelled;
      return false;
    }
    return true;
  }
};

// Exceptions must not unwind through libcurl's C frames: one from a callback
// (or bad_alloc) ends the transfer and becomes an error instead.
template <typename Body>
size_t Guarded(Transfer* t, Body&& body) {
  try {
    return body();
  } catch (...) {
    t->stop = Stop::kCallbackThrew;
    return CURL_WRITEFUNC_ERROR;
  }
}

size_t OnHeaderLine(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  t->NoteByte();
  return Guarded(t, [&]() -> size_t {
    std::string_view line(data, bytes);
    if (line.starts_with("HTTP/")) {
      // A new header block (after 100 Continue or an interim answer) replaces the last.
      t->headers.clear();
      return bytes;
    }
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      t->headers.emplace_back(std::string(Trim(line.substr(0, colon))), std::string(Trim(line.substr(colon + 1))));
    }
    return bytes;
  });
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  t->NoteByte();
  return Guarded(t, [&]() -> size_t {
    if (!t->DeliverHead()) return CURL_WRITEFUNC_ERROR;
    if (!(*t->on_data)(std::string_view(data, bytes))) {
      t->stop = Stop::kCancelled;
      return CURL_WRITEFUNC_ERROR;
    }
    return bytes;
  });
}

// libcurl calls this often while data flows and about once a second when the
// line is quiet; that is the resolution of the first-byte and idle limits.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->request->cancelled && t->request->cancelled()) {
    t->stop = Stop::kCancelled;
    return 1;
  }
  const auto now = Clock::now();
  auto passed = [now](Clock::time_point since, int limit_ms) {
    return limit_ms > 0 && now - since > std::chrono::milliseconds(limit_ms);
  };
  if (!t->any_byte && passed(t->start, t->request->first_byte_timeout_ms)) {
    t->stop = Stop::kFirstByteTimeout;
    return 1;
  }
  if (t->any_byte && passed(t->last_byte, t->request->idle_timeout_ms)) {
    t->stop = Stop::kIdleTimeout;
    return 1;
  }
  return 0;
}

Status TransportError(const Transfer& t, CURLcode code, const char* detail) {
  const HttpRequest& r = *t.request;
  const std::string where = fmt::format("{} {}", r.method, Origin(r.url));
  switch (t.stop) {
    case Stop::kFirstByteTimeout:
      return Status::Timeout(fmt::format("{}: no answer within {} ms", where, r.first_byte_timeout_ms));
    case Stop::kIdleTimeout:
      return Status::Timeout(fmt::format("{}: silent for more than {} ms", where, r.idle_timeout_ms));
    case Stop::kCallbackThrew:
      return Status::Internal(fmt::format("{}: a stream callback threw", where));
    case Stop::kCancelled:
    case Stop::kNone:
      break;
  }
  const std::string why = detail[0] != '\0' ? detail : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return Status::Timeout(fmt::format("{}: {}", where, why));
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return Status::InvalidArgument(fmt::format("{}: {}", where, why));
    case CURLE_OUT_OF_MEMORY:
      return Status::Internal(fmt::format("{}: {}", where, why));
    default:  // refused, DNS, reset, TLS and the like: the upstream is not reachable
      return Status::Unavailable(fmt::format("{}: {}", where, why));
  }
}

}  // namespace

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return "";
}

Result<StreamResult> SendStreaming(const HttpRequest& request, const HeadCallback& on_head,
                                   const DataCallback& on_data) {
  HandleLease lease;
  CURL* easy = lease.get();
  if (easy == nullptr) return Status::Internal("curl_easy_init failed");

  Transfer t;
  t.request = &request;
  t.on_head = &on_head;
  t.on_data = &on_data;
  t.easy = easy;

  std::unique_ptr<curl_slist, HeaderListDeleter> header_list;
  auto add_header = [&header_list](const std::string& line) {
    header_list.reset(curl_slist_append(header_list.release(), line.c_str()));
  };
  for (const auto& [name, value] : request.headers) add_header(name + ": " + value);
  // No "Expect: 100-continue" round trip before large bodies: upstreams answer at once.
  add_header("Expect:");

  char error_detail[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, error_detail);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);  // signals and threads do not mix
  curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
  if (request.connect_timeout_ms > 0)
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_ms));
  if (request.total_timeout_ms > 0)
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(request.total_timeout_ms));
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeaderLine);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(easy, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);

  const CURLcode code = curl_easy_perform(easy);
  // The handle goes back to the thread for reuse: drop pointers into this frame.
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, nullptr);

  if (t.stop == Stop::kCancelled) return StreamResult{t.status, true};
  if (code != CURLE_OK) return TransportError(t, code, error_detail);
  if (!t.DeliverHead()) return StreamResult{t.status, true};
  return StreamResult{t.status, false};
}

Result<HttpResponse> Send(const HttpRequest& request) {
  HttpResponse response;
  auto keep_head = [&response](long status, const Headers& headers) {
    response.status = status;
    response.headers = headers;
    return true;
  };
  auto keep_body = [&response](std::string_view chunk) {
    response.body.append(chunk);
    return true;
  };
  CILIA_RETURN_IF_ERROR(SendStreaming(request, keep_head, keep_body).status());
  return response;
}

}  // namespace cilia::net
