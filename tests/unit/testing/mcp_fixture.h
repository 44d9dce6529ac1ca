// The MCP endpoint over a real Registry in a temporary data dir, with every
// cilia tool, for the tests of the MCP layer: requests are handed to the
// endpoint directly (no HTTP), as the adapter would hand them.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "api/mcp/curation_tools.h"
#include "api/mcp/endpoint.h"
#include "api/mcp/memory_tools.h"
#include "core/clock.h"
#include "memory/archive/archive.h"
#include "memory/registry.h"
#include "testing/temp_dir.h"

namespace cilia::testing {

class McpFixture : public ::testing::Test {
 protected:
  using Headers = std::map<std::string, std::string>;

  McpFixture() : clock_(1'780'000'000'000 /* 2026-05-28T20:26:40Z */) {
    Config config;
    config.server.data_dir = dir_.path();
    config.server.time_zone = "Asia/Shanghai";
    auto registry = memory::Registry::Open(config, clock_);
    if (!registry.ok()) throw std::runtime_error(registry.status().ToString());
    registry_ = std::move(*registry);
    api::mcp::AddMemoryTools(tools_, *registry_);
    api::mcp::AddCurationTools(tools_);
    endpoint_ = std::make_unique<api::mcp::Endpoint>(*registry_, tools_, sessions_, api::mcp::EndpointOptions{});
  }

  static api::Principal Key(const std::string& id, uint32_t scopes, const std::string& name_space = "default") {
    return api::Principal{id, name_space, scopes, {}};
  }

  api::mcp::McpReply Send(const std::string& method, const std::string& body, const Headers& headers,
                          const api::Principal& who) {
    api::mcp::McpRequest request;
    request.method = method;
    request.body = body;
    request.header = [headers](std::string_view name) {
      for (const auto& [key, value] : headers) {
        if (key.size() == name.size() &&
            std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
          return value;
        }
      }
      return std::string();
    };
    return endpoint_->Serve(request, who);
  }
  api::mcp::McpReply Post(const nlohmann::json& body, const Headers& headers = {}) {
    return Send("POST", body.dump(), headers, writer_);
  }
  static nlohmann::json Body(const api::mcp::McpReply& reply) { return nlohmann::json::parse(reply.body); }
  static std::string Header(const api::mcp::McpReply& reply, const std::string& name) {
    for (const auto& [key, value] : reply.headers) {
      if (key == name) return value;
    }
    return "";
  }

  // initialize at `version`; returns the session id.
  std::string Initialize(const std::string& version = "2025-11-25", const api::Principal* who = nullptr) {
    nlohmann::json body = {{"jsonrpc", "2.0"},
                           {"id", 1},
                           {"method", "initialize"},
                           {"params", {{"protocolVersion", version}, {"capabilities", nlohmann::json::object()},
                                       {"clientInfo", {{"name", "unit-test"}, {"version", "1"}}}}}};
    auto reply = Send("POST", body.dump(), {{"Accept", "application/json, text/event-stream"}}, who ? *who : writer_);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return Header(reply, "Mcp-Session-Id");
  }
  // A request in a session; its JSON reply.
  nlohmann::json Call(const std::string& session, const std::string& method, const nlohmann::json& params,
                      const api::Principal* who = nullptr) {
    nlohmann::json body = {{"jsonrpc", "2.0"}, {"id", ++next_id_}, {"method", method}, {"params", params}};
    auto reply = Send("POST", body.dump(), {{"Mcp-Session-Id", session}, {"Accept", "application/json"}},
                      who ? *who : writer_);
    EXPECT_EQ(reply.status, 200) << reply.body;
    return Body(reply);
  }
  // tools/call in a 2025-11-25 session of `who` (the writer by default); the CallToolResult.
  nlohmann::json Tool(const std::string& name, const nlohmann::json& arguments, const api::Principal* who = nullptr) {
    const api::Principal& caller = who ? *who : writer_;
    std::string& session = sessions_by_key_[caller.key_id];
    if (session.empty()) session = Initialize("2025-11-25", &caller);
    return Call(session, "tools/call", {{"name", name}, {"arguments", arguments}}, &caller)["result"];
  }
  static std::string Text(const nlohmann::json& result) { return result["content"][0]["text"].get<std::string>(); }

  memory::Namespace& ns(const std::string& name = "default") { return **registry_->Get(name); }
  // Stores and indexes one conversation of namespace "default".
  void Store(const std::string& conversation_id, std::vector<ingest::IngestMessage> messages) {
    ingest::IngestConversation c;
    c.conversation_id = conversation_id;
    c.messages = std::move(messages);
    ASSERT_TRUE(memory::Archive(ns()).StoreAndIndex(c).ok());
  }

  TempDir dir_;
  FakeClock clock_;
  std::unique_ptr<memory::Registry> registry_;
  api::mcp::ToolRegistry tools_;
  api::mcp::SessionStore sessions_{100, std::chrono::hours(1)};
  std::unique_ptr<api::mcp::Endpoint> endpoint_;
  api::Principal reader_ = Key("reader", api::ScopeBit(api::Scope::kMemoryRead));
  api::Principal writer_ =
      Key("writer", api::ScopeBit(api::Scope::kMemoryRead) | api::ScopeBit(api::Scope::kMemoryWrite));
  api::Principal admin_ = Key("admin", api::kAllScopes);
  int next_id_ = 100;
  std::map<std::string, std::string> sessions_by_key_;
};

}  // namespace cilia::testing
