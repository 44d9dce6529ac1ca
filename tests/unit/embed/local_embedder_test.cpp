#include "embed/local_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llama.h>

#include <cmath>
#include <fstream>
#include <thread>

#include "embed/llama_runtime.h"
#include "testing/temp_dir.h"
#include "testing/tiny_gguf.h"

namespace cilia::embed {
namespace {

namespace wp = cilia::testing::wp;
namespace ug = cilia::testing::ug;
using cilia::testing::TinyBertSpec;
using cilia::testing::TinyTokenizer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

double Norm(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  return d;
}

// llama.cpp's own embedding path, one sequence at a time, without pooling:
// every token's output, pooled here as the model declares.
std::vector<float> Reference(const std::string& path, const std::vector<int32_t>& tokens, int pooling) {
  InitLlamaRuntime();
  llama_model* model = llama_model_load_from_file(path.c_str(), llama_model_default_params());
  llama_context_params cp = llama_context_default_params();
  cp.embeddings = true;
  cp.pooling_type = LLAMA_POOLING_TYPE_NONE;
  cp.n_ctx = cp.n_batch = cp.n_ubatch = 512;
  cp.n_threads = cp.n_threads_batch = 1;
  llama_context* ctx = llama_init_from_model(model, cp);
  const int n = static_cast<int>(tokens.size());
  llama_batch b = llama_batch_init(n, 0, 1);
  for (int i = 0; i < n; ++i) {
    b.token[i] = tokens[i];
    b.pos[i] = i;
    b.n_seq_id[i] = 1;
    b.seq_id[i][0] = 0;
    b.logits[i] = 1;
  }
  b.n_tokens = n;
  EXPECT_EQ(llama_encode(ctx, b), 0);
  const int dim = llama_model_n_embd(model);
  std::vector<float> pooled(dim, 0.0f);
  for (int i = 0; i < n; ++i) {
    const bool counts = pooling == 1 || (pooling == 2 && i == 0) || (pooling == 3 && i == n - 1);
    if (!counts) continue;
    const float* e = llama_get_embeddings_ith(ctx, i);
    for (int k = 0; k < dim; ++k) pooled[k] += e[k];
  }
  const double norm = Norm(pooled);
  for (float& x : pooled) x = static_cast<float>(x / norm);
  llama_batch_free(b);
  llama_free(ctx);
  llama_model_free(model);
  return pooled;
}

class LocalEmbedderTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const TinyBertSpec& spec) {
    const std::string path = dir_.Sub(name);
    EXPECT_TRUE(cilia::testing::WriteTinyBert(path, spec));
    return path;
  }
  std::unique_ptr<LocalEmbedder> Load(const std::string& path, LocalEmbedderOptions o = {}) {
    o.model_path = path;
    if (o.threads == 0) o.threads = 2;
    auto e = LocalEmbedder::Create(std::move(o));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(*e) : nullptr;
  }
  std::vector<int32_t> Tokens(const LocalEmbedder& e, const std::string& text) {
    auto t = e.Tokenize(text);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : std::vector<int32_t>{};
  }
  std::vector<std::vector<float>> Vectors(const LocalEmbedder& e, const std::vector<std::string>& texts,
                                          Purpose purpose = Purpose::kPassage) {
    auto v = e.Embed(texts, purpose);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : std::vector<std::vector<float>>{};
  }

  cilia::testing::TempDir dir_;
};

TEST_F(LocalEmbedderTest, LoadsTheModelAndNamesItWithItsDimension) {
  TinyBertSpec spec;
  spec.name = "bge-tiny";
  auto e = Load(Write("m.gguf", spec));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->dimension(), 32);
  EXPECT_THAT(e->id(), StartsWith("local:bge-tiny:"));
  EXPECT_THAT(e->id(), ::testing::EndsWith(":32"));
  EXPECT_EQ(e->id().size(), std::string("local:bge-tiny::32").size() + 12);
  EXPECT_EQ(e->info().tokenizer, "bert");
  EXPECT_EQ(e->pooling(), LLAMA_POOLING_TYPE_CLS);
  EXPECT_EQ(e->context_tokens(), 64);
  EXPECT_GT(e->load_ms(), 0);
  EXPECT_TRUE(e->slow());
  EXPECT_FALSE(e->remote());
}

