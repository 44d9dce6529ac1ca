#include "api/job_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <chrono>
#include <thread>

#include "memory/archive/archive.h"
#include "testing/registry_server.h"
#include "testing/scripted_model.h"

namespace cilia::api {
namespace {

using nlohmann::json;

class JobRoutesTest : public ::testing::Test {
 protected:
  httplib::Result Run(const std::string& job, const std::string& key) {
    return server_.client().Post(("/v1/jobs/" + job + "/run").c_str(), server_.As(key), "", "application/json");
  }
  testing::RegistryServer server_{RegisterJobRoutes};
};

TEST_F(JobRoutesTest, AJobRunNowIsListedWithItsOutcome) {
  auto run = Run("retention", server_.admin);
  ASSERT_EQ(run->status, 200) << run->body;
  json body = json::parse(run->body);
  EXPECT_EQ(body["job"], "retention");
  EXPECT_EQ(body["outcome"], "ok");
  EXPECT_EQ(body["started_by"], "manual");
  EXPECT_EQ(body["namespace"], "default");
  auto failed = Run("nightly", server_.admin);
  ASSERT_EQ(failed->status, 200);
  EXPECT_EQ(json::parse(failed->body)["outcome"], "failed") << "no model is configured";

  auto list = server_.client().Get("/v1/jobs", server_.As(server_.admin));
  ASSERT_EQ(list->status, 200) << list->body;
  json runs = json::parse(list->body)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["job"], "nightly");
  EXPECT_THAT(runs[0]["error"].get<std::string>(), ::testing::HasSubstr("models.extract"));
  auto page = server_.client().Get("/v1/jobs?limit=1", server_.As(server_.admin));
  json first = json::parse(page->body);
  ASSERT_EQ(first["runs"].size(), 1u);
  auto next = server_.client().Get(("/v1/jobs?limit=1&cursor=" + first["next_cursor"].get<std::string>()).c_str(),
                                   server_.As(server_.admin));
  EXPECT_EQ(json::parse(next->body)["runs"][0]["job"], "retention");
  EXPECT_EQ(json::parse(server_.client().Get("/v1/jobs?job=retention", server_.As(server_.admin))->body)["runs"].size(), 1u);
}

TEST_F(JobRoutesTest, BackfillIsASwitchOfTheExtractJobOnly) {
  auto bad = server_.client().Post("/v1/jobs/extract/run?backfill=yes", server_.As(server_.admin), "", "application/json");
  EXPECT_EQ(bad->status, 400);
  EXPECT_THAT(json::parse(bad->body)["error"]["message"].get<std::string>(), ::testing::HasSubstr("backfill: must be"));
  auto nightly = server_.client().Post("/v1/jobs/nightly/run?backfill=true", server_.As(server_.admin), "", "application/json");
  EXPECT_EQ(nightly->status, 400);
  EXPECT_THAT(json::parse(nightly->body)["error"]["message"].get<std::string>(), ::testing::HasSubstr("only the extract job"));
  auto extract = server_.client().Post("/v1/jobs/extract/run?backfill=true", server_.As(server_.admin), "", "application/json");
  EXPECT_EQ(extract->status, 200) << extract->body;
  auto list = json::parse(server_.client().Get("/v1/jobs", server_.As(server_.admin))->body);
  EXPECT_EQ(list["running"], json::array()) << "nothing runs now";
  // No windows yet: nothing to embed, and the embedder the vectors would be of.
  EXPECT_EQ(list["embedding"]["windows"], 0);
  EXPECT_EQ(list["embedding"]["windows_embedded"], 0);
  EXPECT_THAT(list["embedding"]["embedder"].get<std::string>(), ::testing::StartsWith("hash-v1-"));
}

TEST(RunningJobJsonTest, HowFarARunIs) {
  memory::RunningJob running;
  running.run_id = 7;
  running.job = "extract";
  running.started_at = 1'780'000'000'000;
  running.progress = {120, 600, "messages", 4321, 1'780'000'060'000};
  EXPECT_EQ(RunningJobJson(running), json::parse(R"({"id": 7, "job": "extract", "started_at": "2026-05-28T20:26:40Z",
      "items_done": 120, "items_total": 600, "unit": "messages", "tokens": 4321,
      "updated_at": "2026-05-28T20:27:40Z"})"));
  running.progress = {};
  EXPECT_EQ(RunningJobJson(running)["updated_at"], nullptr);
}

// A run in progress over HTTP: the model holds its second call until let go.
class RunningJobRoutesTest : public ::testing::Test {
 protected:
  RunningJobRoutesTest()
      : model_([this](const json&) {
          if (++calls_ == 2) {
            while (hold_.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          return std::string(R"({"items": []})");
        }),
        server_(RegisterJobRoutes, 1'780'000'000'000, [this](Config& config) {
          const Config model = model_.MakeConfig();
          config.providers = model.providers;
          config.models = model.models;
        }) {}

  void Chat(const std::string& conversation) {
    ingest::IngestConversation c;
    c.conversation_id = conversation;
    for (int i = 0; i < 5; ++i) {
      c.messages.push_back({"", "user", "", conversation + " message " + std::to_string(i) + " about the garden.",
                            1'779'900'000'000 + i * 60'000});
    }
    ASSERT_TRUE(memory::Archive(server_.ns()).StoreAndIndex(c).ok());
  }

  std::atomic<int> calls_{0};
  std::atomic<bool> hold_{true};
  testing::ScriptedModel model_;
  testing::RegistryServer server_;
};

TEST_F(RunningJobRoutesTest, GetJobsShowsARunInProgressWithHowFarItIs) {
  Chat("a");
  Chat("b");
  std::optional<httplib::Result> run;
  std::thread post([&] {
    httplib::Client poster("127.0.0.1", server_.port());
    run.emplace(poster.Post("/v1/jobs/extract/run", server_.As(server_.admin), "", "application/json"));
  });
  json running;
  for (int i = 0; i < 5000; ++i) {
    auto list = server_.client().Get("/v1/jobs", server_.As(server_.admin));
    if (list && list->status == 200) {
      running = json::parse(list->body)["running"];
      if (!running.empty() && running[0]["items_done"] == 5) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  hold_ = false;
  post.join();
  ASSERT_EQ(running.size(), 1u) << running;
  EXPECT_EQ(running[0]["job"], "extract");
  EXPECT_EQ(running[0]["items_done"], 5);
  EXPECT_EQ(running[0]["items_total"], 10);
  EXPECT_EQ(running[0]["unit"], "messages");
  ASSERT_TRUE(run && *run && (*run)->status == 200);
  EXPECT_EQ(running[0]["id"], json::parse((*run)->body)["id"]);
  EXPECT_EQ(json::parse(server_.client().Get("/v1/jobs", server_.As(server_.admin))->body)["running"], json::array());
}

TEST_F(JobRoutesTest, JobsAreForAdminsAndUnknownJobsAre404) {
  EXPECT_EQ(server_.client().Get("/v1/jobs", server_.As(server_.writer))->status, 403);
  EXPECT_EQ(Run("retention", server_.writer)->status, 403);
  EXPECT_EQ(Run("dream", server_.admin)->status, 404);
  EXPECT_EQ(server_.client().Get("/v1/jobs?limit=0", server_.As(server_.admin))->status, 400);
}

}  // namespace
}  // namespace cilia::api
