#include "api/mcp/mcp_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})";

class McpRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Post(const std::string& path, const std::string& body, httplib::Headers headers) {
    headers.emplace("Accept", "application/json, text/event-stream");
    return server_.client().Post(path.c_str(), headers, body, "application/json");
  }

  std::unique_ptr<McpService> mcp_;  // made by server_'s routes, outlives them
  testing::RegistryServer server_{[this](ApiServer& server, memory::Registry& registry) {
    mcp_ = std::make_unique<McpService>(registry, ServerConfig{});
    RegisterMcpRoutes(server, *mcp_);
  }};
};

TEST_F(McpRoutesTest, InitializeThenListOverHttp) {
  auto init = Post("/mcp", kInitialize, server_.As(server_.reader));
  ASSERT_TRUE(init);
  ASSERT_EQ(init->status, 200) << init->body;
  const std::string session = init->get_header_value("Mcp-Session-Id");
  ASSERT_EQ(session.size(), 64u);
  EXPECT_EQ(json::parse(init->body)["result"]["protocolVersion"], "2025-06-18");

  httplib::Headers headers = server_.As(server_.reader);
  headers.emplace("Mcp-Session-Id", session);
  headers.emplace("MCP-Protocol-Version", "2025-06-18");
  auto list = Post("/mcp", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", headers);
  ASSERT_EQ(list->status, 200) << list->body;
  EXPECT_EQ(json::parse(list->body)["result"]["tools"].size(), 8u) << "a memory:read key sees the read tools";
  auto notified = Post("/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", headers);
  EXPECT_EQ(notified->status, 202);
  EXPECT_TRUE(notified->body.empty());
  auto get = server_.client().Get("/mcp", headers);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(server_.client().Delete("/mcp", headers)->status, 200);
}

TEST_F(McpRoutesTest, AWrongKeyIsA401WithWwwAuthenticateShapedAsJsonRpc) {
  auto refused = Post("/mcp", kInitialize, server_.As("cilia_wrong"));
  ASSERT_EQ(refused->status, 401);
  EXPECT_THAT(refused->get_header_value("WWW-Authenticate"), HasSubstr("Bearer"));
  EXPECT_FALSE(refused->has_header("Mcp-Session-Id"));
  json body = json::parse(refused->body);
  EXPECT_EQ(body["jsonrpc"], "2.0");
  EXPECT_EQ(body["id"], nullptr);
  EXPECT_EQ(body["error"]["code"], kUnauthorized);

  auto chat_only = Post("/mcp", kInitialize, server_.As(server_.chat));
  ASSERT_EQ(chat_only->status, 403);
  EXPECT_THAT(json::parse(chat_only->body)["error"]["message"].get<std::string>(), HasSubstr("memory:read"));
}

TEST_F(McpRoutesTest, TheKeyMayComeAsAQueryToken) {
  auto init = Post("/mcp?token=" + server_.reader, kInitialize, {});
  ASSERT_EQ(init->status, 200) << init->body;
  EXPECT_EQ(Post("/mcp?token=nope", kInitialize, {})->status, 401);
}

}  // namespace
}  // namespace cilia::api::mcp
