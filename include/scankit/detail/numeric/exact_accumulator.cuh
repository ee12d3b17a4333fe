// detail/numeric/exact_accumulator.cuh — the exact sum of floats or doubles as a
// fixed-point integer (a "superaccumulator"), and its correctly rounded value:
// the scanned type of the exact (reproducible, correctly rounded) floating-point
// scans. Usable in host and device code; compiles as plain C++ without nvcc.
//
// Representation: limb[0 .. limbs) is one two's-complement integer, 32 bits a
// limb, least significant limb first, whose bit 0 weighs the smallest subnormal
// of F (2^-149 for float, 2^-1074 for double). Every finite F is an integer
// multiple of that, below 2^277 (float) or 2^2098 (double) of them, so each
// summand is exact, and so is every sum of them:
//   float : 10 limbs =  320 bits; summands reach bit  276;
//   double: 67 limbs = 2144 bits; summands reach bit 2097.
// LIMIT: a sum of at most 2^42 summands (or of any such sums combined with
// operator+) cannot overflow (float: |sum| < 2^42 · 2^277 = 2^319; double has
// 2^3 to spare). Beyond that the result is undefined.
//
// flags records what the integer cannot: NaN, +inf, -inf, "a finite summand was
// added" and "a finite summand other than -0 was added". They are OR-ed, so
// operator+ is exactly associative and commutative, bit for bit, as integer
// addition modulo 2^(32·limbs) is.
//
// rounded() gives IEEE 754 addition's result for the whole sum, rounded once:
// any NaN, or +inf and -inf together, give a quiet NaN; otherwise an infinity
// wins; an exact zero is -0 only when every summand was -0 (and there was one),
// the empty sum is +0; otherwise the exact sum rounded to nearest, ties to even,
// subnormals exact and overflow to ±inf.
//
// Rounding method: take the magnitude; find its highest nonzero limb h; form a
// 64-bit window of the bits from its top set bit down (limbs h, h-1, h-2, zero
// below limb 0, funnel shifted) and a sticky bit for everything below it (64
// bits hold the mantissa, the half-ulp bit and more); round the window's top
// mantissa bits to nearest even with integer operations and assemble the IEEE
// bits directly: the result's ulp sits at fixed-point bit u = max(top - mantissa
// bits, 0), and (u << mantissa bits) + rounded mantissa (hidden bit included) is
// the IEEE encoding of a normal result, of a subnormal one (u = 0, no hidden
// bit) and of a mantissa that rounds up into the next binade. No floating-point
// arithmetic is used, so nothing is rounded twice, host and device agree bit
// for bit, and u past the largest finite exponent gives infinity.
//
// Device code: every loop over limbs is unrolled and indexes limbs with
// compile-time indices only (runtime positions are selects), so an accumulator
// stays in registers; carry chains are inline-PTX addc.cc blocks of 8, 4, 2, 1
// limbs, each block one asm statement (the carry flag never has to survive
// between asm statements: it enters and leaves a block in a register). The
// host runs the same algorithm with 64-bit arithmetic.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifndef SCANKIT_HD
#if defined(__CUDACC__)
#define SCANKIT_HD __host__ __device__
#else
#define SCANKIT_HD
#endif
#endif

#ifndef SCANKIT_FORCEINLINE
#if defined(__CUDACC__)
#define SCANKIT_FORCEINLINE __forceinline__
#else
#define SCANKIT_FORCEINLINE inline
#endif
#endif

#ifndef SCANKIT_UNROLL
#if defined(__CUDA_ARCH__)  // device compilation only: the host compiler would warn about an unknown pragma
#define SCANKIT_UNROLL _Pragma("unroll")
#else
#define SCANKIT_UNROLL
#endif
#endif

