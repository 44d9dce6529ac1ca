#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "app/commands.h"

namespace cilia::app {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cilia-doctor-test-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override {
    unsetenv("CILIA_DOCTOR_TEST_KEY");
    std::filesystem::remove_all(dir_);
  }
  std::string WriteConfig(const std::string& toml) {
    std::string path = dir_ + "/cilia.toml";
    std::ofstream(path) << toml;
    return path;
  }
  // Runs `cilia doctor` with these flags; returns the exit code, stdout in *out.
  int Doctor(std::map<std::string, std::string> flags, std::string* out) {
    flags.emplace("data", dir_ + "/data");
    ::testing::internal::CaptureStdout();
    int code = RunDoctor(CommandLine{"doctor", {}, flags});
    *out = ::testing::internal::GetCapturedStdout();
    return code;
  }
  std::string dir_;
};

constexpr char kProvider[] = R"(
[server]
time_zone = "UTC"
[[providers]]
name = "main"
base_url = "http://127.0.0.1:PORT/v1"
api_key_env = "CILIA_DOCTOR_TEST_KEY"
)";

std::string WithPort(std::string toml, int port) {
  toml.replace(toml.find("PORT"), 4, std::to_string(port));
  return toml;
}

TEST_F(DoctorTest, AFreshSetupIsAllOk) {
  std::string out;
  EXPECT_EQ(Doctor({}, &out), kExitOk) << out;
  for (const char* check : {"config", "data dir", "free disk", "server", "keys", "time zone", "models", "embedder"}) {
    EXPECT_THAT(out, HasSubstr(std::string("ok    ") + check)) << out;
  }
  EXPECT_THAT(out, HasSubstr("missing; created on first use"));
  EXPECT_THAT(out, HasSubstr("hash (built in, 256 dimensions)"));
  EXPECT_THAT(out, Not(HasSubstr("FAIL")));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/data")) << "doctor must not create the data dir";
}

TEST_F(DoctorTest, AMissingProviderKeyFailsWithHowToMendIt) {
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(WithPort(kProvider, 9))}}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  provider main"));
  EXPECT_THAT(out, HasSubstr("-> export CILIA_DOCTOR_TEST_KEY=<the provider's key>"));
}

TEST_F(DoctorTest, WithTheKeySetTheProviderIsOkWithoutCallingIt) {
  setenv("CILIA_DOCTOR_TEST_KEY", "sk-doctor-test-0123456789", 1);
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(WithPort(kProvider, 9))}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("key from CILIA_DOCTOR_TEST_KEY"));
  EXPECT_THAT(out, Not(HasSubstr("sk-doctor-test")));
}

TEST_F(DoctorTest, CredentialsInABaseUrlAreNotPrinted) {
  setenv("CILIA_DOCTOR_TEST_KEY", "sk-doctor-test-0123456789", 1);
  std::string toml = WithPort(kProvider, 9);
  toml.replace(toml.find("http://"), 7, "http://proxyuser:hunter2pass@");
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig(toml)}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("at http://[redacted]@127.0.0.1:9/v1"));
  EXPECT_THAT(out, Not(HasSubstr("hunter2pass")));
  EXPECT_THAT(out, Not(HasSubstr("proxyuser")));
  EXPECT_EQ(Doctor({{"config", WriteConfig(toml)}, {"online", ""}}, &out), kExitFailure) << "nothing listens on port 9";
  EXPECT_THAT(out, Not(HasSubstr("hunter2pass")));
}

TEST_F(DoctorTest, OnlineItAsksTheProviderAndReportsARefusedKey) {
  httplib::Server upstream;
  upstream.Get("/v1/models", [](const httplib::Request& req, httplib::Response& res) {
    res.status = req.get_header_value("Authorization") == "Bearer sk-good-key-0123456789" ? 200 : 401;
    res.set_content("{}", "application/json");
  });
  int port = upstream.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { upstream.listen_after_bind(); });
  std::string config = WriteConfig(WithPort(kProvider, port));

  setenv("CILIA_DOCTOR_TEST_KEY", "sk-wrong-key-0123456789", 1);
  std::string out;
  EXPECT_EQ(Doctor({{"config", config}, {"online", ""}}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  provider main"));
  EXPECT_THAT(out, HasSubstr("the key is refused (HTTP 401)"));

  setenv("CILIA_DOCTOR_TEST_KEY", "sk-good-key-0123456789", 1);
  EXPECT_EQ(Doctor({{"config", config}, {"online", ""}}, &out), kExitOk) << out;
  EXPECT_THAT(out, HasSubstr("reachable (HTTP 200 for /models)"));
  upstream.stop();
  serving.join();
}

TEST_F(DoctorTest, ABadConfigIsOneFailLineAndExitTwo) {
  std::string out;
  EXPECT_EQ(Doctor({{"config", WriteConfig("[server]\nlisen = 1\n")}}, &out), kExitUsage);
  EXPECT_THAT(out, HasSubstr("FAIL  config"));
  EXPECT_THAT(out, HasSubstr("unknown key \"server.lisen\""));
}

TEST_F(DoctorTest, AFileWhereTheDataDirShouldBeFails) {
  std::ofstream(dir_ + "/data") << "not a directory";
  std::string out;
  EXPECT_EQ(Doctor({}, &out), kExitFailure);
  EXPECT_THAT(out, HasSubstr("FAIL  data dir"));
  EXPECT_THAT(out, HasSubstr("is not a directory"));
}

}  // namespace
}  // namespace cilia::app