TEST_F(LocalEmbedderTest, DescribesItselfForTheOwnerWithWhatTheFileDeclares) {
  TinyBertSpec spec;
  spec.name = "bge-tiny";
  spec.tokenizer = cilia::testing::TinyTokenizer::kUnigram;
  spec.pooling = 1;
  const std::string path = Write("m.gguf", spec);
  auto e = Load(path);
  ASSERT_TRUE(e);
  EXPECT_THAT(e->Describe(), ::testing::MatchesRegex("local model " + path +
                                                     ": bge-tiny \\(bert\\), 32 dimensions, mean pooling, "
                                                     "Unigram tokenizer, 2 layers, loaded in [0-9]+ ms"));
}

TEST_F(LocalEmbedderTest, TokenisesWordPieceAsTheVocabularySays) {
  auto e = Load(Write("wp.gguf", {}));
  ASSERT_TRUE(e);
  EXPECT_THAT(Tokens(*e, "Hello, world!"), ElementsAre(wp::kCls, wp::kHello, wp::kComma, wp::kWorld, wp::kBang, wp::kSep));
  EXPECT_THAT(Tokens(*e, "我们组新来的小周"), ElementsAre(wp::kCls, wp::kWo, wp::kMen, wp::kZu, wp::kXin, wp::kLai,
                                                         wp::kDe, wp::kXiao, wp::kZhou, wp::kSep));
  EXPECT_THAT(Tokens(*e, "😀"), ElementsAre(wp::kCls, wp::kEmojiWord, wp::kSep));
  EXPECT_THAT(Tokens(*e, "memory 小周 hello😀"),
              ElementsAre(wp::kCls, wp::kMem, wp::kOry, wp::kXiao, wp::kZhou, wp::kHello, wp::kEmoji, wp::kSep));
  EXPECT_THAT(Tokens(*e, "xyz"), ElementsAre(wp::kCls, wp::kUnk, wp::kSep));
}

TEST_F(LocalEmbedderTest, TokenisesUnigramAsTheVocabularySays) {
  TinyBertSpec spec;
  spec.tokenizer = TinyTokenizer::kUnigram;
  auto e = Load(Write("ugm.gguf", spec));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->info().tokenizer, "t5");
  EXPECT_THAT(Tokens(*e, "hello, world!"), ElementsAre(ug::kBos, ug::kHello, ug::kComma, ug::kWorld, ug::kBang, ug::kEos));
  EXPECT_THAT(Tokens(*e, "我们小周"), ElementsAre(ug::kBos, ug::kWomen, ug::kXiaoZhou, ug::kEos));
  EXPECT_THAT(Tokens(*e, "😀"), ElementsAre(ug::kBos, ug::kSpace, ug::kEmoji, ug::kEos));
  // The best-scoring split: "▁" + "小周" (-6) beats "▁小" + "周" (-7).
  EXPECT_THAT(Tokens(*e, "memory 小周😀"),
              ElementsAre(ug::kBos, ug::kMem, ug::kOry, ug::kSpace, ug::kXiaoZhou, ug::kEmoji, ug::kEos));
}

TEST_F(LocalEmbedderTest, GivesUnitVectorsOfTheModelsDimensionAndZeroForEmptyText) {
  auto e = Load(Write("m.gguf", {}));
  ASSERT_TRUE(e);
  auto v = Vectors(*e, {"hello world", "", "我们组新来的小周"});
  ASSERT_EQ(v.size(), 3u);
  for (const auto& x : v) ASSERT_EQ(x.size(), 32u);
  EXPECT_NEAR(Norm(v[0]), 1.0, 1e-5);
  EXPECT_NEAR(Norm(v[2]), 1.0, 1e-5);
  EXPECT_EQ(Norm(v[1]), 0.0);
  EXPECT_GT(MaxDiff(v[0], v[2]), 0.01);
  EXPECT_TRUE(Vectors(*e, {}).empty());
}