namespace scankit::detail {

namespace exact {

/// The IEEE format of F as the accumulator uses it.
template <class F>
struct format;

template <>
struct format<float> {
  using bits_t = std::uint32_t;
  static constexpr int limbs = 10;
  static constexpr int mantissa_bits = 23;         // stored fraction bits
  static constexpr std::uint32_t exponent_all_ones = 0xff;
  static constexpr int window_words = 2;           // m · 2^s, m < 2^24, s < 32, spans 2 limbs
};

template <>
struct format<double> {
  using bits_t = std::uint64_t;
  static constexpr int limbs = 67;
  static constexpr int mantissa_bits = 52;
  static constexpr std::uint32_t exponent_all_ones = 0x7ff;
  static constexpr int window_words = 3;           // m < 2^53, s < 32: spans 3 limbs
};

template <class To, class From>
SCANKIT_HD SCANKIT_FORCEINLINE To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "same size");
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

/// The high word of (hi:lo) << s, s in [0, 32).
SCANKIT_HD SCANKIT_FORCEINLINE std::uint32_t funnel_left(std::uint32_t lo, std::uint32_t hi, std::uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(lo, hi, s);
#else
  return std::uint32_t((((std::uint64_t(hi) << 32) | lo) << (s & 31)) >> 32);
#endif
}

/// Leading zeros of x; 32 for x == 0.
SCANKIT_HD SCANKIT_FORCEINLINE std::uint32_t leading_zeros(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return std::uint32_t(__clz(int(x)));
#elif defined(__GNUC__) || defined(__clang__)
  return x != 0 ? std::uint32_t(__builtin_clz(x)) : 32u;
#else
  std::uint32_t n = 0;
  for (std::uint32_t bit = 0x80000000u; bit != 0 && (x & bit) == 0; bit >>= 1) ++n;
  return n;
#endif
}

#if defined(__CUDACC__)
// Carry-chain blocks: l[B + i] += a[B + i] (+ carry), each block one asm
// statement. The carry c (0 or 1) enters the carry flag as c + 0xffffffff
// (which carries out exactly when c == 1) and leaves it through addc 0 + 0.
#define SCANKIT_EXACT_ADDC(l, a) "addc.cc.u32 %" #l ", %" #l ", %" #a ";\n\t"

template <int B, int N>
__device__ __forceinline__ void carry_block8(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t& c) {
  asm("add.cc.u32 %8, %8, 0xffffffff;\n\t"                                     //
      SCANKIT_EXACT_ADDC(0, 9) SCANKIT_EXACT_ADDC(1, 10) SCANKIT_EXACT_ADDC(2, 11) SCANKIT_EXACT_ADDC(3, 12)  //
      SCANKIT_EXACT_ADDC(4, 13) SCANKIT_EXACT_ADDC(5, 14) SCANKIT_EXACT_ADDC(6, 15) SCANKIT_EXACT_ADDC(7, 16)  //
      "addc.u32 %8, 0, 0;"
      : "+r"(l[B]), "+r"(l[B + 1]), "+r"(l[B + 2]), "+r"(l[B + 3]), "+r"(l[B + 4]), "+r"(l[B + 5]), "+r"(l[B + 6]),
        "+r"(l[B + 7]), "+r"(c)
      : "r"(a[B]), "r"(a[B + 1]), "r"(a[B + 2]), "r"(a[B + 3]), "r"(a[B + 4]), "r"(a[B + 5]), "r"(a[B + 6]),
        "r"(a[B + 7]));
}

template <int B, int N>
__device__ __forceinline__ void carry_block4(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t& c) {
  asm("add.cc.u32 %4, %4, 0xffffffff;\n\t"                                    //
      SCANKIT_EXACT_ADDC(0, 5) SCANKIT_EXACT_ADDC(1, 6) SCANKIT_EXACT_ADDC(2, 7) SCANKIT_EXACT_ADDC(3, 8)  //
      "addc.u32 %4, 0, 0;"
      : "+r"(l[B]), "+r"(l[B + 1]), "+r"(l[B + 2]), "+r"(l[B + 3]), "+r"(c)
      : "r"(a[B]), "r"(a[B + 1]), "r"(a[B + 2]), "r"(a[B + 3]));
}

template <int B, int N>
__device__ __forceinline__ void carry_block2(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t& c) {
  asm("add.cc.u32 %2, %2, 0xffffffff;\n\t"  //
      SCANKIT_EXACT_ADDC(0, 3) SCANKIT_EXACT_ADDC(1, 4)  //
      "addc.u32 %2, 0, 0;"
      : "+r"(l[B]), "+r"(l[B + 1]), "+r"(c)
      : "r"(a[B]), "r"(a[B + 1]));
}

template <int B, int N>
__device__ __forceinline__ void carry_block1(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t& c) {
  asm("add.cc.u32 %1, %1, 0xffffffff;\n\t"  //
      SCANKIT_EXACT_ADDC(0, 2)              //
      "addc.u32 %1, 0, 0;"
      : "+r"(l[B]), "+r"(c)
      : "r"(a[B]));
}

#undef SCANKIT_EXACT_ADDC

/// l[B ..] += a[B ..] + c, in blocks of 8, 4, 2, 1 limbs.
template <int B, int N>
__device__ __forceinline__ void carry_chain(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t c) {
  if constexpr (N - B >= 8) {
    carry_block8<B>(l, a, c);
    carry_chain<B + 8>(l, a, c);
  } else if constexpr (N - B >= 4) {
    carry_block4<B>(l, a, c);
    carry_chain<B + 4>(l, a, c);
  } else if constexpr (N - B >= 2) {
    carry_block2<B>(l, a, c);
    carry_chain<B + 2>(l, a, c);
  } else if constexpr (N - B == 1) {
    carry_block1<B>(l, a, c);
  }
}
#endif  // __CUDACC__

/// l += a + c modulo 2^(32·N), c in {0, 1}.
template <int N>
SCANKIT_HD SCANKIT_FORCEINLINE void add_limbs(std::uint32_t (&l)[N], const std::uint32_t (&a)[N], std::uint32_t c) {
#if defined(__CUDA_ARCH__)
  carry_chain<0>(l, a, c);
#else
  for (int j = 0; j < N; ++j) {
    const std::uint64_t s = std::uint64_t(l[j]) + a[j] + c;
    l[j] = std::uint32_t(s);
    c = std::uint32_t(s >> 32);
  }
#endif
}

}  // namespace exact

