// Hashes and encodings used across layers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace cilia {

// Lower-case hex SHA-256 of the bytes.
std::string Sha256Hex(std::string_view bytes);
// Standard base64 (RFC 4648) with padding; decoding ignores whitespace and
// rejects anything else that is not base64.
std::string Base64Encode(std::string_view bytes);
Result<std::string> Base64Decode(std::string_view text);
// A fast, stable 64-bit FNV-1a hash, for content fingerprints.
uint64_t Fnv1a64(std::string_view bytes);
std::string Hex64(uint64_t value);

}  // namespace cilia
