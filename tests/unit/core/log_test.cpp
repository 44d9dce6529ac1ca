#include "core/log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace cilia {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    SetLogSink([this](std::string_view line) { lines_.emplace_back(line); });
    SetLogLevel(LogLevel::kInfo);
  }
  void TearDown() override {
    SetLogSink(nullptr);
    SetLogLevel(LogLevel::kInfo);
  }
  std::vector<std::string> lines_;
};

TEST_F(LogTest, ALineCarriesTimeLevelAndMessage) {
  LogWarn("disk {} is {}% full", "/data", 93);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], EndsWith(" WARN disk /data is 93% full"));
  EXPECT_TRUE(std::regex_match(lines_[0], std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z WARN .*)")))
      << lines_[0];
}

TEST_F(LogTest, LinesBelowTheLevelAreDropped) {
  LogDebug("hidden");
  LogInfo("shown");
  SetLogLevel(LogLevel::kError);
  LogWarn("hidden too");
  LogError("failed");
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_THAT(lines_[0], EndsWith("INFO shown"));
  EXPECT_THAT(lines_[1], EndsWith("ERROR failed"));
  EXPECT_FALSE(LogEnabled(LogLevel::kWarn));
  EXPECT_EQ(GetLogLevel(), LogLevel::kError);
}

TEST_F(LogTest, Utf8PassesThroughUntouched) {
  LogInfo("记住了 🌸 Café");
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], EndsWith("INFO 记住了 🌸 Café"));
}

TEST(LogLevelTest, ParsesTheLevelNames) {
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("info"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("warn"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("warning"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
  EXPECT_FALSE(ParseLogLevel("INFO").ok());
  EXPECT_FALSE(ParseLogLevel("").ok());
  EXPECT_THAT(ParseLogLevel("trace").status().message(), HasSubstr("\"trace\""));
  EXPECT_STREQ(LogLevelName(LogLevel::kWarn), "warn");
}

TEST(RedactTest, KeyShapedTokensAreRedacted) {
  EXPECT_EQ(RedactSecrets("key ck_AbCdEfGh0123456789AbCdEfGh0123456789AbCd used"), "key [redacted] used");
  EXPECT_EQ(RedactSecrets("upstream said: invalid sk-proj-abc_DEF-123456 key"), "upstream said: invalid [redacted] key");
  EXPECT_EQ(RedactSecrets("Authorization: Bearer cilia_test_0a1b2c3d"), "Authorization: Bearer [redacted]");
  EXPECT_EQ(RedactSecrets("\"authorization\":\"Bearer xyz\""), "\"authorization\":\"Bearer [redacted]\"");
}

TEST(RedactTest, CredentialsInAUrlAreRedactedTheHostKept) {
  EXPECT_EQ(RedactSecrets("GET https://bob:s3cret@api.example.test/v1/models failed"),
            "GET https://[redacted]@api.example.test/v1/models failed");
  EXPECT_EQ(RedactSecrets("\"http://tok@127.0.0.1:9/v1\""), "\"http://[redacted]@127.0.0.1:9/v1\"");
  EXPECT_EQ(RedactSecrets("http://127.0.0.1/v1?who=a@b"), "http://127.0.0.1/v1?who=a@b") << "an @ after the path is data";
  EXPECT_EQ(RedactSecrets("mail me: a@b, see http://host/x"), "mail me: a@b, see http://host/x");
  EXPECT_EQ(RedactSecrets("odd http://@host"), "odd http://@host");
}

TEST(RedactTest, OrdinaryTextIsLeftAlone) {
  EXPECT_EQ(RedactSecrets("stuck_in_traffic_for_hours"), "stuck_in_traffic_for_hours");
  EXPECT_EQ(RedactSecrets("ck_short and sk-tiny"), "ck_short and sk-tiny");
  EXPECT_EQ(RedactSecrets("task-1234567890"), "task-1234567890");
  EXPECT_EQ(RedactSecrets("Bearer "), "Bearer ");
  EXPECT_EQ(RedactSecrets(""), "");
  EXPECT_EQ(RedactSecrets("山顶的风很大"), "山顶的风很大");
}

TEST(RedactTest, RegisteredSecretsAreRedactedWhateverTheirShape) {
  AddLogSecret("hunter2-is-my-password");
  AddLogSecret("short");  // too short to be a key: ignored
  EXPECT_EQ(RedactSecrets("pw=hunter2-is-my-password; again hunter2-is-my-password"),
            "pw=[redacted]; again [redacted]");
  EXPECT_EQ(RedactSecrets("a short word"), "a short word");
}

TEST_F(LogTest, SecretsNeverReachALine) {
  AddLogSecret("cilia_test_secret_value_42");
  LogError("request with key cilia_test_secret_value_42 failed (Bearer ck_0123456789abcdef)");
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_THAT(lines_[0], Not(HasSubstr("cilia_test_secret_value_42")));
  EXPECT_THAT(lines_[0], Not(HasSubstr("ck_0123456789abcdef")));
  EXPECT_THAT(lines_[0], HasSubstr("request with key [redacted] failed"));
}

}  // namespace
}  // namespace cilia
