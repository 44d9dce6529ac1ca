// POST /v1/import and ImportFile, the one import path of the server and the CLI.
#include "api/import_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/admin_routes.h"
#include "testing/import_test_helpers.h"
#include "testing/registry_server.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

using ingest::testing::kTripChats;

class ImportRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Import(const std::string& body, const std::string& key, const std::string& query = "") {
    return server_.client().Post(("/v1/import" + query).c_str(), server_.As(key), body, "application/octet-stream");
  }
  // The admin routes register import, and give the export to import from.
  testing::RegistryServer server_{RegisterAdminRoutes};
};

TEST_F(ImportRoutesTest, AChatExportImportsAndIsSearchableThenExportsAndImportsElsewhereAsADump) {
  auto imported = Import(kTripChats, server_.admin);
  ASSERT_EQ(imported->status, 200) << imported->body;
  json summary = json::parse(imported->body);
  EXPECT_EQ(summary["format"], "jsonl");
  EXPECT_EQ(summary["conversations"], 1);
  EXPECT_EQ(summary["stored"], 2);
  EXPECT_EQ(summary["duplicates"], 0);
  EXPECT_EQ(json::parse(Import(kTripChats, server_.admin)->body)["duplicates"], 2);
  EXPECT_EQ(server_.ns().WindowCount(), 1u) << "indexed before the answer";

  auto dump = server_.client().Get("/v1/export", server_.As(server_.admin));
  ASSERT_EQ(dump->status, 200) << dump->body;
  EXPECT_EQ(dump->get_header_value("Content-Type"), "application/x-ndjson; charset=utf-8");
  EXPECT_THAT(dump->get_header_value("Content-Disposition"), HasSubstr("attachment; filename=\"cilia-default-"));
  EXPECT_THAT(dump->body, HasSubstr("\"cilia-export\""));
  EXPECT_THAT(dump->body, HasSubstr("洱海"));

  auto restored = Import(dump->body, server_.other_admin);
  ASSERT_EQ(restored->status, 200) << restored->body;
  json again = json::parse(restored->body);
  EXPECT_EQ(again["format"], "cilia");
  EXPECT_EQ(again["conversations"], 1);
  EXPECT_EQ(again["stored"], 2);
  auto other_dump = server_.client().Get("/v1/export", server_.As(server_.other_admin));
  EXPECT_THAT(other_dump->body, HasSubstr("洱海"));
}

TEST_F(ImportRoutesTest, TheReplySaysWhatExtractingTheImportWouldCostAndThatItWaitsForTheOwner) {
  auto imported = Import(kTripChats, server_.admin);
  ASSERT_EQ(imported->status, 200) << imported->body;
  const json extraction = json::parse(imported->body)["extraction"];
  EXPECT_EQ(extraction["messages"], 2);
  EXPECT_EQ(extraction["batches"], 1);
  EXPECT_GT(extraction["estimated_prompt_tokens"].get<int64_t>(), 400) << "the instructions alone are ~480";
  EXPECT_EQ(extraction["automatic"], false) << "imported history waits for a backfill";
  EXPECT_EQ(extraction["waiting_batches"], 1);
  EXPECT_EQ(extraction["daily_token_budget"], 500000);
  EXPECT_EQ(extraction["max_batches_per_run"], 20);
  EXPECT_EQ(extraction["days_at_budget"], 1);
  const json again = json::parse(Import(kTripChats, server_.admin)->body)["extraction"];
  EXPECT_EQ(again["messages"], 2) << "of the conversations imported, what the job has not read yet";

  // A dump: its messages keep their source, and the estimate covers the namespace.
  auto dump = server_.client().Get("/v1/export", server_.As(server_.admin));
  const json restored = json::parse(Import(dump->body, server_.other_admin)->body);
  EXPECT_EQ(restored["extraction"]["batches"], 1);
  EXPECT_EQ(restored["extraction"]["automatic"], false);
}

