#include "api/connections.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <thread>

#include "api/http_util.h"
#include "core/log.h"

namespace cilia::api {

namespace {

using SteadyClock = std::chrono::steady_clock;

// What the connection's thread knows of the request it is serving.
struct RequestState {
  bool close_after_answer = false;
  bool timed_out = false;
};
thread_local RequestState t_request;

// Waits for `events` on `sock` for up to `timeout`; true when they came.
bool PollFor(socket_t sock, short events, std::chrono::milliseconds timeout) {
  pollfd p{sock, events, 0};
  int ready;
  do {
    ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

void AddressOf(const sockaddr_storage& addr, std::string& ip, int& port) {
  std::array<char, INET6_ADDRSTRLEN> text{};
  if (addr.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(addr);
    inet_ntop(AF_INET, &v4.sin_addr, text.data(), text.size());
    port = ntohs(v4.sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(addr);
    inet_ntop(AF_INET6, &v6.sin6_addr, text.data(), text.size());
    port = ntohs(v6.sin6_port);
  }
  ip = text.data();
}

// A connection's socket as httplib reads and writes it: reads are buffered
// and bounded by the request's deadline as well as by read_timeout.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(socket_t sock, const GuardedHttpServer::Limits& limits) : sock_(sock), limits_(limits) {}

  // Waits up to `idle` for the next request's first byte, then starts its
  // deadline. False when none came (or the client closed).
  bool NextRequest(std::chrono::seconds idle) {
    if (buffered_ == 0 && !PollFor(sock_, POLLIN, idle)) return false;
    deadline_ = SteadyClock::now() + limits_.request_timeout;
    return true;
  }

  bool is_readable() const override { return buffered_ > 0 || MoreArrives(); }
  bool is_writable() const override {
    return PollFor(sock_, POLLOUT, limits_.write_timeout) && Alive();
  }

  ssize_t read(char* ptr, size_t size) override {
    if (buffered_ == 0) {
      if (!MoreArrives()) return -1;
      ssize_t n;
      do {
        n = ::recv(sock_, buffer_.data(), buffer_.size(), 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      offset_ = 0;
      buffered_ = static_cast<size_t>(n);
    }
    const size_t taken = std::min(size, buffered_);
    std::copy_n(buffer_.data() + offset_, taken, ptr);
    offset_ += taken;
    buffered_ -= taken;
    return static_cast<ssize_t>(taken);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // Waits for more of the request; false when none came in time, marking
  // the request timed out when it was the deadline that ran out.
  bool MoreArrives() const {
    if (SteadyClock::now() < deadline_ && PollFor(sock_, POLLIN, ReadWait())) return true;
    if (SteadyClock::now() >= deadline_) t_request.timed_out = true;
    return false;
  }
  // The wait for more of the request: read_timeout, cut short by the deadline.
  std::chrono::milliseconds ReadWait() const {
    // Rounded up: a wait that ended a fraction of a millisecond before the
    // deadline would otherwise close the connection without counting it.
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - SteadyClock::now());
    return std::min<std::chrono::milliseconds>(left, limits_.read_timeout);
  }
  // False once the client has closed its end.
  bool Alive() const {
    if (!PollFor(sock_, POLLIN, std::chrono::milliseconds(0))) return true;
    char byte;
    return ::recv(sock_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0;
  }

  const socket_t sock_;
  const GuardedHttpServer::Limits& limits_;
  SteadyClock::time_point deadline_ = SteadyClock::now();
  std::array<char, 4096> buffer_{};
  size_t offset_ = 0;
  size_t buffered_ = 0;
};

// The answer to a connection over a cap, written without a worker. It is
// OpenAI-shaped: the path, and so the API, is not known yet.
void Refuse(socket_t sock, const std::string& why) {
  const Reply busy = ErrorReply(Status::Busy(why), ErrorStyle::kOpenAI);
  const std::string answer = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: {}\r\n"
      "Retry-After: 1\r\nConnection: close\r\n\r\n{}",
      busy.body.size(), busy.body);
  // A fresh socket's send buffer takes this at once; never wait for it.
  (void)::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace

GuardedHttpServer::GuardedHttpServer(Limits limits, Counter& refused, Counter& timed_out)
    : limits_(limits), refused_(refused), timed_out_(timed_out) {}

GuardedHttpServer::~GuardedHttpServer() {
  Stop();
  if (listener_ != INVALID_SOCKET) ::close(listener_);
}

int GuardedHttpServer::Bind(const std::string& host, int port) {
  const int bound = port == 0 ? bind_to_any_port(host) : (bind_to_port(host, port) ? port : -1);
  if (bound < 0) return -1;
  listener_ = svr_sock_;
  // httplib listens with a backlog of 5, so a burst of new connections (200
  // clients opening streams at once) overflows the accept queue and clients
  // see resets. Listening again on the bound socket raises it (Linux).
  if (::listen(listener_, SOMAXCONN) != 0) LogWarn("could not raise the listen backlog: {}", std::strerror(errno));
  return bound;
}

void GuardedHttpServer::Serve() {
  {
    httplib::ThreadPool workers(std::max<size_t>(1, limits_.threads));
    while (!stopping_.load() && listener_ != INVALID_SOCKET) {
      // The loop polls, so that Stop always ends it within 100 ms.
      if (!PollFor(listener_, POLLIN, std::chrono::milliseconds(100))) continue;
      sockaddr_storage addr{};
      socklen_t len = sizeof(addr);
      const socket_t sock = ::accept4(listener_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_CLOEXEC);
      if (sock == INVALID_SOCKET) {
        // Out of descriptors: let connections close before trying again.
        if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      std::string peer;
      int peer_port = 0;
      AddressOf(addr, peer, peer_port);
      if (!Admit(peer)) {
        refused_.Add();
        Refuse(sock, limits_.max_connections_per_peer > 0
                         ? "too many connections; try again (server.max_connections, server.max_connections_per_peer)"
                         : "too many connections; try again (server.max_connections)");
        continue;
      }
      int yes = 1;
      ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
      workers.enqueue([this, sock, peer] {
        ServeConnection(sock);
        Release(peer);
      });
    }
    workers.shutdown();  // waits for every connection
  }
  if (listener_ != INVALID_SOCKET) ::close(listener_);
  listener_ = INVALID_SOCKET;
}

void GuardedHttpServer::Stop() {
  stopping_ = true;
  // httplib's streams check this to end at their next write.
  svr_sock_ = INVALID_SOCKET;
}

void GuardedHttpServer::CloseAfterAnswer() { t_request.close_after_answer = true; }

bool GuardedHttpServer::RequestTimedOut() { return t_request.timed_out; }

bool GuardedHttpServer::Admit(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t& from_peer = open_by_peer_[peer];
  const bool over_peer = limits_.max_connections_per_peer > 0 && from_peer >= limits_.max_connections_per_peer;
  if (open_ >= limits_.max_connections || over_peer) {
    if (from_peer == 0) open_by_peer_.erase(peer);
    return false;
  }
  ++open_;
  ++from_peer;
  return true;
}

void GuardedHttpServer::Release(const std::string& peer) {
  std::lock_guard<std::mutex> lock(mu_);
  --open_;
  auto it = open_by_peer_.find(peer);
  if (it != open_by_peer_.end() && --it->second == 0) open_by_peer_.erase(it);
}

void GuardedHttpServer::ServeConnection(socket_t sock) {
  DeadlineStream stream(sock, limits_);
  for (size_t left = keep_alive_max_count_; left > 0 && !stopping_.load(); --left) {
    if (!stream.NextRequest(limits_.keep_alive_timeout)) break;
    t_request = RequestState{};
    bool connection_closed = false;
    const bool answered = process_request(stream, /*close_connection=*/left == 1, connection_closed, nullptr);
    if (t_request.timed_out) timed_out_.Add();
    if (!answered || connection_closed || t_request.close_after_answer || t_request.timed_out) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace cilia::api
