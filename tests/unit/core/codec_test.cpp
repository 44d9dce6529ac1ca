#include "core/codec.h"

#include <gtest/gtest.h>

namespace cilia {
namespace {

TEST(Codec, Sha256OfKnownInputs) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Codec, Base64RoundTripsEveryLength) {
  std::string bytes;
  for (int n = 0; n < 70; ++n) {
    EXPECT_EQ(*Base64Decode(Base64Encode(bytes)), bytes) << n;
    bytes += static_cast<char>(n * 37);
  }
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(*Base64Decode("Zm9v\nYmFy"), "foobar");
}

TEST(Codec, Base64RejectsGarbage) {
  Result<std::string> r = Base64Decode("Zm9v!");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("offset 4"), std::string::npos);
  EXPECT_FALSE(Base64Decode("Zg==Zg").ok());
}

TEST(Codec, Fnv1aIsStable) {
  EXPECT_EQ(Hex64(Fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(Hex64(Fnv1a64("a")), "af63dc4c8601ec8c");
}

}  // namespace
}  // namespace cilia