/// The exact sum of floats (F = float) or doubles (F = double); see the file
/// comment. Trivial (no constructors, no member initializers): start from
/// zero() or of(x).
template <class F>
struct exact_accumulator {
  static_assert(std::is_same_v<F, float> || std::is_same_v<F, double>, "exact_accumulator: float or double");
  using traits = exact::format<F>;
  using bits_t = typename traits::bits_t;

  static constexpr int limbs = traits::limbs;
  // The highest limb a summand's bits reach: that of bit (largest biased exponent - 1) + mantissa bits.
  static constexpr int top_summand_limb = (int(traits::exponent_all_ones) - 2 + traits::mantissa_bits) / 32;
  static_assert(top_summand_limb == (sizeof(F) == 4 ? 8 : 65), "summands reach bit 276 (float) / 2097 (double)");

  static constexpr std::uint32_t flag_nan = 1u;
  static constexpr std::uint32_t flag_pos_inf = 2u;
  static constexpr std::uint32_t flag_neg_inf = 4u;
  static constexpr std::uint32_t flag_finite = 8u;            // a finite summand was added
  static constexpr std::uint32_t flag_not_negative_zero = 16u;  // a finite summand other than -0 was added

  std::uint32_t limb[limbs];  // two's complement, limb[0] least significant, bit 0 = F's smallest subnormal
  std::uint32_t flags;

  /// The empty sum.
  SCANKIT_HD SCANKIT_FORCEINLINE static exact_accumulator zero() {
    exact_accumulator r;
    SCANKIT_UNROLL
    for (int j = 0; j < limbs; ++j) r.limb[j] = 0;
    r.flags = 0;
    return r;
  }

