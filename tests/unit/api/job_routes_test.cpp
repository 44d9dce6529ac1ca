#include "api/job_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"

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

TEST_F(JobRoutesTest, JobsAreForAdminsAndUnknownJobsAre404) {
  EXPECT_EQ(server_.client().Get("/v1/jobs", server_.As(server_.writer))->status, 403);
  EXPECT_EQ(Run("retention", server_.writer)->status, 403);
  EXPECT_EQ(Run("dream", server_.admin)->status, 404);
  EXPECT_EQ(server_.client().Get("/v1/jobs?limit=0", server_.As(server_.admin))->status, 400);
}

}  // namespace
}  // namespace cilia::api
