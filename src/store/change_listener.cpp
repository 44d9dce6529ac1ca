#include "store/change_listener.h"

#include <poll.h>

#include <cerrno>
#include <cstring>

namespace cilia::store {

Result<std::unique_ptr<ChangeListener>> ChangeListener::Start(std::unique_ptr<PostgresDatabase> db) {
  CILIA_RETURN_IF_ERROR(db->Exec(std::string("LISTEN ") + kChangeChannel));
  return std::unique_ptr<ChangeListener>(new ChangeListener(std::move(db)));
}

std::set<std::string> ChangeListener::Drain() {
  std::set<std::string> out;
  while (PGnotify* n = PQnotifies(db_->raw())) {
    out.insert(n->extra);
    PQfreemem(n);
  }
  return out;
}

Result<std::set<std::string>> ChangeListener::Wait(std::chrono::milliseconds timeout) {
  PGconn* conn = db_->raw();
  std::set<std::string> ready = Drain();
  if (!ready.empty()) return ready;
  const int fd = PQsocket(conn);
  if (fd < 0) return Status::Busy("postgresql unreachable: the change listener has no connection");
  pollfd p{fd, POLLIN, 0};
  const int polled = poll(&p, 1, static_cast<int>(timeout.count()));
  if (polled < 0 && errno != EINTR) return Status::IOError(std::string("poll the change listener: ") + std::strerror(errno));
  if (polled <= 0) return std::set<std::string>{};
  // Readable with nothing to read: the server closed the connection.
  if (PQconsumeInput(conn) == 0 || PQstatus(conn) != CONNECTION_OK) {
    return Status::Busy(std::string("postgresql unreachable: the change listener lost its connection: ") +
                        PQerrorMessage(conn));
  }
  return Drain();
}

}  // namespace cilia::store
