#include "embed/openai_embedder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <mutex>
#include <nlohmann/json.hpp>

#include "testing/local_server.h"

namespace cilia::embed {
namespace {

using json = nlohmann::json;
using cilia::testing::LocalServer;

constexpr int kNaturalDimension = 4;

// What the fake model returns for a text before normalisation: the text's
// length first, so a test can tell which vector belongs to which text.
std::vector<float> RawVector(const std::string& text, int dimension) {
  std::vector<float> v(static_cast<size_t>(dimension), 0.0f);
  v[0] = static_cast<float>(text.size());
  if (dimension > 1) v[1] = 1.0f;
  return v;
}

std::vector<float> Normalized(std::vector<float> v) {
  float norm = 0;
  for (float x : v) norm += x * x;
  for (float& x : v) x /= std::sqrt(norm);
  return v;
}

class OpenAIEmbedderTest : public ::testing::Test {
 protected:
  struct Seen {
    std::vector<size_t> batch_sizes;
    std::vector<json> bodies;
    std::string authorization;
    int calls = 0;
  };

  OpenAIEmbedderOptions Options(const std::string& prefix = "") {
    OpenAIEmbedderOptions o;
    o.base_url = server_.Url(prefix + "/v1/");
    o.api_key = "sk-test-secret";
    o.model = "test-model";
    o.batch_size = 64;
    o.timeout_ms = 5000;
    return o;
  }

  std::unique_ptr<OpenAIEmbedder> MustCreate(const OpenAIEmbedderOptions& options) {
    auto created = OpenAIEmbedder::Create(options);
    EXPECT_TRUE(created.ok()) << created.status().ToString();
    return created.ok() ? std::move(created).value() : nullptr;
  }

  Seen seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  // Answers like the real API, items in reverse order (the index says whose).
  void Answer(const httplib::Request& req, httplib::Response& res, int dimension_override = 0) {
    const json body = json::parse(req.body);
    const std::vector<std::string> input = body["input"];
    {
      std::lock_guard lock(mutex_);
      seen_.batch_sizes.push_back(input.size());
      seen_.bodies.push_back(body);
      seen_.authorization = req.get_header_value("Authorization");
    }
    const int dimension = dimension_override > 0        ? dimension_override
                          : body.contains("dimensions") ? body["dimensions"].get<int>()
                                                        : kNaturalDimension;
    json data = json::array();
    for (size_t i = input.size(); i-- > 0;) {
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", RawVector(input[i], dimension)}});
    }
    res.set_content(json{{"object", "list"}, {"data", data}, {"model", body["model"]}}.dump(), "application/json");
  }

  int CountCall() {
    std::lock_guard lock(mutex_);
    return ++seen_.calls;
  }

  std::mutex mutex_;
  Seen seen_;

  LocalServer server_{[this](httplib::Server& s) {
    s.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) { Answer(req, res); });
    s.Post("/flaky/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      if (CountCall() == 1) {
        res.status = 500;
        res.set_content(R"({"error":{"message":"try again"}})", "application/json");
        return;
      }
      Answer(req, res);
    });
    s.Post("/busy/v1/embeddings", [this](const httplib::Request&, httplib::Response& res) {
      CountCall();
      res.status = 429;
      res.set_header("Retry-After", "0");
      res.set_content(R"({"error":{"message":"rate limited"}})", "application/json");
    });
    s.Post("/wrong-dimension/v1/embeddings",
           [this](const httplib::Request& req, httplib::Response& res) { Answer(req, res, 3); });
    s.Post("/bad-key/v1/embeddings", [](const httplib::Request&, httplib::Response& res) {
      res.status = 401;
      res.set_content(R"({"error":{"message":"Incorrect API key provided: sk-test-secret"}})", "application/json");
    });
    s.Post("/garbage/v1/embeddings", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("<html>gateway page</html>", "text/html");
    });
    s.Post("/short/v1/embeddings", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"data":[{"index":0,"embedding":[1,0,0,0]}]})", "application/json");
    });
  }};
};

TEST_F(OpenAIEmbedderTest, CreateAsksTheModelForItsDimensionWhenNotSet) {
  auto embedder = MustCreate(Options());
  ASSERT_NE(embedder, nullptr);

  EXPECT_EQ(embedder->dimension(), kNaturalDimension);
  EXPECT_EQ(embedder->id(), "openai:test-model:4");
  ASSERT_EQ(seen().bodies.size(), 1u);
  EXPECT_FALSE(seen().bodies[0].contains("dimensions"));
}

TEST_F(OpenAIEmbedderTest, SetDimensionIsSentAndNeedsNoProbe) {
  OpenAIEmbedderOptions options = Options();
  options.dimensions = 8;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);
  EXPECT_EQ(embedder->id(), "openai:test-model:8");
  EXPECT_TRUE(seen().bodies.empty());

  auto vectors = embedder->Embed({"hello"}, Purpose::kPassage);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ((*vectors)[0].size(), 8u);
  ASSERT_EQ(seen().bodies.size(), 1u);
  EXPECT_EQ(seen().bodies[0]["dimensions"], 8);
  EXPECT_EQ(seen().bodies[0]["model"], "test-model");
  EXPECT_EQ(seen().authorization, "Bearer sk-test-secret");
}