TEST_F(LocalEmbedderTest, IsDeterministicAcrossCallsAndLoads) {
  const std::string path = Write("m.gguf", {});
  auto a = Load(path);
  auto b = Load(path);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->id(), b->id());
  const auto first = Vectors(*a, {"hello world", "小周"});
  EXPECT_EQ(first, Vectors(*a, {"hello world", "小周"}));
  EXPECT_EQ(first, Vectors(*b, {"hello world", "小周"}));
}

TEST_F(LocalEmbedderTest, BatchesGiveWhatLlamaCppsOwnPathGivesForEachTextAlone) {
  for (int pooling : {1, 2, 3}) {
    for (TinyTokenizer tokenizer : {TinyTokenizer::kWordPiece, TinyTokenizer::kUnigram}) {
      TinyBertSpec spec;
      spec.pooling = pooling;
      spec.tokenizer = tokenizer;
      const std::string path = Write("p" + std::to_string(pooling) + ".gguf", spec);
      LocalEmbedderOptions o;
      o.batch_size = 3;  // several passes, and passes cut by the context (64 tokens)
      auto e = Load(path, o);
      ASSERT_TRUE(e);
      EXPECT_EQ(e->pooling(), pooling);
      std::string long_text;
      for (int i = 0; i < 25; ++i) long_text += "hello world ";
      const std::vector<std::string> texts = {"hello, world!", "我们组新来的小周", "😀", long_text, "memory 小周 hello😀",
                                              "coffee", long_text + "小周", "world"};
      const auto batched = Vectors(*e, texts);
      ASSERT_EQ(batched.size(), texts.size());
      for (size_t i = 0; i < texts.size(); ++i) {
        const auto reference = Reference(path, Tokens(*e, texts[i]), pooling);
        EXPECT_LT(MaxDiff(batched[i], reference), 1e-4) << "pooling " << pooling << ", text " << i;
        EXPECT_EQ(Vectors(*e, {texts[i]})[0].size(), 32u);
        EXPECT_LT(MaxDiff(Vectors(*e, {texts[i]})[0], reference), 1e-4);
      }
    }
  }
}

TEST_F(LocalEmbedderTest, PoolsAsTheModelDeclaresAndMeanWhenItDeclaresNone) {
  TinyBertSpec spec;
  spec.pooling = 0;
  auto none = Load(Write("none.gguf", spec));
  spec.pooling = 1;
  auto mean = Load(Write("mean.gguf", spec));
  spec.pooling = 2;
  auto cls = Load(Write("cls.gguf", spec));
  ASSERT_TRUE(none && mean && cls);
  EXPECT_EQ(none->pooling(), LLAMA_POOLING_TYPE_MEAN);
  const auto n = Vectors(*none, {"hello world"})[0];
  EXPECT_LT(MaxDiff(n, Vectors(*mean, {"hello world"})[0]), 1e-6);
  EXPECT_GT(MaxDiff(n, Vectors(*cls, {"hello world"})[0]), 0.01);
}

TEST_F(LocalEmbedderTest, CutsTextsLongerThanTheContextKeepingTheClosingToken) {
  auto e = Load(Write("m.gguf", {}));
  ASSERT_TRUE(e);
  std::string text;
  for (int i = 0; i < 100; ++i) text += "hello ";
  const auto tokens = Tokens(*e, text);
  ASSERT_EQ(tokens.size(), 64u);
  EXPECT_EQ(tokens.front(), wp::kCls);
  EXPECT_EQ(tokens[62], wp::kHello);
  EXPECT_EQ(tokens.back(), wp::kSep);
  EXPECT_NEAR(Norm(Vectors(*e, {text})[0]), 1.0, 1e-5);
}

