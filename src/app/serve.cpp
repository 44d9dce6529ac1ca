// `cilia serve`: holds the data dir, opens the keys and the memory, serves
// HTTP until SIGINT or SIGTERM, then drains and exits 0.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fmt/format.h>

#include "api/mcp/mcp_routes.h"
#include "api/metrics_recorder.h"
#include "api/routes.h"
#include "api/server.h"
#include "app/commands.h"
#include "core/data_dir.h"
#include "core/env.h"
#include "core/data_dir_lock.h"
#include "core/executor.h"
#include "core/log.h"
#include "core/serve_file.h"
#include "gateway/chat_service.h"
#include "memory/upkeep/jobs.h"
#include "memory/registry.h"
#include "store/key_store.h"

namespace cilia::app {

namespace {

// How long requests in flight may take to finish after a stop signal. Idle
// keep-alive connections close within server.keep_alive_timeout_s.
constexpr std::chrono::seconds kShutdownGrace{5};
// The indexer, the job scheduler and (on PostgreSQL) the change feed each
// hold an executor worker.
constexpr size_t kLoopWorkers = 3;

// Blocks SIGINT and SIGTERM in this thread and every thread started after it,
// so that they are taken only by sigwait below, never by a handler running
// in the middle of some other code.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Waits for a stop signal, or for the server to stop serving by itself.
// Returns the signal, or 0 for the latter.
int WaitForStop(const sigset_t& signals, const api::ApiServer& server) {
  const timespec poll{1, 0};
  while (server.serving()) {
    int signal = sigtimedwait(&signals, nullptr, &poll);
    if (signal > 0) return signal;
  }
  return 0;
}

// cilia_disk_faults_total{kind}: every disk or database failure, wherever it
// happened (a request, a job, the indexer), while the server's metrics live.
class DiskFaultMetric {
 public:
  explicit DiskFaultMetric(api::Metrics& metrics) {
    SetDiskFaultObserver([&metrics](Code code) {
      metrics.Counter("cilia_disk_faults_total", {{"kind", CodeName(code)}}).Add();
    });
  }
  ~DiskFaultMetric() { SetDiskFaultObserver(nullptr); }
  DiskFaultMetric(const DiskFaultMetric&) = delete;
  DiskFaultMetric& operator=(const DiskFaultMetric&) = delete;
};

std::string UrlHost(const std::string& host) {
  return host.find(':') == std::string::npos ? host : "[" + host + "]";
}

}  // namespace

int RunServe(const CommandLine& command_line) {
  const sigset_t signals = BlockStopSignals();
  auto config = LoadConfigForCommand(command_line);
  if (!config.ok()) return ExitWithError(config.status(), kExitUsage);
  auto address = ParseListenAddress(config->server.listen);
  if (!address.ok()) return ExitWithError(address.status(), kExitUsage);
  const std::string& data_dir = config->server.data_dir;

  if (Status dir = PrepareDataDir(data_dir); !dir.ok()) return ExitWithError(dir, kExitFailure);
  auto lock = DataDirLock::Acquire(data_dir, "cilia serve");
  if (!lock.ok()) return ExitWithError(lock.status(), kExitFailure);
  auto keys = store::KeyStore::Open(KeyStorePath(*config));
  if (!keys.ok()) return ExitWithError(keys.status(), kExitFailure);
  if (Status first_key = CreateFirstKeyIfNone(**keys, *config); !first_key.ok()) {
    return ExitWithError(first_key, kExitFailure);
  }
  // All background work runs here: the indexer, the scheduler and the
  // change feed hold one worker each for as long as serve runs; the rest is
  // per request (recall's lanes among it). Declared before the registry,
  // which hands it to every namespace, so that it outlives them.
  Executor executor(static_cast<size_t>(config->server.threads) + kLoopWorkers,
                    static_cast<size_t>(config->server.threads));
  auto registry = memory::Registry::Open(*config, Clock::System(), &executor);
  if (!registry.ok()) return ExitWithError(registry.status(), kExitFailure);

  // Declared before the server, so that it outlives every request: the chat
  // service's destructor waits for streams and summaries still running on
  // the executor (a stream holds a worker while it runs, at most one per
  // HTTP thread).
  gateway::ChatService chat((*registry)->config(), **registry, executor);
  api::mcp::McpService mcp(**registry, config->server);
  api::ApiServer server(api::ServerOptions::FromConfig(config->server),
                        api::Authenticator(keys->get(), config->client_api_key));
  api::RegisterRoutes(server, **keys, **registry, chat, mcp);
  DiskFaultMetric disk_faults(server.metrics());
  api::MetricsRecorder recorder(server.metrics(), (*registry)->config());
  memory::Scheduler jobs(**registry);
  if (Status started = (*registry)->StartBackground(executor); !started.ok()) {
    return ExitWithError(started, kExitFailure);
  }
  if (Status started = jobs.Start(executor); !started.ok()) {
    (*registry)->Stop();
    return ExitWithError(started, kExitFailure);
  }
  auto port = server.Start(*address);
  if (!port.ok()) {
    jobs.Stop();
    (*registry)->Stop();
    return ExitWithError(port.status(), kExitFailure);
  }
  if (!IsLoopbackHost(address->host)) {
    LogWarn("listening on {}, which is not a loopback address: anyone who can reach it can try keys",
            config->server.listen);
  }
  const std::string store = config->store.kind == StoreKind::kPostgres
                                ? ", store " + RedactedStoreUrl(config->store.url)  // never its password
                                : "";
  std::fprintf(stderr, "cilia listening on http://%s:%d (data %s%s)\n", UrlHost(address->host).c_str(), *port,
               data_dir.c_str(), store.c_str());
  // For the CLI beside this server (core/serve_file.h); without it the CLI
  // refuses to write, so a failure here is only a warning.
  if (Status written = WriteServeFile(data_dir, {getpid(), LocalUrlFor({address->host, *port})}); !written.ok()) {
    LogWarn("the CLI will not find this server: {}", written.message());
  }

  int signal = WaitForStop(signals, server);
  if (signal == 0) LogError("the HTTP server stopped by itself");
  else LogInfo("{}: stopping", strsignal(signal));
  RemoveServeFile(data_dir);
  bool drained = server.Shutdown(kShutdownGrace);
  jobs.Stop();
  (*registry)->Stop();
  if (!drained) {
    // Requests still running use the registry and the keys, which must not
    // be destroyed under them; everything they wrote is committed already.
    LogWarn("requests still running after {} s; exiting without waiting for them", kShutdownGrace.count());
    std::fflush(nullptr);
    std::_Exit(kExitOk);
  }
  return signal == 0 ? kExitFailure : kExitOk;
}

}  // namespace cilia::app
