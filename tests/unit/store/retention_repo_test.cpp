#include "store/retention_repo.h"

#include <fmt/format.h>
#include <gmock/gmock.h>

#include "migrated_db.h"

namespace cilia::store {
namespace {

using RetentionRepoTest = testing::BackendTest;

TEST_P(RetentionRepoTest, OnlyDecidedCandidatesAndOldRecallLogRowsGo) {
  ASSERT_TRUE(db().Exec("INSERT INTO conversations(id, external_id, created_at, updated_at) VALUES (1, 'c', 0, 0);"
                        "INSERT INTO messages(id, conversation_id, seq, role, content, text, content_hash, created_at, "
                        "stored_at, source) VALUES (1, 1, 0, 'user', '\"x\"', 'x', 'h', 0, 0, 'api');")
                  .ok());
  for (const char* status : {"pending", "approved", "discarded", "merged"}) {
    ASSERT_TRUE(db().Exec(fmt::format("INSERT INTO candidates(content, quote, conversation_id, message_id, span_start, "
                                      "span_end, type, confidence, reason, status, created_at, updated_at) VALUES "
                                      "('c', 'q', 1, 1, 0, 1, 'fact', 0.5, 'low_confidence', '{}', 10, 10)",
                                      status))
                    .ok());
  }
  ASSERT_TRUE(db().Exec("INSERT INTO recall_log(at, query, layer, item_id, score) VALUES (10, 'q', 'archive', 1, 1),"
                        "(1000, 'q', 'archive', 1, 1)").ok());
  RetentionRepo repo(db());
  EXPECT_EQ(*repo.DeleteDecidedCandidatesBefore(5), 0);
  EXPECT_EQ(*repo.DeleteDecidedCandidatesBefore(100), 3);
  EXPECT_EQ(*repo.DeleteDecidedCandidatesBefore(100), 0) << "the pending one waits for the owner";
  EXPECT_EQ(*repo.DeleteRecallLogBefore(100), 1);
}

CILIA_ON_EACH_BACKEND(RetentionRepoTest);

}  // namespace
}  // namespace cilia::store