  /// The sum of x alone.
  SCANKIT_HD SCANKIT_FORCEINLINE static exact_accumulator of(F x) {
    exact_accumulator r = zero();
    r.add(x);
    return r;
  }

  /// *this += x, exactly.
  SCANKIT_HD SCANKIT_FORCEINLINE void add(F x) {
    constexpr int mbits = traits::mantissa_bits;
    const bits_t b = exact::bit_cast<bits_t>(x);
    const bits_t sign_bit = bits_t(1) << (8 * sizeof(bits_t) - 1);
    const std::uint32_t biased = std::uint32_t(b >> mbits) & traits::exponent_all_ones;
    const bits_t fraction = b & ((bits_t(1) << mbits) - 1);
    const bool finite = biased != traits::exponent_all_ones;
    const bool negative = (b & sign_bit) != 0;

    // Flags: NaN, ±inf, or finite (and whether it is -0).
    const std::uint32_t nonfinite_flag = fraction != 0 ? flag_nan : negative ? flag_neg_inf : flag_pos_inf;
    const std::uint32_t finite_flag = flag_finite | (b == sign_bit ? 0u : flag_not_negative_zero);
    flags |= finite ? finite_flag : nonfinite_flag;

    // |x| = m · 2^off units of 2^-149 / 2^-1074; m = 0 for ±inf and NaN (nothing is added).
    const std::uint64_t m = finite ? std::uint64_t(fraction | (biased != 0 ? bits_t(1) << mbits : bits_t(0))) : 0;
    const std::uint32_t off = (biased != 0 ? biased : 1u) - 1u;
    const std::uint32_t q = off >> 5, s = off & 31;  // m · 2^s lands on limbs q, q + 1 (, q + 2)
    const std::uint32_t m_lo = std::uint32_t(m), m_hi = std::uint32_t(m >> 32);
    const std::uint32_t w0 = m_lo << s;
    const std::uint32_t w1 = exact::funnel_left(m_lo, m_hi, s);
    const std::uint32_t w2 = traits::window_words == 3 ? exact::funnel_left(m_hi, 0u, s) : 0u;

    // -|x| = ~(|x| placed on all limbs) + 1: XOR every limb with the sign mask and carry the sign in at limb 0.
    const std::uint32_t neg = finite && negative ? 1u : 0u;
    const std::uint32_t mask = 0u - neg;
    const std::uint32_t x0 = w0 ^ mask, x1 = w1 ^ mask, x2 = w2 ^ mask;
    // Limb j gets x0, x1, x2 when j - q is 0, 1, 2, else the mask; q == j is tested once per j.
    bool at[limbs];
    std::uint32_t addend[limbs];
    SCANKIT_UNROLL
    for (int j = 0; j < limbs; ++j) {
      at[j] = j <= top_summand_limb && q == std::uint32_t(j);  // no summand reaches the limbs above
      std::uint32_t a = at[j] ? x0 : mask;
      if (j >= 1) a = at[j >= 1 ? j - 1 : 0] ? x1 : a;
      if (traits::window_words == 3 && j >= 2) a = at[j >= 2 ? j - 2 : 0] ? x2 : a;
      addend[j] = a;
    }
    exact::add_limbs(limb, addend, neg);
  }

