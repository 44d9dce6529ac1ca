#include "api/mcp/endpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/codec.h"
#include "testing/mcp_fixture.h"

namespace cilia::api::mcp {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json Request(int id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json Meta(json params = json::object()) {
  params["_meta"] = {{kVersionMetaKey, kStatelessRevision},
                     {kClientInfoMetaKey, {{"name", "unit-test"}, {"version", "1"}}},
                     {kClientCapabilitiesMetaKey, json::object()}};
  return params;
}

class EndpointTest : public testing::McpFixture {
 protected:
  McpReply Stateless(const json& body, Headers headers = {}) {
    headers.emplace("MCP-Protocol-Version", kStatelessRevision);
    headers.emplace("Mcp-Method", body.value("method", ""));
    headers.emplace("Accept", "application/json, text/event-stream");
    return Post(body, headers);
  }
};

TEST_F(EndpointTest, InitializeAnswersTheClientsRevisionOrTheNewestAndIssuesASession) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    McpReply reply = Post(Request(1, "initialize", {{"protocolVersion", version}, {"capabilities", json::object()}}));
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(reply.content_type, "application/json");
    json result = Body(reply)["result"];
    EXPECT_EQ(result["protocolVersion"], version);
    EXPECT_EQ(result["capabilities"]["tools"]["listChanged"], false);
    EXPECT_EQ(result["serverInfo"]["name"], "cilia");
    EXPECT_THAT(result["instructions"].get<std::string>(), HasSubstr("memory_search"));
    EXPECT_EQ(Header(reply, "Mcp-Session-Id").size(), 64u);
  }
  McpReply future = Post(Request(1, "initialize", {{"protocolVersion", "2099-01-01"}}));
  EXPECT_EQ(Body(future)["result"]["protocolVersion"], "2025-11-25");
  McpReply old = Post(Request(1, "initialize", {{"protocolVersion", "2024-11-05"}}));
  EXPECT_EQ(Body(old)["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(EndpointTest, InitializeNamesAMissingVersion) {
  McpReply reply = Post(Request(9, "initialize", {{"capabilities", json::object()}}));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(Body(reply)["error"]["code"], kInvalidParams);
  EXPECT_THAT(Body(reply)["error"]["message"].get<std::string>(), HasSubstr("params.protocolVersion: required"));
  EXPECT_EQ(Body(reply)["id"], 9);
}

TEST_F(EndpointTest, ASessionIsRequiredKnownAndTheKeys) {
  McpReply missing = Post(Request(2, "tools/list"));
  EXPECT_EQ(missing.status, 400);
  EXPECT_THAT(Body(missing)["error"]["message"].get<std::string>(), HasSubstr("Mcp-Session-Id header: required"));

  McpReply unknown = Post(Request(2, "tools/list"), {{"Mcp-Session-Id", "nope"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(Body(unknown)["error"]["code"], kSessionNotFound);

  const std::string session = Initialize();
  McpReply other_key = Send("POST", Request(2, "tools/list").dump(), {{"Mcp-Session-Id", session}}, admin_);
  EXPECT_EQ(other_key.status, 404) << "a session belongs to the key that opened it";
  EXPECT_EQ(Call(session, "ping", json::object())["result"], json::object());
}

TEST_F(EndpointTest, TheProtocolVersionHeaderMustBeTheSessions) {
  const std::string session = Initialize("2025-06-18");
  McpReply wrong = Post(Request(3, "ping"), {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}});
  EXPECT_EQ(wrong.status, 400);
  EXPECT_THAT(Body(wrong)["error"]["message"].get<std::string>(),
              HasSubstr("\"2025-11-25\" is not this session's revision \"2025-06-18\""));
  McpReply right = Post(Request(3, "ping"), {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-06-18"}});
  EXPECT_EQ(right.status, 200);
}

TEST_F(EndpointTest, NotificationsAndResponsesAre202WithNoBody) {
  const std::string session = Initialize();
  McpReply initialized = Post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, {{"Mcp-Session-Id", session}});
  EXPECT_EQ(initialized.status, 202);
  EXPECT_TRUE(initialized.body.empty());
  EXPECT_TRUE(initialized.content_type.empty());
  EXPECT_TRUE(sessions_.Use(session, writer_.key_id)->initialized);
  McpReply response = Post({{"jsonrpc", "2.0"}, {"id", "s1"}, {"result", json::object()}}, {{"Mcp-Session-Id", session}});
  EXPECT_EQ(response.status, 202);
}

TEST_F(EndpointTest, GetIs405AndDeleteEndsTheSession) {
  McpReply get = Send("GET", "", {{"Accept", "text/event-stream"}}, writer_);
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(Header(get, "Allow"), "POST, DELETE");
  EXPECT_THAT(Body(get)["error"]["message"].get<std::string>(), HasSubstr("no server-to-client stream"));

  const std::string session = Initialize();
  EXPECT_EQ(Send("DELETE", "", {}, writer_).status, 400);
  EXPECT_EQ(Send("DELETE", "", {{"Mcp-Session-Id", session}}, admin_).status, 404) << "only its own key ends it";
  EXPECT_EQ(Send("DELETE", "", {{"Mcp-Session-Id", session}}, writer_).status, 200);
  McpReply reused = Post(Request(4, "tools/list"), {{"Mcp-Session-Id", session}});
  EXPECT_EQ(reused.status, 404);
  EXPECT_THAT(Body(reused)["error"]["message"].get<std::string>(), HasSubstr("call initialize again"));
}

TEST_F(EndpointTest, RepliesAsSseWhenTheClientAcceptsOnlyThat) {
  const std::string session = Initialize();
  McpReply sse = Post(Request(5, "ping"), {{"Mcp-Session-Id", session}, {"Accept", "text/event-stream"}});
  EXPECT_EQ(sse.status, 200);
  EXPECT_EQ(sse.content_type, "text/event-stream");
  EXPECT_EQ(sse.body, "event: message\ndata: {\"id\":5,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n");
  EXPECT_EQ(Header(sse, "X-Accel-Buffering"), "no");
  McpReply neither = Post(Request(6, "ping"), {{"Mcp-Session-Id", session}, {"Accept", "text/html"}});
  EXPECT_EQ(neither.status, 406);
}

TEST_F(EndpointTest, BatchesOnlyIn20250326) {
  json batch = json::array({Request(7, "ping"), {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}},
                            Request(8, "tools/list"), {{"jsonrpc", "1.0"}, {"id", 9}, {"method", "ping"}}});
  const std::string old_session = Initialize("2025-03-26");
  McpReply served = Post(batch, {{"Mcp-Session-Id", old_session}});
  ASSERT_EQ(served.status, 200) << served.body;
  json answers = Body(served);
  ASSERT_EQ(answers.size(), 3u) << answers.dump();
  EXPECT_EQ(answers[0]["id"], 7);
  EXPECT_EQ(answers[1]["id"], 8);
  EXPECT_FALSE(answers[1]["result"]["tools"].empty());
  EXPECT_FALSE(answers[1]["result"]["tools"][0].contains("outputSchema")) << "2025-03-26 has no output schemas";
  EXPECT_EQ(answers[2]["error"]["code"], kInvalidRequest);

  const std::string new_session = Initialize("2025-06-18");
  McpReply refused = Post(batch, {{"Mcp-Session-Id", new_session}});
  EXPECT_EQ(refused.status, 400);
  EXPECT_THAT(Body(refused)["error"]["message"].get<std::string>(), HasSubstr("batches are not part of revision 2025-06-18"));
  EXPECT_EQ(Post(json::array({Request(1, "initialize", {{"protocolVersion", "2025-03-26"}})})).status, 400);
}

TEST_F(EndpointTest, MalformedBodiesAre400sNeverMore) {
  for (const std::string& body : {std::string("{\"jsonrpc\":\"2.0\",\"id\":1,"), std::string("[]"), std::string("7"),
                                 std::string(70, '['), std::string("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}")}) {
    McpReply reply = Send("POST", body, {}, writer_);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_EQ(Body(reply)["jsonrpc"], "2.0") << body;
  }
  EXPECT_EQ(Send("POST", "{}", {{"Content-Type", "text/plain"}}, writer_).status, 415);
}

TEST_F(EndpointTest, ForeignOriginsAre403AndLoopbackOnesPass) {
  McpReply foreign = Send("POST", Request(1, "initialize", {{"protocolVersion", "2025-11-25"}}).dump(),
                          {{"Origin", "http://evil.example:8420"}}, writer_);
  EXPECT_EQ(foreign.status, 403);
  EXPECT_THAT(Body(foreign)["error"]["message"].get<std::string>(), HasSubstr("DNS-rebinding"));
  for (const char* origin : {"http://127.0.0.1:8420", "http://localhost", "http://[::1]:3000"}) {
    EXPECT_EQ(Send("POST", Request(1, "initialize", {{"protocolVersion", "2025-11-25"}}).dump(), {{"Origin", origin}},
                   writer_)
                  .status,
              200)
        << origin;
  }
  EXPECT_EQ(Send("POST", "{}", {{"Origin", "http://localhost.evil.example"}}, writer_).status, 403);
}

TEST_F(EndpointTest, ToolsCallErrorsAreInvalidParamsNamingTheField) {
  const std::string session = Initialize();
  json unknown = Call(session, "tools/call", {{"name", "memory_fly"}, {"arguments", json::object()}});
  EXPECT_EQ(unknown["error"]["code"], kInvalidParams);
  EXPECT_THAT(unknown["error"]["message"].get<std::string>(), HasSubstr("params.name: no tool \"memory_fly\""));
  json no_name = Call(session, "tools/call", json::object());
  EXPECT_THAT(no_name["error"]["message"].get<std::string>(), HasSubstr("params.name: required"));
  json bad_arguments = Call(session, "tools/call", {{"name", "memory_search"}, {"arguments", "q"}});
  EXPECT_THAT(bad_arguments["error"]["message"].get<std::string>(), HasSubstr("params.arguments: must be an object"));
  json method = Call(session, "resources/list", json::object());
  EXPECT_EQ(method["error"]["code"], kMethodNotFound);
}

TEST_F(EndpointTest, StatelessDiscoverListAndCall) {
  McpReply discover = Stateless(Request(1, "server/discover", Meta()));
  ASSERT_EQ(discover.status, 200) << discover.body;
  EXPECT_TRUE(Header(discover, "Mcp-Session-Id").empty());
  json result = Body(discover)["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["supportedVersions"][0], "2026-07-28");
  EXPECT_TRUE(result["capabilities"].contains("tools"));
  EXPECT_EQ(result["_meta"][kServerInfoMetaKey]["name"], "cilia");
  EXPECT_EQ(result["cacheScope"], "public");

  json list = Body(Stateless(Request(2, "tools/list", Meta())))["result"];
  EXPECT_EQ(list["resultType"], "complete");
  EXPECT_EQ(list["cacheScope"], "private");
  EXPECT_GT(list["ttlMs"].get<int>(), 0);
  EXPECT_TRUE(list["tools"][0].contains("outputSchema"));

  json call = Request(3, "tools/call", Meta({{"name", "memory_search"}, {"arguments", {{"query", "cat"}}}}));
  McpReply called = Stateless(call, {{"Mcp-Name", "memory_search"}});
  ASSERT_EQ(called.status, 200) << called.body;
  EXPECT_EQ(Body(called)["result"]["isError"], false);
  EXPECT_EQ(Body(called)["result"]["resultType"], "complete");
  McpReply encoded = Stateless(call, {{"Mcp-Name", "=?base64?" + Base64Encode("memory_search") + "?="}});
  EXPECT_EQ(encoded.status, 200) << "Mcp-Name may come base64-encoded";
}

TEST_F(EndpointTest, StatelessHeadersMustMatchTheBody) {
  json call = Request(3, "tools/call", Meta({{"name", "memory_search"}, {"arguments", {{"query", "cat"}}}}));
  McpReply no_name = Stateless(call);
  EXPECT_EQ(no_name.status, 400);
  EXPECT_EQ(Body(no_name)["error"]["code"], kHeaderMismatch);
  EXPECT_THAT(Body(no_name)["error"]["message"].get<std::string>(), HasSubstr("Mcp-Name header: required"));
  EXPECT_EQ(Body(Stateless(call, {{"Mcp-Name", "memory_recall"}}))["error"]["code"], kHeaderMismatch);
  EXPECT_EQ(Body(Stateless(call, {{"Mcp-Method", "tools/list"}, {"Mcp-Name", "memory_search"}}))["error"]["code"],
            kHeaderMismatch);

  McpReply no_version_header = Post(Request(1, "server/discover", Meta()), {{"Mcp-Method", "server/discover"}});
  EXPECT_EQ(no_version_header.status, 400);
  EXPECT_THAT(Body(no_version_header)["error"]["message"].get<std::string>(), HasSubstr("MCP-Protocol-Version header"));
  McpReply header_only = Stateless(Request(1, "server/discover"));
  EXPECT_EQ(Body(header_only)["error"]["code"], kHeaderMismatch);
}

TEST_F(EndpointTest, StatelessUnsupportedVersionsAndUnknownMethods) {
  json params = Meta();
  params["_meta"][kVersionMetaKey] = "1900-01-01";
  McpReply old = Post(Request(1, "tools/list", params), {{"MCP-Protocol-Version", "1900-01-01"}, {"Mcp-Method", "tools/list"}});
  EXPECT_EQ(old.status, 400);
  json error = Body(old)["error"];
  EXPECT_EQ(error["code"], kUnsupportedProtocolVersion);
  EXPECT_EQ(error["data"]["requested"], "1900-01-01");
  EXPECT_EQ(error["data"]["supported"], json(AllRevisions()));

  McpReply ping = Stateless(Request(2, "ping", Meta()));
  EXPECT_EQ(ping.status, 404);
  EXPECT_EQ(Body(ping)["error"]["code"], kMethodNotFound);
  EXPECT_EQ(Stateless({{"jsonrpc", "2.0"}, {"method", "notifications/x"}, {"params", Meta()}}).status, 202);
}

}  // namespace
}  // namespace cilia::api::mcp
