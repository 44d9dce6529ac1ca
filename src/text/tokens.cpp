#include "text/tokens.h"

#include <climits>
#include <cstddef>

#include "text/utf8.h"

namespace cilia::text {

int EstimateTokens(std::string_view text) {
  constexpr size_t kBytesPerOtherToken = 4;
  size_t cjk_letters = 0;
  size_t other_bytes = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    if (IsCjk(NextCodePoint(text, &pos))) {
      ++cjk_letters;
    } else {
      other_bytes += pos - start;
    }
  }
  const size_t tokens = cjk_letters + (other_bytes + kBytesPerOtherToken - 1) / kBytesPerOtherToken;
  return tokens > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(tokens);
}

}  // namespace cilia::text
