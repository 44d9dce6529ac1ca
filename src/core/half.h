// IEEE 754 binary16 ("half", float16) for vectors at rest: the vector tables
// and the vector cache keep each value in two bytes, memory keeps float32.
// float16 keeps recall@10 at 0.999 against float32 where int8 with a
// per-vector scale fell to 0.977-0.986 (bench/RESULTS.md, issue 16).
//
// The conversion is portable bit arithmetic (round to nearest, ties to even;
// subnormals, infinities and NaN kept), the same on every machine, so what a
// file holds never depends on the CPU that wrote it. At ~1 ns a value it
// costs ~25 ms for 100k vectors of 256 at load, which does not call for F16C.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cilia {

// The half nearest to `value` (ties to the even one). Beyond the largest
// finite half (65504) it is an infinity; NaN stays NaN (quiet, sign kept).
uint16_t FloatToHalf(float value);
// Exact: every half is a float.
float HalfToFloat(uint16_t half);
// `value` as float16 would keep it (HalfToFloat(FloatToHalf(value))).
float RoundToHalf(float value);

// Two little-endian bytes per value, appended to `out`.
void AppendHalves(std::span<const float> values, std::string& out);
// The values of `bytes` (two little-endian bytes each) into `out`; false,
// leaving `out` alone, when `bytes` is not 2 * out.size() long.
bool DecodeHalves(std::string_view bytes, std::span<float> out);

}  // namespace cilia
