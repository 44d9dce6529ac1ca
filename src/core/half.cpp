#include "core/half.h"

#include <bit>
#include <cmath>

namespace cilia {

uint16_t FloatToHalf(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) {
    // NaN: the payload's top ten bits, so every half NaN comes back as it
    // was; one whose payload lies below them gets the quiet bit.
    const auto payload = static_cast<uint16_t>((magnitude >> 13) & 0x3ffu);
    return static_cast<uint16_t>(sign | 0x7c00u | (payload != 0 ? payload : 0x200u));
  }
  // 65520 is halfway between 65504 (the largest half, odd) and 2^16: from
  // there on the even neighbour is infinity. Infinity itself lands here too.
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude >= 0x38800000u) {
    // Normal (2^-14 and up): rebias the exponent from 127 to 15 and round
    // the 23-bit mantissa to 10 bits; a carry moves into the exponent, as it
    // should.
    uint32_t rebiased = magnitude - (112u << 23);
    rebiased += 0xfffu + ((rebiased >> 13) & 1u);
    return static_cast<uint16_t>(sign | (rebiased >> 13));
  }
  // Subnormal: the value in units of 2^-24, rounded. Below 2^-25 (exponent
  // field < 102) that is zero.
  const uint32_t exponent = magnitude >> 23;
  if (exponent < 102) return sign;
  const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  const uint32_t shift = 126 - exponent;  // 14 to 24
  uint32_t units = mantissa >> shift;
  const uint32_t rest = mantissa & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (units & 1u) != 0)) ++units;  // may become 2^-14, the smallest normal
  return static_cast<uint16_t>(sign | units);
}

float HalfToFloat(uint16_t half) {
  const uint32_t sign = static_cast<uint32_t>(half & 0x8000u) << 16;
  const uint32_t exponent = (half >> 10) & 0x1fu;
  const uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa units of 2^-24, exact in a float.
    return std::copysign(static_cast<float>(mantissa) * 0x1p-24f, sign != 0 ? -1.0f : 1.0f);
  }
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float RoundToHalf(float value) { return HalfToFloat(FloatToHalf(value)); }

void AppendHalves(std::span<const float> values, std::string& out) {
  size_t at = out.size();
  out.resize(at + 2 * values.size());
  for (float v : values) {
    const uint16_t h = FloatToHalf(v);
    out[at++] = static_cast<char>(h & 0xffu);
    out[at++] = static_cast<char>(h >> 8);
  }
}

bool DecodeHalves(std::string_view bytes, std::span<float> out) {
  if (bytes.size() != 2 * out.size()) return false;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto low = static_cast<uint8_t>(bytes[2 * i]);
    const auto high = static_cast<uint8_t>(bytes[2 * i + 1]);
    out[i] = HalfToFloat(static_cast<uint16_t>(low | (high << 8)));
  }
  return true;
}

}  // namespace cilia
