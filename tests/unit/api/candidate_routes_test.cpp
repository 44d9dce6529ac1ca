#include "api/candidate_routes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/registry_server.h"
#include "api/excerpt_routes.h"
#include "memory/archive/archive.h"
#include "memory/excerpts/candidates.h"

namespace cilia::api {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class CandidateRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ingest::IngestConversation c;
    c.conversation_id = "chat";
    c.messages = {{"u1", "user", "Lena", "I live in Chengdu, near the university.", 1'779'900'000'000},
                  {"u2", "user", "Lena", "Big news: I moved to Beijing last week.", 1'779'900'060'000}};
    ASSERT_TRUE(memory::Archive(server_.ns()).StoreAndIndex(c).ok());
  }
  // A queued candidate quoting u2, optionally targeting an excerpt (use
  // with ASSERT_NO_FATAL_FAILURE).
  void Queue(std::string* id, std::optional<int64_t> target = std::nullopt) {
    memory::NewExcerpt item;
    item.content = "Lena lives in Beijing.";
    item.quote = "I moved to Beijing last week";
    item.conversation_id = "chat";
    auto checked = memory::Excerpts(server_.ns()).CheckQuote(item);
    ASSERT_TRUE(checked.ok()) << checked.status().ToString();
    memory::Excerpts::Draft d;
    d.content = item.content;
    d.quote = *checked;
    d.confidence = 0.6;
    d.fact_key = "home_city";
    auto c = memory::Candidates(server_.ns()).Queue(d, "2026-05-20", "low_confidence", target);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    *id = memory::CandidatePublicId(c->id);
  }
  // An excerpt of u1 written by `who` (use with ASSERT_NO_FATAL_FAILURE).
  void Excerpt(memory::Author who, int64_t* id = nullptr) {
    memory::NewExcerpt item;
    item.content = "Lena lives in Chengdu.";
    item.quote = "I live in Chengdu";
    item.conversation_id = "chat";
    item.fact_key = "home_city";
    auto created = memory::Excerpts(server_.ns()).Create(item, who);
    ASSERT_TRUE(created.ok()) << created.status().ToString();
    if (id) *id = created->id;
  }
  httplib::Result Post(const std::string& path, const json& body, const std::string& key) {
    return server_.client().Post(path.c_str(), server_.As(key), body.dump(), "application/json");
  }

  testing::RegistryServer server_{[](ApiServer& s, memory::Registry& r) {
    RegisterCandidateRoutes(s, r);
    RegisterExcerptRoutes(s, r);
  }};
};

TEST_F(CandidateRoutesTest, ListingShowsPendingCandidatesWithTheirEvidence) {
  std::string id;
  ASSERT_NO_FATAL_FAILURE(Queue(&id));
  auto r = server_.client().Get("/v1/candidates", server_.As(server_.reader));
  ASSERT_EQ(r->status, 200) << r->body;
  const json list = json::parse(r->body);
  ASSERT_EQ(list["candidates"].size(), 1u);
  const json c = list["candidates"][0];
  EXPECT_EQ(c["id"], id);
  EXPECT_EQ(c["quote"], "I moved to Beijing last week");
  EXPECT_EQ(c["message_ids"], json::array({"u2"}));
  EXPECT_EQ(c["reason"], "low_confidence");
  EXPECT_EQ(c["status"], "pending");
  EXPECT_TRUE(list["next_cursor"].is_null());
}

TEST_F(CandidateRoutesTest, ApproveSupersedesTheHolderAndTheMemoryAppears) {
  ASSERT_NO_FATAL_FAILURE(Excerpt(memory::Author::kExtractor));
  std::string id;
  ASSERT_NO_FATAL_FAILURE(Queue(&id));
  auto r = Post("/v1/candidates/" + id + "/approve", json::object(), server_.writer);
  ASSERT_EQ(r->status, 200) << r->body;
  const json out = json::parse(r->body);
  EXPECT_EQ(out["candidate"]["status"], "approved");
  EXPECT_EQ(out["memory"]["content"], "Lena lives in Beijing.");
  EXPECT_EQ(out["candidate"]["result_id"], out["memory"]["id"]);
  auto old = json::parse(server_.client().Get("/v1/memories/x_1", server_.As(server_.reader))->body);
  EXPECT_EQ(old["status"], "superseded");
  EXPECT_EQ(Post("/v1/candidates/" + id + "/approve", json::object(), server_.writer)->status, 409);
}

TEST_F(CandidateRoutesTest, ApprovingOverTheOwnersExcerptIs409WithAReason) {
  int64_t owners = 0;
  ASSERT_NO_FATAL_FAILURE(Excerpt(memory::Author::kOwner, &owners));
  std::string id;
  ASSERT_NO_FATAL_FAILURE(Queue(&id, owners));
  auto r = Post("/v1/candidates/" + id + "/approve", json::object(), server_.admin);
  ASSERT_EQ(r->status, 409);
  EXPECT_THAT(json::parse(r->body)["error"]["message"].get<std::string>(), HasSubstr("which the owner wrote"));
  auto explicit_supersede = Post("/v1/candidates/" + id + "/supersede", {{"target_id", "x_1"}}, server_.admin);
  ASSERT_EQ(explicit_supersede->status, 200) << explicit_supersede->body;
}

TEST_F(CandidateRoutesTest, MergeNeedsATargetAndDiscardCloses) {
  ASSERT_NO_FATAL_FAILURE(Excerpt(memory::Author::kExtractor));
  std::string id;
  ASSERT_NO_FATAL_FAILURE(Queue(&id));
  EXPECT_EQ(Post("/v1/candidates/" + id + "/merge", json::object(), server_.writer)->status, 400);
  auto merged = Post("/v1/candidates/" + id + "/merge", {{"target_id", "x_1"}}, server_.writer);
  ASSERT_EQ(merged->status, 200) << merged->body;
  EXPECT_EQ(json::parse(merged->body)["memory"]["seen_count"], 2);
  EXPECT_EQ(Post("/v1/candidates/" + id + "/discard", json::object(), server_.writer)->status, 409);
  EXPECT_EQ(Post("/v1/candidates/c_99/discard", json::object(), server_.writer)->status, 404);
  EXPECT_EQ(Post("/v1/candidates/" + id + "/discard", json::object(), server_.reader)->status, 403);
  auto all = json::parse(server_.client().Get("/v1/candidates?status=merged", server_.As(server_.reader))->body);
  EXPECT_EQ(all["candidates"].size(), 1u);
}

}  // namespace
}  // namespace cilia::api