  /// *this += d, exactly, for a double d that is an integer multiple of 2^-149
  /// below 2^132 in magnitude (float accumulators only) — e.g. the sum of a few
  /// floats computed exactly in double arithmetic.
  SCANKIT_HD SCANKIT_FORCEINLINE void add_double_units(double d) {
    static_assert(std::is_same_v<F, float>, "add_double_units: float accumulators");
    const std::uint64_t b = exact::bit_cast<std::uint64_t>(d);
    const std::uint32_t biased = std::uint32_t(b >> 52) & 0x7ffu;
    // d = m · 2^(biased - 1075) = m · 2^(biased - 926) units of 2^-149; below
    // unit 0 there are only zero bits (d is a multiple of a unit).
    std::uint64_t m = biased != 0 ? (b & ((std::uint64_t(1) << 52) - 1)) | (std::uint64_t(1) << 52) : 0;
    const int shift = int(biased) - 926;
    m = shift < 0 ? m >> (-shift < 63 ? -shift : 63) : m;
    const std::uint32_t off = shift < 0 ? 0u : std::uint32_t(shift);
    const std::uint32_t q = off >> 5, s = off & 31;  // m · 2^s (< 2^85) lands on limbs q, q + 1, q + 2
    const std::uint32_t m_lo = std::uint32_t(m), m_hi = std::uint32_t(m >> 32);
    const std::uint32_t neg = (b >> 63) != 0 && m != 0 ? 1u : 0u;
    const std::uint32_t mask = 0u - neg;
    const std::uint32_t x0 = (m_lo << s) ^ mask, x1 = exact::funnel_left(m_lo, m_hi, s) ^ mask,
                        x2 = exact::funnel_left(m_hi, 0u, s) ^ mask;
    std::uint32_t addend[limbs];
    SCANKIT_UNROLL
    for (int j = 0; j < limbs; ++j) {
      const std::uint32_t k = std::uint32_t(j) - q;  // wraps for j < q; every other limb gets the mask (~0 or 0)
      addend[j] = k == 0 ? x0 : k == 1 ? x1 : k == 2 ? x2 : mask;
    }
    exact::add_limbs(limb, addend, neg);
  }

  /// The finite part of the sum (flags ignored) as a double within 2^-52 of
  /// its magnitude: |approx_double() - sum| <= 2^-52 |sum| (float
  /// accumulators only; every such sum is far inside double's range).
  /// `exact` is set to whether the double is the sum itself.
  SCANKIT_HD SCANKIT_FORCEINLINE double approx_double(bool& exact) const {
    static_assert(std::is_same_v<F, float>, "approx_double: float accumulators");
    const leading_bits m = leading();
    exact = true;
    if (m.zero) return 0.0;
    // Exact when nothing is cut off below the window and the window fits 53 bits.
    exact = !m.below && (m.window & 0x7ff) == 0;
    // window · 2^(t - 63) units; one rounding (2^-53) in the conversion, the scaling is exact.
    const int scale = int(m.t) - 63 - 149;  // in [-212, 107]: a normal double
    const double magnitude = double(m.window) * exact::bit_cast<double>(std::uint64_t(1023 + scale) << 52);
    return m.neg ? -magnitude : magnitude;
  }

  /// a + b, exactly (associative and commutative bit for bit).
  SCANKIT_HD SCANKIT_FORCEINLINE friend exact_accumulator operator+(const exact_accumulator& a,
                                                                    const exact_accumulator& b) {
    exact_accumulator r = a;
    exact::add_limbs(r.limb, b.limb, 0u);
    r.flags = a.flags | b.flags;
    return r;
  }