TEST(ImportEstimateTest, WithBackfillOnTheJobTakesImportedHistoryOnItsOwn) {
  testing::RegistryServer server(RegisterAdminRoutes, 1'780'000'000'000,
                                 [](Config& config) { config.extraction.backfill = true; });
  auto imported = ImportFile(server.ns(), server.config(), kTripChats, "auto", "trip.jsonl");
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  EXPECT_EQ((*imported)["extraction"]["automatic"], true);
  EXPECT_EQ((*imported)["extraction"]["waiting_batches"], 0);
}

TEST_F(ImportRoutesTest, ImportAndExportAreForAdminsAndABadFileImportsNothing) {
  EXPECT_EQ(Import(kTripChats, server_.writer)->status, 403);
  EXPECT_EQ(server_.client().Get("/v1/export", server_.As(server_.reader))->status, 403);

  auto bad_format = Import(kTripChats, server_.admin, "?format=word");
  EXPECT_EQ(bad_format->status, 400);
  EXPECT_THAT(json::parse(bad_format->body)["error"]["message"].get<std::string>(), ::testing::StartsWith("format: "));
  auto empty = Import("", server_.admin);
  EXPECT_EQ(empty->status, 400);
  auto broken = Import(std::string(kTripChats) + "{\"conversation_id\": \"b\", \"messages\": [{\"role\": \"user\"}]}\n",
                       server_.admin);
  EXPECT_EQ(broken->status, 400);
  EXPECT_THAT(json::parse(broken->body)["error"]["message"].get<std::string>(), HasSubstr("line 2"));
  auto bad_dump = Import("{\"type\": \"cilia-export\", \"version\": 99}\n", server_.admin);
  EXPECT_EQ(bad_dump->status, 400);
  EXPECT_EQ(server_.ns().WindowCount(), 0u) << "nothing of a bad file is stored";
}

struct Step {
  int64_t done, total;
  std::string unit;
};

TEST_F(ImportRoutesTest, ImportFileReportsMessagesIndexedOfAChatExportAndBytesReadOfADump) {
  std::vector<Step> steps;
  auto record = [&steps](int64_t done, int64_t total, std::string_view unit) {
    steps.push_back({done, total, std::string(unit)});
  };
  auto chats = ImportFile(server_.ns(), server_.config(), kTripChats, "auto", "trip.jsonl", record);
  ASSERT_TRUE(chats.ok()) << chats.status().ToString();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].done, 2);
  EXPECT_EQ(steps[0].total, 2);
  EXPECT_EQ(steps[0].unit, "messages");

  auto dump = server_.client().Get("/v1/export", server_.As(server_.admin));
  ASSERT_EQ(dump->status, 200);
  steps.clear();
  auto restored = ImportFile(server_.ns("other"), server_.config(), dump->body, "cilia", "dump.jsonl", record);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ((*restored)["stored"], 2);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back().unit, "bytes");
  EXPECT_EQ(steps.back().done, static_cast<int64_t>(dump->body.size()));
  EXPECT_EQ(steps.back().total, static_cast<int64_t>(dump->body.size()));
}

TEST_F(ImportRoutesTest, ASillyTavernChatIsNamedByTheFileNameWithoutItsFolderAndExtension) {
  const std::string chat =
      "{\"user_name\": \"Mina\", \"character_name\": \"Seraphina\", \"create_date\": \"2024-07-12@01h31m37s\"}\n"
      "{\"name\": \"Mina\", \"is_user\": true, \"send_date\": \"2024-07-12T01:32:10.500Z\", \"mes\": \"hello "
      "there\"}\n";
  auto imported = Import(chat, server_.admin, "?format=sillytavern&name=Seraphina%20-%201.jsonl");
  ASSERT_EQ(imported->status, 200) << imported->body;
  auto direct = ImportFile(server_.ns("other"), server_.config(), chat, "sillytavern", "/home/mina/chats/Seraphina - 1.jsonl");
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  for (const char* name : {"default", "other"}) {
    auto dump = server_.client().Get("/v1/export",
                                     server_.As(std::string(name) == "default" ? server_.admin : server_.other_admin));
    EXPECT_THAT(dump->body, HasSubstr("\"Seraphina - 1:2024-07-12@01h31m37s\"")) << name;
  }
}

}  // namespace
}  // namespace cilia::api
