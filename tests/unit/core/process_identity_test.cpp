#include "core/process_identity.h"

#include <gmock/gmock.h>
#include <unistd.h>

#include <string>

namespace cilia {
namespace {

TEST(ProcessIdentityTest, NamesTheHostAndPidAndStaysTheSame) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const std::string& id = ProcessIdentity();
  EXPECT_THAT(id, ::testing::MatchesRegex(std::string(host) + ":" + std::to_string(getpid()) + ":[0-9a-f]{8}"));
  EXPECT_EQ(&ProcessIdentity(), &id);
}

}  // namespace
}  // namespace cilia
