#include "text/normalize.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>

#include <climits>

#include "text/utf8.h"

namespace cilia::text {
namespace {

// ICU owns the instance; it is immutable and safe to share between threads.
// Null only when ICU's data lacks nfkc_cf, which the linked libicudata always has.
const icu::Normalizer2* NfkcCasefold() {
  static const icu::Normalizer2* const instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
    return U_SUCCESS(status) ? n : nullptr;
  }();
  return instance;
}

bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// nfkc_cf of ASCII is ASCII lowercasing: no ASCII character decomposes or is
// default-ignorable.
std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string NormalizeForMatch(std::string_view text) {
  if (IsAscii(text)) return AsciiLower(text);
  std::string repaired;
  if (!IsValidUtf8(text)) {
    repaired = ToValidUtf8(text);
    text = repaired;
  }
  const icu::Normalizer2* normalizer = NfkcCasefold();
  // ICU takes int32 lengths; nothing that large reaches us past the body limits.
  if (normalizer == nullptr || text.size() > static_cast<size_t>(INT32_MAX)) return std::string(text);
  std::string out;
  out.reserve(text.size());
  icu::StringByteSink<std::string> sink(&out, static_cast<int32_t>(text.size()));
  UErrorCode status = U_ZERO_ERROR;
  normalizer->normalizeUTF8(0, icu::StringPiece(text.data(), static_cast<int32_t>(text.size())), sink, nullptr, status);
  return U_SUCCESS(status) ? out : std::string(text);
}

}  // namespace cilia::text
