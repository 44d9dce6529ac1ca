#include "embed/hash_embedder.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cilia::embed {
namespace {

float Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  float dot = 0;
  for (size_t i = 0; i < a.size(); ++i) dot += a[i] * b[i];
  return dot;  // both are unit vectors
}

float Norm(const std::vector<float>& v) { return std::sqrt(Cosine(v, v)); }

bool IsZero(const std::vector<float>& v) {
  for (float x : v) {
    if (x != 0.0f) return false;
  }
  return true;
}

std::vector<size_t> NonZeroSlots(const std::vector<float>& v) {
  std::vector<size_t> slots;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != 0.0f) slots.push_back(i);
  }
  return slots;
}

TEST(HashEmbedderTest, IdNamesTheVersionAndDimension) {
  EXPECT_EQ(HashEmbedder().id(), "hash-v1-256");
  EXPECT_EQ(HashEmbedder().dimension(), 256);
  EXPECT_EQ(HashEmbedder(64).id(), "hash-v1-64");
  EXPECT_EQ(HashEmbedder(0).dimension(), 1);
}

TEST(HashEmbedderTest, VectorsHaveTheDimensionAndUnitLength) {
  HashEmbedder embedder(64);
  for (const char* text : {"hello", "你好，世界", "🙂", "a", "Привет мир", "नमस्ते दुनिया"}) {
    std::vector<float> v = embedder.EmbedOne(text);
    ASSERT_EQ(v.size(), 64u) << text;
    EXPECT_NEAR(Norm(v), 1.0f, 1e-5) << text;
  }
}

TEST(HashEmbedderTest, TextWithoutFeaturesIsTheZeroVector) {
  HashEmbedder embedder;
  for (const char* text : {"", "   \n\t", "!!! ... ,,,", "，。！？「」"}) {
    std::vector<float> v = embedder.EmbedOne(text);
    ASSERT_EQ(v.size(), 256u);
    EXPECT_TRUE(IsZero(v)) << '"' << text << '"';
  }
}

// Stored vectors are compared with new ones for years: the hash must never
// change silently. A change here needs a new id ("hash-v2-…") and a re-embed.
TEST(HashEmbedderTest, HashIsPinned) {
  HashEmbedder embedder(256);
  EXPECT_EQ(NonZeroSlots(embedder.EmbedOne("cat")), (std::vector<size_t>{10, 96, 169, 230}));
  EXPECT_EQ(NonZeroSlots(embedder.EmbedOne("猫")), (std::vector<size_t>{2}));
}

TEST(HashEmbedderTest, SameTextSameVectorAcrossInstances) {
  const std::string text = "The meeting moved to Thursday 3pm — 会议改到周四下午三点 📅";
  EXPECT_EQ(HashEmbedder().EmbedOne(text), HashEmbedder().EmbedOne(text));
}

TEST(HashEmbedderTest, CaseAndWidthDoNotMatter) {
  HashEmbedder embedder;
  EXPECT_EQ(embedder.EmbedOne("Hello World"), embedder.EmbedOne("hello world"));
  EXPECT_EQ(embedder.EmbedOne("ＨＥＬＬＯ"), embedder.EmbedOne("hello"));
  EXPECT_EQ(embedder.EmbedOne("Straße"), embedder.EmbedOne("STRASSE"));
}

TEST(HashEmbedderTest, PunctuationAndSpacingDoNotMatter) {
  HashEmbedder embedder;
  EXPECT_EQ(embedder.EmbedOne("hello, world!"), embedder.EmbedOne("  hello   world "));
}

TEST(HashEmbedderTest, SharedWordsMakeTextsSimilar) {
  HashEmbedder embedder;
  auto v = [&](const char* t) { return embedder.EmbedOne(t); };
  EXPECT_GT(Cosine(v("the cat sat on the mat"), v("a cat on a mat")),
            Cosine(v("the cat sat on the mat"), v("quarterly revenue report")) + 0.3f);
}

TEST(HashEmbedderTest, SharedHanCharactersMakeTextsSimilar) {
  HashEmbedder embedder;
  auto v = [&](const char* t) { return embedder.EmbedOne(t); };
  EXPECT_GT(Cosine(v("我喜欢吃苹果"), v("我爱吃苹果")), Cosine(v("我喜欢吃苹果"), v("今天天气很好")) + 0.3f);
}

TEST(HashEmbedderTest, TypoKeepsMostOfTheSimilarity) {
  HashEmbedder embedder;
  EXPECT_GT(Cosine(embedder.EmbedOne("recommendation"), embedder.EmbedOne("recomendation")), 0.5f);
}

TEST(HashEmbedderTest, EmojiAreFeatures) {
  HashEmbedder embedder;
  EXPECT_FALSE(IsZero(embedder.EmbedOne("🙂")));
  EXPECT_NE(embedder.EmbedOne("🙂"), embedder.EmbedOne("🙁"));
  EXPECT_NE(embedder.EmbedOne("ok 🙂"), embedder.EmbedOne("ok"));
}

TEST(HashEmbedderTest, RepeatsWeighSublinearly) {
  HashEmbedder embedder;
  // With raw counts "dog" would be 1/6 of the first text and the cosine near 0.16.
  EXPECT_GT(Cosine(embedder.EmbedOne("cat cat cat cat cat cat dog"), embedder.EmbedOne("dog")), 0.3f);
}

TEST(HashEmbedderTest, IllFormedUtf8IsEmbeddedWithoutTrouble) {
  HashEmbedder embedder;
  std::vector<float> v = embedder.EmbedOne(std::string("abc\xFF\xC0\x80 def \xE4\xBD", 13));
  EXPECT_NEAR(Norm(v), 1.0f, 1e-5);
}

TEST(HashEmbedderTest, HugeTextIsEmbedded) {
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "word" + std::to_string(i % 977) + " 字" + std::to_string(i % 13);
  EXPECT_NEAR(Norm(HashEmbedder().EmbedOne(text)), 1.0f, 1e-4);
}

TEST(HashEmbedderTest, EmbedGivesOneVectorPerTextInOrder) {
  HashEmbedder embedder(32);
  const std::vector<std::string> texts = {"one", "", "三"};
  Result<std::vector<std::vector<float>>> vectors = embedder.Embed(texts, Purpose::kPassage);
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 3u);
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ((*vectors)[i], embedder.EmbedOne(texts[i]));
}

TEST(HashEmbedderTest, EmbedOfNothingIsNothing) {
  Result<std::vector<std::vector<float>>> vectors = HashEmbedder().Embed({}, Purpose::kPassage);
  ASSERT_TRUE(vectors.ok());
  EXPECT_TRUE(vectors->empty());
}

}  // namespace
}  // namespace cilia::embed
