#include "api/openapi.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <regex>
#include <set>

#include "api/admin_assets.h"
#include "core/version.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::IsEmpty;
using namespace std::chrono_literals;

json Document() {
  auto document = OpenApiDocument();
  return document.ok() ? *document : json(nullptr);
}

// Every "$ref" under `node` that does not resolve in `document`.
void UnresolvedRefs(const json& document, const json& node, std::vector<std::string>& out) {
  if (node.is_object()) {
    if (auto ref = node.find("$ref"); ref != node.end()) {
      const std::string target = ref->get<std::string>();
      if (!target.starts_with("#/") || !document.contains(json::json_pointer(target.substr(1)))) out.push_back(target);
    }
    for (const auto& [key, value] : node.items()) UnresolvedRefs(document, value, out);
  } else if (node.is_array()) {
    for (const json& value : node) UnresolvedRefs(document, value, out);
  }
}

template <typename F>
void ForEachOperation(const json& document, F&& visit) {
  static const std::set<std::string> kMethods = {"get", "put", "post", "patch", "delete", "options"};
  for (const auto& [path, item] : document.at("paths").items()) {
    for (const auto& [method, operation] : item.items()) {
      if (kMethods.count(method)) visit(path, method, operation);
    }
  }
}

TEST(OpenApiTest, TheEmbeddedDocumentIsTheSourceFileAsOpenApi31WithTheBinarysVersion) {
  ASSERT_EQ(kOpenApiFileCount, 1u);
  EXPECT_STREQ(kOpenApiFiles[0].path, "openapi.json");
  const json document = Document();
  ASSERT_TRUE(document.is_object());
  EXPECT_EQ(document["openapi"], "3.1.0");
  EXPECT_EQ(document["info"]["version"], kVersion);
  EXPECT_EQ(document["info"]["title"], "cilia");
  EXPECT_TRUE(document["paths"].is_object());
}

TEST(OpenApiTest, EveryOperationHasAnIdASummaryResponsesAndAScope) {
  const json document = Document();
  ASSERT_TRUE(document.is_object());
  static const std::set<std::string> kScopes = {"none", "any", "chat", "memory:read", "memory:write", "admin"};
  std::set<std::string> ids;
  size_t operations = 0;
  ForEachOperation(document, [&](const std::string& path, const std::string& method, const json& operation) {
    const std::string where = method + " " + path;
    ++operations;
    EXPECT_FALSE(operation.value("summary", "").empty()) << where;
    const json responses = operation.value("responses", json::object());
    EXPECT_FALSE(responses.empty()) << where;
    EXPECT_TRUE(responses.contains("default")) << where << ": no error response";
    EXPECT_TRUE(kScopes.count(operation.value("x-cilia-scope", ""))) << where;
    const std::string id = operation.value("operationId", "");
    EXPECT_TRUE(!id.empty() && ids.insert(id).second) << where << ": operationId missing or repeated";
  });
  EXPECT_GT(operations, 50u);
}

TEST(OpenApiTest, EveryPathTemplateIsAPathParameterAndEveryPathParameterATemplate) {
  const json document = Document();
  ASSERT_TRUE(document.is_object());
  ForEachOperation(document, [&](const std::string& path, const std::string& method, const json& operation) {
    std::set<std::string> templates;
    static const std::regex kTemplate(R"(\{([^}]+)\})");
    for (std::sregex_iterator it(path.begin(), path.end(), kTemplate), end; it != end; ++it) templates.insert((*it)[1]);
    std::set<std::string> declared;
    for (const json& parameter : operation.value("parameters", json::array())) {
      ASSERT_TRUE(parameter.contains("schema")) << method << " " << path << ": " << parameter.dump();
      if (parameter.value("in", "") != "path") continue;
      EXPECT_EQ(parameter.value("required", false), true) << method << " " << path << ": " << parameter.dump();
      declared.insert(parameter.value("name", ""));
    }
    EXPECT_EQ(declared, templates) << method << " " << path;
  });
}

TEST(OpenApiTest, EveryRefResolves) {
  const json document = Document();
  ASSERT_TRUE(document.is_object());
  std::vector<std::string> unresolved;
  UnresolvedRefs(document, document, unresolved);
  EXPECT_THAT(unresolved, IsEmpty());
  // The three error shapes, one per ErrorStyle.
  for (const char* name : {"Error", "AnthropicError", "JsonRpcError"}) {
    EXPECT_TRUE(document["components"]["responses"].contains(name)) << name;
  }
}

TEST(OpenApiTest, ServedWithoutAKeyAsJson) {
  ServerOptions options;
  options.threads = 2;
  ApiServer server(options, Authenticator(nullptr, "client-key"));
  RegisterOpenApiRoute(server);
  httplib::Client client("127.0.0.1", server.Start({"127.0.0.1", 0}).value());
  auto got = client.Get("/openapi.json");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->status, 200);
  EXPECT_EQ(got->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(json::parse(got->body, nullptr, false), Document());
  server.Shutdown(5s);
}

}  // namespace
}  // namespace cilia::api
