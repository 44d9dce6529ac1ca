// An ApiServer on a free loopback port over a real Registry in a temporary
// data dir, with a fake clock and a key for each scope, for tests of the
// namespace-scoped REST routes.
#pragma once

#include <httplib.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "testing/temp_dir.h"
#include "api/server.h"
#include "core/clock.h"
#include "memory/registry.h"
#include "store/key_store.h"

namespace cilia::testing {

class RegistryServer {
 public:
  using Routes = std::function<void(api::ApiServer&, memory::Registry&)>;

  // `configure` may change the config the registry opens with (a model, limits).
  explicit RegistryServer(const Routes& register_routes, UnixMs now = 1'780'000'000'000 /* 2026-05-28T20:26:40Z */,
                          const std::function<void(Config&)>& configure = {})
      : clock_(now) {
    Config config;
    config.server.data_dir = dir_.path();
    config.server.time_zone = "Asia/Shanghai";
    if (configure) configure(config);
    registry_ = Must(memory::Registry::Open(config, clock_));
    keys_ = Must(store::KeyStore::Open(dir_.Sub("system.db"), clock_));
    reader = Key("default", "memory:read");
    writer = Key("default", "memory:write");
    admin = Key("default", "admin");
    chat = Key("default", "chat");
    other_admin = Key("other", "admin");
    api::ServerOptions options;
    options.threads = 4;
    server_ = std::make_unique<api::ApiServer>(options, api::Authenticator(keys_.get(), ""));
    register_routes(*server_, *registry_);
    port_ = Must(server_->Start({"127.0.0.1", 0}));
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
  }

  httplib::Client& client() { return *client_; }
  int port() const { return port_; }  // for a client of one's own (one per thread)
  static httplib::Headers As(const std::string& secret) { return {{"Authorization", "Bearer " + secret}}; }
  memory::Namespace& ns(const std::string& name = "default") { return *Must(registry_->Get(name)); }
  FakeClock& clock() { return clock_; }
  const Config& config() const { return registry_->config(); }

  // Keys of namespace "default" with one scope each, and an admin of "other".
  std::string reader, writer, admin, chat, other_admin;

 private:
  template <typename T>
  static T Must(Result<T> result) {
    if (!result.ok()) throw std::runtime_error(result.status().ToString());
    return std::move(result).value();
  }
  std::string Key(const std::string& name_space, const std::string& scope) {
    return Must(keys_->Create(scope, name_space, {scope})).secret;
  }

  TempDir dir_;
  FakeClock clock_;
  int port_ = 0;
  std::unique_ptr<memory::Registry> registry_;
  std::unique_ptr<store::KeyStore> keys_;
  std::unique_ptr<api::ApiServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace cilia::testing
