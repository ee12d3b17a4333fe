// tests/support/float_bits.hpp — the bits of floats and doubles, and bit-exact
// comparison, for the tests of exact and reproducible floating-point results.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sktest {

/// The unsigned integer with F's bits.
template <class F>
using bits_of = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;

template <class F>
bits_of<F> to_bits(F x) {
  bits_of<F> b;
  std::memcpy(&b, &x, sizeof(F));
  return b;
}

template <class F>
F from_bits(bits_of<F> b) {
  F x;
  std::memcpy(&x, &b, sizeof(F));
  return x;
}

/// Bit-exact equality, except that any NaN equals any NaN (-0 differs from +0).
template <class F>
bool same_bits(F a, F b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return to_bits(a) == to_bits(b);
}

}  // namespace sktest