TEST_F(LocalEmbedderTest, PutsThePurposesPrefixBeforeTheTextAndInTheId) {
  const std::string path = Write("m.gguf", {});
  auto plain = Load(path);
  LocalEmbedderOptions o;
  o.query_prefix = "hello ";
  o.passage_prefix = "world ";
  auto prefixed = Load(path, o);
  ASSERT_TRUE(plain && prefixed);
  EXPECT_NE(plain->id(), prefixed->id());
  EXPECT_EQ(Vectors(*plain, {"小周"}, Purpose::kQuery), Vectors(*plain, {"小周"}, Purpose::kPassage));
  EXPECT_LT(MaxDiff(Vectors(*prefixed, {"小周"}, Purpose::kQuery)[0], Vectors(*plain, {"hello 小周"})[0]), 1e-6);
  EXPECT_LT(MaxDiff(Vectors(*prefixed, {"小周"}, Purpose::kPassage)[0], Vectors(*plain, {"world 小周"})[0]), 1e-6);
}

TEST_F(LocalEmbedderTest, AnotherModelFileGivesAnotherId) {
  TinyBertSpec spec;
  const std::string path = Write("m.gguf", spec);
  const std::string before = Load(path)->id();
  spec.seed = 2;  // same name, shape and vocabulary; other weights
  Write("m.gguf", spec);
  auto after = Load(path);
  ASSERT_TRUE(after);
  EXPECT_NE(after->id(), before);
  EXPECT_EQ(after->id().substr(0, 16), before.substr(0, 16));  // "local:tiny-bert:"
}

TEST_F(LocalEmbedderTest, IsSafeToCallFromSeveralThreads) {
  auto e = Load(Write("m.gguf", {}));
  ASSERT_TRUE(e);
  const std::vector<std::string> texts = {"hello world", "我们组新来的小周", "😀 coffee"};
  const auto expected = Vectors(*e, texts);
  std::vector<std::vector<std::vector<float>>> got(4);
  std::vector<std::thread> threads;
  for (auto& g : got) threads.emplace_back([&] { g = *e->Embed(texts, Purpose::kPassage); });
  for (auto& t : threads) t.join();
  for (const auto& g : got) EXPECT_EQ(g, expected);
}

TEST_F(LocalEmbedderTest, RefusesAFileItCannotUseNamingTheFileAndTheProblem) {
  LocalEmbedderOptions o;
  o.model_path = dir_.Sub("nope.gguf");
  auto missing = LocalEmbedder::Create(o);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "embedding.model: " + o.model_path + ": no such file");

  TinyBertSpec decoder;
  decoder.architecture = "llama";
  o.model_path = Write("chat.gguf", decoder);
  auto chat = LocalEmbedder::Create(o);
  ASSERT_FALSE(chat.ok());
  EXPECT_THAT(chat.status().message(), HasSubstr("architecture \"llama\" is not an embedding"));

  // A BERT header whose tensors llama.cpp does not find: loading fails, and says why.
  TinyBertSpec broken;
  broken.omit_tensor = "blk.1.ffn_up.weight";
  o.model_path = Write("broken.gguf", broken);
  auto bad = LocalEmbedder::Create(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("embedding.model: " + o.model_path + ": llama.cpp cannot load it: "));
  EXPECT_THAT(bad.status().message(), HasSubstr("blk.1.ffn_up.weight"));

  o.model_path = dir_.Sub("text.gguf");
  std::ofstream(o.model_path) << "not a model";
  auto text = LocalEmbedder::Create(o);
  ASSERT_FALSE(text.ok());
  EXPECT_THAT(text.status().message(), HasSubstr("not a GGUF file"));
}

}  // namespace
}  // namespace cilia::embed
