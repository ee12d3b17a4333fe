// detail/sort/radix_key.cuh — a key as the radix sort sees it: its bits as an
// unsigned word whose unsigned order is the key's order, and the digits of
// that word.
//
// Unsigned integers are their own order. Signed integers flip the sign bit.
// Floating point: -0.0 is read as +0.0 (the two are equal, so they keep their
// input order), then negative numbers flip every bit and the others flip the
// sign bit; NaNs sort by their bits after that (a positive NaN after +inf, a
// negative one before -inf), as CUB's radix sort. Descending order flips
// every bit of the ordered word. The keys themselves are moved unchanged.
#pragma once

#include <scankit/sort.hpp>  // radix_key_kind, radix_kind_of

#include <cstdint>
#include <type_traits>

namespace scankit::detail {

/// Digits are 8 bits: 256 of them, one pass per 8 bits of the range sorted.
inline constexpr int radix_digit_bits = 8;
inline constexpr int radix_digits = 1 << radix_digit_bits;

/// The unsigned word of a key type's size.
template <class K>
using radix_bits_t = std::conditional_t<sizeof(K) == 4, std::uint32_t, std::uint64_t>;

/// What a sort pass needs to read a digit: the key kind, the order, and
/// which bits of the ordered word form the digit.
struct radix_digit {
  /// Pass `pass` of a sort over bits [begin_bit, end_bit).
  __host__ __device__ static radix_digit of_pass(radix_key_kind kind, bool descending, int begin_bit, int end_bit,
                                                 int pass) {
    const int shift = begin_bit + pass * radix_digit_bits;
    const int width = end_bit - shift < radix_digit_bits ? end_bit - shift : radix_digit_bits;
    return {kind, descending, std::uint32_t(shift), (1u << width) - 1u};
  }

  radix_key_kind kind;
  bool descending;
  std::uint32_t shift;  // the digit's lowest bit in the ordered word
  std::uint32_t mask;   // (1 << digit bits) - 1

  /// The key's bits in an order where unsigned comparison is the sort's order.
  template <class Bits>
  __host__ __device__ __forceinline__ Bits ordered(Bits bits) const {
    constexpr Bits high = Bits(1) << (sizeof(Bits) * 8 - 1);
    if (kind == radix_key_kind::signed_integer) {
      bits ^= high;
    } else if (kind == radix_key_kind::floating_point) {
      if (bits == high) bits = 0;  // -0.0 is +0.0
      bits ^= (bits & high) ? Bits(~Bits(0)) : high;
    }
    return descending ? Bits(~bits) : bits;
  }

  /// The digit of a key's bits.
  template <class Bits>
  __host__ __device__ __forceinline__ std::uint32_t of(Bits bits) const {
    return std::uint32_t(ordered(bits) >> shift) & mask;
  }
};

}  // namespace scankit::detail