  /// The sum rounded to F: round to nearest, ties to even, IEEE specials (see the file comment).
  SCANKIT_HD SCANKIT_FORCEINLINE F rounded() const {
    constexpr int mbits = traits::mantissa_bits;
    constexpr bits_t sign_bit = bits_t(1) << (8 * sizeof(bits_t) - 1);
    constexpr bits_t inf_bits = bits_t(traits::exponent_all_ones) << mbits;
    constexpr bits_t nan_bits = inf_bits | (bits_t(1) << (mbits - 1));  // quiet NaN

    const leading_bits m = leading();
    const std::uint64_t window = m.window;
    const std::uint32_t t = m.t;

    // The result's ulp is fixed-point bit u (never below bit 0: subnormals); r window bits lie below it (r >= 11).
    const std::uint32_t u = t > std::uint32_t(mbits) ? t - std::uint32_t(mbits) : 0u;
    const std::uint32_t r = u + 63 - t;
    bits_t mantissa = bits_t(window >> r);  // hidden bit included for a normal result
    const bool half = ((window >> (r - 1)) & 1u) != 0;
    const bool rest = (window & ((std::uint64_t(1) << (r - 1)) - 1)) != 0 || m.below;
    mantissa += bits_t(half && (rest || (mantissa & 1u)) ? 1u : 0u);

    // IEEE bits: (u << mbits) + mantissa encodes normal and subnormal results and a carry into the exponent; an ulp
    // at or past the largest finite exponent's is infinity (u == largest finite's with a carry gives inf_bits too).
    bits_t bits = u >= traits::exponent_all_ones - 1 ? inf_bits : (bits_t(u) << mbits) + mantissa;
    bits |= m.neg ? sign_bit : bits_t(0);

    const bool negative_zero = (flags & (flag_finite | flag_not_negative_zero)) == flag_finite;
    bits = m.zero ? (negative_zero ? sign_bit : bits_t(0)) : bits;

    // Specials: NaN, or both infinities -> NaN; otherwise an infinity wins.
    const bool both_inf = (flags & (flag_pos_inf | flag_neg_inf)) == (flag_pos_inf | flag_neg_inf);
    bits = (flags & flag_pos_inf) ? inf_bits : bits;
    bits = (flags & flag_neg_inf) ? (sign_bit | inf_bits) : bits;
    bits = (flags & flag_nan) || both_inf ? nan_bits : bits;
    return exact::bit_cast<F>(bits);
  }

 private:
  /// The leading bits of |sum| (flags ignored): the 64 bits from its highest
  /// set bit (fixed-point bit t) down, and whether any bit below them is set.
  struct leading_bits {
    std::uint64_t window;
    std::uint32_t t;
    bool neg, zero, below;
  };
  SCANKIT_HD SCANKIT_FORCEINLINE leading_bits leading() const {
    // Magnitude: negate (complement, then + 1) when the top limb's sign bit is set.
    const std::uint32_t neg = limb[limbs - 1] >> 31;
    const std::uint32_t mask = 0u - neg;
    std::uint32_t mag[limbs], none[limbs];
    SCANKIT_UNROLL
    for (int j = 0; j < limbs; ++j) {
      mag[j] = limb[j] ^ mask;
      none[j] = 0;
    }
    exact::add_limbs(mag, none, neg);

    // Highest nonzero limb h, the limbs h, h-1, h-2 (zero below limb 0), and the OR of every limb below h-2.
    std::uint32_t h = 0, top = 0, mid = 0, low = 0, sticky = 0, below = 0;
    SCANKIT_UNROLL
    for (int j = 0; j < limbs; ++j) {
      if (j >= 3) below |= mag[j >= 3 ? j - 3 : 0];
      const bool nonzero = mag[j] != 0;
      h = nonzero ? std::uint32_t(j) : h;
      top = nonzero ? mag[j] : top;
      mid = nonzero ? (j >= 1 ? mag[j >= 1 ? j - 1 : 0] : 0u) : mid;
      low = nonzero ? (j >= 2 ? mag[j >= 2 ? j - 2 : 0] : 0u) : low;
      sticky = nonzero ? below : sticky;
    }

    // Window: the 64 bits from the top set bit down; what is left of `low` joins the bits below.
    const std::uint32_t lz = exact::leading_zeros(top) & 31;  // top == 0 only for an exact zero
    leading_bits m;
    m.window = (std::uint64_t(exact::funnel_left(mid, top, lz)) << 32) | exact::funnel_left(low, mid, lz);
    m.t = 32 * h + 31 - lz;
    m.neg = neg != 0;
    m.zero = top == 0;
    m.below = (sticky | (low << lz)) != 0;
    return m;
  }
};

/// The scan operator of exact sums: op(a, b) = a + b.
struct exact_plus {
  template <class A>
  SCANKIT_HD SCANKIT_FORCEINLINE A operator()(const A& a, const A& b) const {
    return a + b;
  }
};

}  // namespace scankit::detail
