// tests/support/exact_sum.hpp — exact sums of floating-point numbers on the
// host, and their correctly rounded value: the oracle for scankit's exact
// (reproducible, correctly rounded) scans.
//
// The sum is held as a two's-complement fixed-point integer whose bit 0 is
// 2^-1074 (the smallest subnormal double) and which reaches past 2^1024 with
// 64 bits to spare, so any 2^63 doubles (or floats) add without loss or
// overflow. Rounding to float or double is round to nearest, ties to even,
// with subnormals and overflow to infinity as IEEE 754 defines them. NaN and
// infinities follow IEEE addition: any NaN, or +inf and -inf together, give
// NaN; otherwise an infinity wins. An exact zero is -0 only when every
// summand was -0 (as x + y is in round to nearest); the empty sum is +0.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace sktest {

class exact_sum {
 public:
  /// Adds x exactly (float or double).
  template <class F>
  void add(F x) {
    static_assert(std::is_floating_point_v<F>, "float or double");
    const double d = double(x);  // exact for float
    if (std::isnan(d)) {
      nan_ = true;
      return;
    }
    if (std::isinf(d)) {
      (d > 0 ? pos_inf_ : neg_inf_) = true;
      return;
    }
    any_ = true;
    if (!(d == 0 && std::signbit(d))) only_negative_zeros_ = false;
    if (d == 0) return;
    // d = m · 2^e with an integer m < 2^53 and e >= -1074.
    int exp = 0;
    const double frac = std::frexp(std::fabs(d), &exp);  // |d| = frac · 2^exp, frac in [0.5, 1)
    int e = exp - 53;
    std::uint64_t m = std::uint64_t(std::ldexp(frac, 53));
    if (e < -1074) {  // subnormal: m has fewer bits; the shifted-out ones are zero
      m >>= (-1074 - e);
      e = -1074;
    }
    add_shifted(m, unsigned(e + 1074), std::signbit(d));
  }

  /// The exact sum rounded to F (round to nearest, ties to even).
  template <class F>
  F rounded() const {
    static_assert(std::is_floating_point_v<F>, "float or double");
    using limits = std::numeric_limits<F>;
    if (nan_ || (pos_inf_ && neg_inf_)) return limits::quiet_NaN();
    if (pos_inf_) return limits::infinity();
    if (neg_inf_) return -limits::infinity();
    const bool negative = (words_[limbs - 1] >> 63) != 0;
    std::array<std::uint64_t, limbs> mag = words_;
    if (negative) negate(mag);
    int top = -1;  // highest set bit
    for (int i = limbs - 1; i >= 0 && top < 0; --i)
      if (mag[i] != 0) top = i * 64 + 63 - __builtin_clzll(mag[i]);
    if (top < 0) return any_ && only_negative_zeros_ ? -F(0) : F(0);
    // Keep `digits` bits from the top, but none below F's smallest subnormal.
    const int lowest_bit = 1074 + (limits::min_exponent - limits::digits);  // bit of F's smallest subnormal
    int ulp = top - (limits::digits - 1);
    if (ulp < lowest_bit) ulp = lowest_bit;
    std::uint64_t mantissa = bits(mag, ulp, top + 1 - ulp);
    if (ulp > 0) {  // round on the bits below the ulp
      const bool half = bit(mag, ulp - 1);
      const bool sticky = any_below(mag, ulp - 1);
      if (half && (sticky || (mantissa & 1u))) ++mantissa;
    }
    // mantissa · 2^(ulp - 1074) is exact in double (mantissa <= 2^53) unless it
    // overflows, which then correctly gives infinity.
    const double value = std::ldexp(double(mantissa), ulp - 1074);
    return F(negative ? -value : value);
  }

 private:
  static constexpr int limbs = (1074 + 1024 + 64) / 64 + 1;

  void add_shifted(std::uint64_t m, unsigned shift, bool subtract) {
    // m · 2^shift spans limbs [shift / 64, shift / 64 + 1].
    std::array<std::uint64_t, limbs> term{};
    const unsigned limb = shift / 64, offset = shift % 64;
    term[limb] = m << offset;
    if (offset != 0 && limb + 1 < limbs) term[limb + 1] = m >> (64 - offset);
    if (subtract) negate(term);
    unsigned carry = 0;
    for (int i = 0; i < limbs; ++i) {
      const std::uint64_t a = words_[i], b = term[i];
      const std::uint64_t s = a + b;
      const unsigned c1 = s < a;
      const std::uint64_t t = s + carry;
      const unsigned c2 = t < s;
      words_[i] = t;
      carry = c1 | c2;
    }
  }

  static void negate(std::array<std::uint64_t, limbs>& w) {
    unsigned carry = 1;
    for (auto& x : w) {
      x = ~x;
      const std::uint64_t t = x + carry;
      carry = (carry && t == 0) ? 1u : 0u;
      x = t;
    }
  }
  static bool bit(const std::array<std::uint64_t, limbs>& w, int i) { return (w[i / 64] >> (i % 64)) & 1u; }
  static bool any_below(const std::array<std::uint64_t, limbs>& w, int i) {  // any bit in [0, i)
    for (int l = 0; l < i / 64; ++l)
      if (w[l] != 0) return true;
    return i % 64 != 0 && (w[i / 64] & ((std::uint64_t(1) << (i % 64)) - 1)) != 0;
  }
  static std::uint64_t bits(const std::array<std::uint64_t, limbs>& w, int from, int count) {  // count <= 64
    std::uint64_t r = 0;
    for (int k = 0; k < count; ++k) r |= std::uint64_t(bit(w, from + k)) << k;
    return r;
  }

  std::array<std::uint64_t, limbs> words_{};
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
  bool any_ = false;  // a finite summand was added
  bool only_negative_zeros_ = true;
};

}  // namespace sktest