TEST_F(OpenAIEmbedderTest, TextsAreSentInBatchesAndComeBackInInputOrder) {
  OpenAIEmbedderOptions options = Options();
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);
  std::vector<std::string> texts;
  for (int i = 0; i < 150; ++i) texts.push_back(std::string(static_cast<size_t>(i + 1), 'x'));

  auto vectors = embedder->Embed(texts, Purpose::kPassage);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(seen().batch_sizes, (std::vector<size_t>{64, 64, 22}));
  ASSERT_EQ(vectors->size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<float> expected = Normalized(RawVector(texts[i], kNaturalDimension));
    for (size_t d = 0; d < expected.size(); ++d) ASSERT_NEAR((*vectors)[i][d], expected[d], 1e-6) << i;
  }
}

TEST_F(OpenAIEmbedderTest, EmptyTextsAreNotSentAndGetTheZeroVector) {
  OpenAIEmbedderOptions options = Options();
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  auto vectors = embedder->Embed({"", "你好🙂", ""}, Purpose::kPassage);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(seen().batch_sizes, (std::vector<size_t>{1}));
  EXPECT_EQ((*vectors)[0], std::vector<float>(4, 0.0f));
  EXPECT_EQ((*vectors)[2], std::vector<float>(4, 0.0f));
  EXPECT_NEAR((*vectors)[1][0], Normalized(RawVector("你好🙂", 4))[0], 1e-6);
}

TEST_F(OpenAIEmbedderTest, NothingToEmbedSendsNothing) {
  OpenAIEmbedderOptions options = Options();
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  EXPECT_TRUE(embedder->Embed({}, Purpose::kPassage).ok());
  EXPECT_TRUE(embedder->Embed({"", ""}, Purpose::kPassage).ok());
  EXPECT_TRUE(seen().bodies.empty());
}

TEST_F(OpenAIEmbedderTest, IllFormedUtf8IsSentAsReplacementCharacters) {
  OpenAIEmbedderOptions options = Options();
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  auto vectors = embedder->Embed({std::string("ab\xFF", 3)}, Purpose::kPassage);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(seen().bodies[0]["input"][0], "ab\xEF\xBF\xBD");
}

TEST_F(OpenAIEmbedderTest, ServerErrorIsRetried) {
  OpenAIEmbedderOptions options = Options("/flaky");
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  auto vectors = embedder->Embed({"hello"}, Purpose::kPassage);

  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(seen().calls, 2);
}

TEST_F(OpenAIEmbedderTest, RateLimitGivesUpAfterThreeTries) {
  OpenAIEmbedderOptions options = Options("/busy");
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  auto vectors = embedder->Embed({"hello"}, Purpose::kPassage);

  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), Code::kUnavailable);
  EXPECT_NE(vectors.status().message().find("429"), std::string::npos);
  EXPECT_EQ(seen().calls, 3);
}

TEST_F(OpenAIEmbedderTest, WrongDimensionIsRejectedNamingTheModel) {
  OpenAIEmbedderOptions options = Options("/wrong-dimension");
  options.dimensions = kNaturalDimension;
  auto embedder = MustCreate(options);
  ASSERT_NE(embedder, nullptr);

  auto vectors = embedder->Embed({"hello"}, Purpose::kPassage);

  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), Code::kInvalidArgument);
  EXPECT_NE(vectors.status().message().find("test-model"), std::string::npos);
  EXPECT_NE(vectors.status().message().find("3-dimension"), std::string::npos);
}

TEST_F(OpenAIEmbedderTest, RejectedKeyIsUnauthenticatedAndNeverShown) {
  auto created = OpenAIEmbedder::Create(Options("/bad-key"));

  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), Code::kUnauthenticated);
  EXPECT_NE(created.status().message().find("Incorrect API key"), std::string::npos);
  EXPECT_EQ(created.status().message().find("sk-test-secret"), std::string::npos);
}

TEST_F(OpenAIEmbedderTest, ReplyThatIsNotTheApiIsUnavailable) {
  for (const char* prefix : {"/garbage", "/short"}) {
    OpenAIEmbedderOptions options = Options(prefix);
    options.dimensions = kNaturalDimension;
    auto embedder = MustCreate(options);
    ASSERT_NE(embedder, nullptr);

    auto vectors = embedder->Embed({"a", "b"}, Purpose::kPassage);

    ASSERT_FALSE(vectors.ok()) << prefix;
    EXPECT_EQ(vectors.status().code(), Code::kUnavailable) << prefix;
  }
}

TEST_F(OpenAIEmbedderTest, UnreachableServerIsUnavailable) {
  OpenAIEmbedderOptions options = Options();
  options.base_url = "http://127.0.0.1:1/v1";  // port 1: nothing listens there

  auto created = OpenAIEmbedder::Create(options);

  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), Code::kUnavailable);
  EXPECT_NE(created.status().message().find("test-model"), std::string::npos);
}

TEST_F(OpenAIEmbedderTest, OptionsAreChecked) {
  auto with = [this](auto change) {
    OpenAIEmbedderOptions o = Options();
    change(o);
    return OpenAIEmbedder::Create(o).status().code();
  };
  EXPECT_EQ(with([](auto& o) { o.base_url.clear(); }), Code::kInvalidArgument);
  EXPECT_EQ(with([](auto& o) { o.model.clear(); }), Code::kInvalidArgument);
  EXPECT_EQ(with([](auto& o) { o.batch_size = 0; }), Code::kInvalidArgument);
  EXPECT_EQ(with([](auto& o) { o.dimensions = -1; }), Code::kInvalidArgument);
  EXPECT_EQ(with([](auto& o) { o.timeout_ms = 0; }), Code::kInvalidArgument);
}

}  // namespace
}  // namespace cilia::embed
