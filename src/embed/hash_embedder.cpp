#include "embed/hash_embedder.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "text/normalize.h"
#include "text/utf8.h"

namespace cilia::embed {
namespace {

// Features of different kinds never share a hash, even for the same bytes.
enum class FeatureKind : uint8_t { kCjkChar = 1, kCjkPair, kWord, kWordTrigram, kSymbol };

// Marks a word's start and end inside trigrams; never part of a word itself.
constexpr uint8_t kWordStart = 0x01;
constexpr uint8_t kWordEnd = 0x02;

// 64-bit FNV-1a: fixed by its definition, so vectors stay comparable across
// builds and machines (std::hash promises neither).
class FeatureHash {
 public:
  explicit FeatureHash(FeatureKind kind) { AddByte(static_cast<uint8_t>(kind)); }
  void AddByte(uint8_t b) {
    state_ ^= b;
    state_ *= 0x100000001b3ULL;
  }
  void Add(std::string_view bytes) {
    for (char c : bytes) AddByte(static_cast<uint8_t>(c));
  }
  // FNV's low bits mix poorly; the splitmix64 finaliser spreads every input
  // bit over the slot (low bits) and the sign (top bit).
  uint64_t Finish() const {
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

enum class CharClass { kCjk, kWord, kSymbol, kSeparator };

CharClass Classify(char32_t cp) {
  if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9')) return CharClass::kWord;  // the usual case
  if (text::IsCjk(cp)) return CharClass::kCjk;
  if (text::IsCjkPunctuation(cp) || text::IsWhitespace(cp)) return CharClass::kSeparator;
  const uint32_t category = U_GET_GC_MASK(static_cast<UChar32>(cp));
  // Marks stay inside words: Devanagari or Thai vowel signs are not breaks.
  if (category & (U_GC_L_MASK | U_GC_M_MASK | U_GC_N_MASK)) return CharClass::kWord;
  if (category & U_GC_S_MASK) return CharClass::kSymbol;  // emoji, currency, math
  return CharClass::kSeparator;
}

// A code point of the normalised text: where its bytes start, and its class.
struct Char {
  size_t offset;
  CharClass cls;
};

void HashCjkRun(std::string_view text, const std::vector<Char>& chars, size_t begin, size_t end,
                std::vector<uint64_t>& out) {
  for (size_t i = begin; i < end; ++i) {
    const size_t next = chars[i + 1].offset;
    FeatureHash single(FeatureKind::kCjkChar);
    single.Add(text.substr(chars[i].offset, next - chars[i].offset));
    out.push_back(single.Finish());
    if (i + 1 < end) {
      FeatureHash pair(FeatureKind::kCjkPair);
      pair.Add(text.substr(chars[i].offset, chars[i + 2].offset - chars[i].offset));
      out.push_back(pair.Finish());
    }
  }
}

void HashWord(std::string_view text, const std::vector<Char>& chars, size_t begin, size_t end,
              std::vector<uint64_t>& out) {
  auto bytes = [&](size_t from, size_t to) {  // code points [from, to) of the text
    return text.substr(chars[from].offset, chars[to].offset - chars[from].offset);
  };
  FeatureHash word(FeatureKind::kWord);
  word.Add(bytes(begin, end));
  out.push_back(word.Finish());
  // Trigrams of kWordStart + word + kWordEnd: position p covers padded p-1..p+1.
  for (size_t p = begin; p < end; ++p) {
    FeatureHash trigram(FeatureKind::kWordTrigram);
    const size_t from = p == begin ? p : p - 1;
    const size_t to = std::min(p + 2, end);
    if (p == begin) trigram.AddByte(kWordStart);
    trigram.Add(bytes(from, to));
    if (p + 2 > end) trigram.AddByte(kWordEnd);
    out.push_back(trigram.Finish());
  }
}

// Every feature of the text as its hash, one entry per occurrence.
std::vector<uint64_t> FeatureHashes(std::string_view text) {
  std::vector<Char> chars;
  chars.reserve(text.size() + 1);
  for (size_t pos = 0; pos < text.size();) {
    const size_t offset = pos;
    chars.push_back({offset, Classify(text::NextCodePoint(text, &pos))});
  }
  const size_t count = chars.size();
  chars.push_back({text.size(), CharClass::kSeparator});  // sentinel: the end offset

  std::vector<uint64_t> hashes;
  hashes.reserve(count * 2);
  for (size_t i = 0; i < count;) {
    const CharClass cls = chars[i].cls;
    size_t end = i + 1;
    if (cls == CharClass::kCjk || cls == CharClass::kWord) {
      while (end < count && chars[end].cls == cls) ++end;
    }
    if (cls == CharClass::kCjk) {
      HashCjkRun(text, chars, i, end, hashes);
    } else if (cls == CharClass::kWord) {
      HashWord(text, chars, i, end, hashes);
    } else if (cls == CharClass::kSymbol) {
      FeatureHash symbol(FeatureKind::kSymbol);
      symbol.Add(text.substr(chars[i].offset, chars[i + 1].offset - chars[i].offset));
      hashes.push_back(symbol.Finish());
    }
    i = end;
  }
  return hashes;
}

}  // namespace

HashEmbedder::HashEmbedder(int dimension)
    : dimension_(std::max(1, dimension)), id_("hash-v1-" + std::to_string(dimension_)) {}

std::vector<float> HashEmbedder::EmbedOne(std::string_view text) const {
  std::vector<float> vector(static_cast<size_t>(dimension_), 0.0f);
  std::vector<uint64_t> hashes = FeatureHashes(text::NormalizeForMatch(text));
  std::sort(hashes.begin(), hashes.end());
  for (size_t i = 0; i < hashes.size();) {
    size_t end = i + 1;
    while (end < hashes.size() && hashes[end] == hashes[i]) ++end;
    // Sublinear: a word said ten times is not ten times the topic.
    const float weight = 1.0f + std::log(static_cast<float>(end - i));
    const uint64_t h = hashes[i];
    vector[h % static_cast<uint64_t>(dimension_)] += (h >> 63) != 0 ? -weight : weight;
    i = end;
  }
  double norm = 0;
  for (float x : vector) norm += static_cast<double>(x) * x;
  if (norm > 0) {
    const float scale = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : vector) x *= scale;
  }
  return vector;
}

Result<std::vector<std::vector<float>>> HashEmbedder::Embed(const std::vector<std::string>& texts, Purpose) const {
  std::vector<std::vector<float>> vectors;
  vectors.reserve(texts.size());
  for (const std::string& text : texts) vectors.push_back(EmbedOne(text));
  return vectors;
}

}  // namespace cilia::embed
