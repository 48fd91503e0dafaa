// Host-side 16-bit floats: f16 (IEEE binary16) and bf16 (bfloat16) as storage types with
// exact conversions (to float exactly; from float with round-to-nearest-even, NaN kept quiet).
#pragma once

#include <cstdint>
#include <cstring>

namespace tessera {

/// IEEE 754 binary16, stored as its bits.
///
///   tessera::f16 h = tessera::f16::fromFloat(1.5f);   // round to nearest even
///   float f = h.toFloat();                            // exact
struct f16 {
  uint16_t bits = 0;
  static f16 fromBits(uint16_t b) { return f16{b}; }
  static f16 fromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx > 0x7f800000u) // NaN: keep it quiet and keep the top payload bits
      return {uint16_t(sign | 0x7e00u | ((absx >> 13) & 0x3ffu))};
    if (absx >= 0x477ff000u) // rounds to infinity (>= 65520) or is infinity
      return {uint16_t(sign | 0x7c00u)};
    if (absx < 0x38800000u) { // result is subnormal or zero: scale into the subnormal grid
      if (absx < 0x33000000u) // below half the smallest subnormal (2^-25): +-0
        return {uint16_t(sign)};
      uint32_t exp = absx >> 23, mant = (absx & 0x7fffffu) | 0x800000u;
      uint32_t shift = 126 - exp; // value = mant * 2^(exp-150); subnormal unit = 2^-24
      uint32_t half = mant >> shift, rest = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
      if (rest > mid || (rest == mid && (half & 1u)))
        ++half;
      return {uint16_t(sign | half)};
    }
    uint32_t r = absx - 0x38000000u; // rebias the exponent (127 -> 15)
    uint32_t half = r >> 13, rest = r & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
      ++half;
    return {uint16_t(sign | half)};
  }
  float toFloat() const {
    uint32_t sign = uint32_t(bits & 0x8000u) << 16, exp = (bits >> 10) & 0x1fu, mant = bits & 0x3ffu;
    uint32_t x;
    if (exp == 0x1f) {
      x = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
      if (mant == 0) {
        x = sign;
      } else { // subnormal: normalize
        int e = -1;
        do {
          mant <<= 1;
          ++e;
        } while (!(mant & 0x400u));
        x = sign | uint32_t(112 - e) << 23 | (mant & 0x3ffu) << 13;
      }
    } else {
      x = sign | (exp + 112) << 23 | mant << 13;
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
  bool operator==(const f16 &) const = default;
};

/// bfloat16 (the top half of an IEEE binary32), stored as its bits.
struct bf16 {
  uint16_t bits = 0;
  static bf16 fromBits(uint16_t b) { return bf16{b}; }
  static bf16 fromFloat(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: quiet it, keep the sign and top payload
      return {uint16_t((x >> 16) | 0x40u)};
    uint32_t rounding = 0x7fffu + ((x >> 16) & 1u); // round to nearest, ties to even
    return {uint16_t((x + rounding) >> 16)};
  }
  float toFloat() const {
    uint32_t x = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
  bool operator==(const bf16 &) const = default;
};

} // namespace tessera
