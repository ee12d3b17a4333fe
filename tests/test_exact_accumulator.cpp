// tests/test_exact_accumulator.cpp — scankit::detail::exact_accumulator, the
// scanned type of the exact floating-point scans, on the host (plain C++, g++):
// every prefix of random sequences over the whole exponent range rounds to the
// same bits as the oracle (tests/support/exact_sum.hpp); two-summand sums equal
// the hardware's correctly rounded a + b; cancellations, the top of the range
// (overflow, the max + half-ulp tie), subnormals, ties, signed zeros, NaN and
// infinities; operator+ gives identical limbs and flags for any split, order and
// tree shape; of(x) rounds back to x; magnitudes up to 2^41 times the largest
// value keep their sign and round correctly. Host only.
#include <scankit/detail/numeric/exact_accumulator.cuh>
#include <support/exact_sum.hpp>
#include <support/float_bits.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using scankit::detail::exact_accumulator;
using scankit::detail::exact_plus;

using sktest::bits_of;
using sktest::from_bits;
using sktest::same_bits;
using sktest::to_bits;

/// For failure messages: the value and its bits.
template <class F>
std::string show(F x) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%a (0x%llx)", double(x), static_cast<unsigned long long>(to_bits(x)));
  return buffer;
}

/// Identical limbs and flags.
template <class F>
bool same_state(const exact_accumulator<F>& a, const exact_accumulator<F>& b) {
  return std::memcmp(a.limb, b.limb, sizeof a.limb) == 0 && a.flags == b.flags;
}

template <class F>
constexpr int mantissa_bits = std::numeric_limits<F>::digits - 1;  // 23 / 52
template <class F>
constexpr std::uint32_t max_biased = sizeof(F) == 4 ? 254 : 2046;  // largest finite biased exponent

/// A finite F with sign, biased exponent in [lo, hi] and a random fraction.
template <class F>
F random_with_exponent(std::mt19937_64& rng, std::uint32_t lo, std::uint32_t hi) {
  using B = bits_of<F>;
  const B fraction = B(rng()) & ((B(1) << mantissa_bits<F>) - 1);
  const B biased = B(lo + rng() % (hi - lo + 1));
  const B sign = B(rng() & 1) << (8 * sizeof(B) - 1);
  return from_bits<F>(sign | (biased << mantissa_bits<F>) | fraction);
}

/// Sequences of several kinds, so that sums cancel, carry far, land near the
/// top of the range and in the subnormals.
template <class F>
std::vector<F> random_sequence(std::mt19937_64& rng, int kind, int n) {
  std::vector<F> v;
  const std::uint32_t top = max_biased<F>;
  const std::uint32_t center = std::uint32_t(rng() % (top + 1));
  auto band = [&](std::uint32_t width) {
    const std::uint32_t lo = center > width ? center - width : 0, hi = center + width < top ? center + width : top;
    return random_with_exponent<F>(rng, lo, hi);
  };
  for (int i = 0; i < n; ++i) {
    switch (kind) {
      case 0: v.push_back(random_with_exponent<F>(rng, 0, top)); break;  // whole range
      case 1: v.push_back(band(30)); break;                              // one band: carries and cancellation
      case 2:                                                            // x, then -x or a neighbour of -x
        if (i % 2 == 0 || v.empty()) {
          v.push_back(band(8));
        } else {
          const F x = -v[rng() % v.size()];
          const int step = int(rng() % 3) - 1;
          const F inf = std::numeric_limits<F>::infinity();
          v.push_back(step == 0 ? x : std::nextafter(x, step > 0 ? inf : -inf));
        }
        break;
      case 3: v.push_back(random_with_exponent<F>(rng, 0, 2)); break;         // subnormals and the smallest normals
      case 4: v.push_back(random_with_exponent<F>(rng, top - 2, top)); break;  // the top: overflow and back
      default: {                                                               // huge and tiny mixed
        const std::uint32_t r = std::uint32_t(rng() % 4);
        v.push_back(r == 0 ? random_with_exponent<F>(rng, top - 1, top)
                    : r == 1 ? random_with_exponent<F>(rng, 0, 1)
                             : random_with_exponent<F>(rng, 0, top));
      }
    }
  }
  return v;
}

template <class F>
F oracle(const std::vector<F>& v) {
  sktest::exact_sum s;
  for (F x : v) s.add(x);
  return s.rounded<F>();
}

/// (2^k - 1) · x, correctly rounded, without the accumulator: for float through
/// the oracle (2^k · x is a double), for double by one fused multiply-add.
template <class F>
F odd_multiple(F x, int k) {
  if constexpr (sizeof(F) == 4) {
    sktest::exact_sum s;
    s.add(std::ldexp(double(x), k));
    s.add(-double(x));
    return s.rounded<float>();
  } else {
    return std::fma(double((std::uint64_t(1) << k) - 1), x, 0.0);
  }
}

template <class F>
F accumulated(std::initializer_list<F> xs) {
  auto acc = exact_accumulator<F>::zero();
  for (F x : xs) acc.add(x);
  return acc.rounded();
}

/// The accumulator's and the oracle's rounded sums of xs, which must have the same bits.
template <class F>
struct both {
  F got, want;
  bool agree() const { return same_bits(got, want); }
};

template <class F>
both<F> sum_both(std::initializer_list<F> xs) {
  return {accumulated<F>(xs), oracle<F>(std::vector<F>(xs))};
}

}  // namespace

TEMPLATE_TEST_CASE("exact_accumulator: a trivial aggregate of the documented size", "[exact_accumulator]", float,
                   double) {
  using A = exact_accumulator<TestType>;
  static_assert(std::is_trivially_copyable_v<A>);
  static_assert(std::is_trivially_default_constructible_v<A>);
  static_assert(std::is_standard_layout_v<A>);
  static_assert(A::limbs == (sizeof(TestType) == 4 ? 10 : 67));
  static_assert(sizeof(A) == 4 * (A::limbs + 1));
  const A z = A::zero();
  for (int j = 0; j < A::limbs; ++j) CHECK(z.limb[j] == 0u);
  CHECK(z.flags == 0u);
  CHECK(same_bits(z.rounded(), TestType(0)));  // +0, not -0
}

TEMPLATE_TEST_CASE("exact_accumulator: every prefix of random sequences rounds as the oracle", "[exact_accumulator]",
                   float, double) {
  using F = TestType;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int sequence = 0; sequence < 240; ++sequence) {
    const int kind = sequence % 6;
    const std::vector<F> v = random_sequence<F>(rng, kind, 50);
    auto acc = exact_accumulator<F>::zero();
    sktest::exact_sum s;
    for (std::size_t i = 0; i < v.size(); ++i) {
      acc.add(v[i]);
      s.add(v[i]);
      const F got = acc.rounded(), want = s.rounded<F>();
      if (!same_bits(got, want)) {
        CAPTURE(sequence, kind, i, show(v[i]), show(got), show(want));
        REQUIRE(same_bits(got, want));
      }
    }
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: two summands round as the hardware's a + b", "[exact_accumulator]", float,
                   double) {
  using F = TestType;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    F a = random_with_exponent<F>(rng, 0, max_biased<F>), b = random_with_exponent<F>(rng, 0, max_biased<F>);
    if (i % 4 == 1) b = -a * F(0.75);                                                  // cancellation
    if (i % 4 == 2) b = std::ldexp(random_with_exponent<F>(rng, 0, max_biased<F>), -30) - a;  // close magnitudes
    if (i % 4 == 3) b = std::ldexp(a, -mantissa_bits<F> - 1 - int(rng() % 3));        // near half an ulp of a
    if (!std::isfinite(b)) continue;
    const F want = a + b;  // IEEE: correctly rounded, overflow to inf included
    auto acc = exact_accumulator<F>::of(a);
    acc.add(b);
    const F got = acc.rounded();
    const F combined = (exact_accumulator<F>::of(b) + exact_accumulator<F>::of(a)).rounded();
    if (!same_bits(got, want) || !same_bits(combined, want)) {
      CAPTURE(i, show(a), show(b), show(want), show(got), show(combined));
      REQUIRE(same_bits(got, want));
      REQUIRE(same_bits(combined, want));
    }
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: cancellation, the top of the range, subnormals and ties", "[exact_accumulator]",
                   float, double) {
  using F = TestType;
  using L = std::numeric_limits<F>;
  const F big = L::max(), tiny = L::denorm_min(), inf = L::infinity(), one = 1;
  const F half_ulp_of_max = std::ldexp(F(1), L::max_exponent - 1 - L::digits);  // 2^103 / 2^970
  const F half_ulp_of_one = std::ldexp(F(1), -L::digits);                      // 2^-24 / 2^-53
  const F above_one = std::nextafter(one, F(2));
  auto check = [](both<F> r, F expected) {
    CAPTURE(show(r.got), show(r.want), show(expected));
    CHECK(same_bits(r.got, expected));
    CHECK(same_bits(r.want, expected));
  };
  // Cancellation: nothing of the small terms is lost.
  check(sum_both<F>({one, tiny, -one}), tiny);
  check(sum_both<F>({big, one, -big}), one);
  check(sum_both<F>({big, big, -big}), big);  // the partial sum 2 · max is held exactly
  check(sum_both<F>({-big, -big, big, tiny}), -big);
  check(sum_both<F>({one, -above_one}), -std::ldexp(F(1), -mantissa_bits<F>));
  check(sum_both<F>({above_one, -one, -tiny}), std::ldexp(F(1), -mantissa_bits<F>));  // 2^-23 - 2^-149 rounds up
  // The top of the range: overflow, and max + half an ulp, a tie that rounds to even (up, to infinity).
  check(sum_both<F>({big, big}), inf);
  check(sum_both<F>({-big, -big}), -inf);
  check(sum_both<F>({big, half_ulp_of_max}), inf);
  check(sum_both<F>({-big, -half_ulp_of_max}), -inf);
  check(sum_both<F>({big, half_ulp_of_max, -tiny}), big);
  check(sum_both<F>({-big, -half_ulp_of_max, tiny}), -big);
  check(sum_both<F>({big, half_ulp_of_max, -half_ulp_of_max}), big);
  check(sum_both<F>({std::nextafter(big, F(0)), half_ulp_of_max}), std::nextafter(big, F(0)));  // even: down
  // Subnormals, and the step to the smallest normal.
  check(sum_both<F>({tiny, tiny, tiny}), 3 * tiny);
  check(sum_both<F>({L::min(), -tiny, tiny}), L::min());
  check(sum_both<F>({std::nextafter(L::min(), F(0)), tiny}), L::min());
  check(sum_both<F>({-L::min(), tiny}), -std::nextafter(L::min(), F(0)));
  // Ties: to even, and a sticky bit far below (of either sign) decides.
  check(sum_both<F>({one, half_ulp_of_one}), one);
  check(sum_both<F>({above_one, half_ulp_of_one}), std::nextafter(above_one, F(2)));
  check(sum_both<F>({one, half_ulp_of_one, tiny}), above_one);
  check(sum_both<F>({one, half_ulp_of_one, -tiny}), one);
  check(sum_both<F>({above_one, half_ulp_of_one, -tiny}), above_one);
  check(sum_both<F>({F(2) - 2 * half_ulp_of_one, half_ulp_of_one}), F(2));  // rounds up into the next binade
  check(sum_both<F>({-one, -half_ulp_of_one}), -one);
  check(sum_both<F>({-above_one, -half_ulp_of_one}), -std::nextafter(above_one, F(2)));

  // Random subnormal-only sequences.
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int sequence = 0; sequence < 100; ++sequence) {
    std::vector<F> v;
    auto acc = exact_accumulator<F>::zero();
    for (int i = 0; i < 40; ++i) {
      v.push_back(random_with_exponent<F>(rng, 0, 0));
      acc.add(v.back());
      const F want = oracle(v), got = acc.rounded();
      if (!same_bits(got, want)) {
        CAPTURE(sequence, i, show(got), show(want));
        REQUIRE(same_bits(got, want));
      }
    }
  }
  // Random exact ties: x plus or minus half an ulp of x (never at a binade's edge: |x|'s fraction is not 0).
  for (int i = 0; i < 20000; ++i) {
    const F x = random_with_exponent<F>(rng, L::digits + 1, max_biased<F>);
    int e = 0;
    std::frexp(x, &e);
    const F h = std::ldexp(F(rng() & 1 ? 1 : -1), e - 1 - L::digits);
    if (std::fabs(x) == std::ldexp(F(1), e - 1)) continue;
    const F want = x + h;  // IEEE: ties to even
    const both<F> r = sum_both<F>({x, h});
    if (!same_bits(r.got, want) || !r.agree()) {
      CAPTURE(i, show(x), show(h), show(want), show(r.got), show(r.want));
      REQUIRE(same_bits(r.got, want));
      REQUIRE(r.agree());
    }
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: one bit anywhere below a tie decides the rounding", "[exact_accumulator]", float,
                   double) {
  // x + half an ulp of x ± 2^p for every p below the half ulp down to the smallest subnormal: the extra bit
  // falls into every position relative to the 64-bit window and the limb boundaries.
  using F = TestType;
  using L = std::numeric_limits<F>;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int base = 0; base < 12; ++base) {
    const F x = base == 0 ? F(1) : random_with_exponent<F>(rng, L::digits + 2, max_biased<F> - 1);
    const F mag = std::fabs(x);
    int e = 0;
    std::frexp(mag, &e);
    const int half_ulp_exponent = e - 1 - L::digits;
    const F h = std::ldexp(F(1), half_ulp_exponent);
    for (int p = half_ulp_exponent - 1; p >= L::min_exponent - L::digits; --p) {
      const F bit = std::ldexp(F(1), p);
      for (const F sign : {F(1), F(-1)}) {
        const both<F> up = sum_both<F>({sign * mag, sign * h, sign * bit});     // above the tie: away from zero
        const both<F> down = sum_both<F>({sign * mag, sign * h, -sign * bit});  // below the tie: toward zero
        const F want_up = sign * std::nextafter(mag, L::infinity()), want_down = sign * mag;
        if (!same_bits(up.got, want_up) || !up.agree() || !same_bits(down.got, want_down) || !down.agree()) {
          CAPTURE(base, show(x), p, show(up.got), show(up.want), show(down.got), show(down.want));
          REQUIRE(same_bits(up.got, want_up));
          REQUIRE(up.agree());
          REQUIRE(same_bits(down.got, want_down));
          REQUIRE(down.agree());
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: signed zeros, infinities and NaN as IEEE addition", "[exact_accumulator]",
                   float, double) {
  using F = TestType;
  using L = std::numeric_limits<F>;
  const F inf = L::infinity(), nan = L::quiet_NaN(), big = L::max();
  const F snan = L::signaling_NaN(), negative_nan = -L::quiet_NaN();
  auto check = [](both<F> r, F expected) {
    CAPTURE(show(r.got), show(r.want), show(expected));
    CHECK(same_bits(r.got, expected));
    CHECK(same_bits(r.want, expected));
  };
  check(sum_both<F>({}), F(0));
  check(sum_both<F>({-F(0)}), -F(0));
  check(sum_both<F>({-F(0), -F(0), -F(0)}), -F(0));
  check(sum_both<F>({-F(0), F(0)}), F(0));
  check(sum_both<F>({F(0), -F(0)}), F(0));
  check(sum_both<F>({F(1), -F(1)}), F(0));
  check(sum_both<F>({-F(1), F(1)}), F(0));
  check(sum_both<F>({-F(1), F(1), -F(0)}), F(0));
  check(sum_both<F>({-F(0), -L::denorm_min(), L::denorm_min()}), F(0));
  check(sum_both<F>({-F(0), F(2.5)}), F(2.5));
  check(sum_both<F>({F(1), inf}), inf);
  check(sum_both<F>({-inf, F(5)}), -inf);
  check(sum_both<F>({inf, inf, -F(0)}), inf);
  check(sum_both<F>({big, big, -inf}), -inf);
  check(sum_both<F>({-F(0), -inf}), -inf);
  check(sum_both<F>({inf, -inf}), nan);
  check(sum_both<F>({-inf, F(1), inf}), nan);
  check(sum_both<F>({F(1), nan, F(2)}), nan);
  check(sum_both<F>({nan, inf}), nan);
  check(sum_both<F>({-inf, snan}), nan);
  check(sum_both<F>({negative_nan}), nan);
  // The NaN produced is quiet (and the canonical positive one).
  const F got_nan = accumulated<F>({inf, -inf, snan});
  CHECK(to_bits(got_nan) == to_bits(nan));
  // Specials travel through operator+ as flags.
  using A = exact_accumulator<F>;
  CHECK(same_bits((A::of(inf) + A::of(-inf)).rounded(), nan));
  CHECK(same_bits((A::of(F(3)) + A::of(-inf)).rounded(), -inf));
  CHECK(same_bits((A::of(-F(0)) + A::of(-F(0))).rounded(), -F(0)));
  CHECK(same_bits((A::of(-F(0)) + A::zero()).rounded(), -F(0)));
  CHECK(same_bits((A::of(-F(0)) + A::of(F(0))).rounded(), F(0)));
  CHECK(same_bits((A::of(F(7)) + A::of(-F(7))).rounded(), F(0)));
}

TEMPLATE_TEST_CASE("exact_accumulator: operator+ gives the same limbs for any split, order and tree shape",
                   "[exact_accumulator]", float, double) {
  using F = TestType;
  using A = exact_accumulator<F>;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<F> v = random_sequence<F>(rng, trial % 6, 1 + int(rng() % 64));
    if (trial % 10 == 9) v[rng() % v.size()] = trial % 20 == 9 ? std::numeric_limits<F>::infinity() : -F(0);
    A sequential = A::zero();
    for (F x : v) sequential.add(x);
    // Random cut points: parts [cut[k], cut[k + 1]), some possibly empty.
    std::vector<std::size_t> cuts = {0, v.size()};
    for (int k = int(rng() % 8); k > 0; --k) cuts.push_back(rng() % (v.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    std::vector<A> parts;
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      A part = A::zero();
      for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) part.add(v[i]);
      parts.push_back(part);
    }
    const exact_plus plus;
    A left = A::zero(), right = A::zero(), reversed = A::zero();
    for (const A& p : parts) left = plus(left, p);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) right = plus(*it, right);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) reversed = plus(reversed, *it);
    std::vector<A> tree = parts;  // random tree: combine two random entries until one is left
    while (tree.size() > 1) {
      const std::size_t i = rng() % tree.size();
      std::size_t j = rng() % (tree.size() - 1);
      if (j >= i) ++j;
      tree[i] = rng() & 1 ? tree[i] + tree[j] : tree[j] + tree[i];
      tree.erase(tree.begin() + std::ptrdiff_t(j));
    }
    CAPTURE(trial, v.size(), parts.size());
    REQUIRE(same_state(left, sequential));
    REQUIRE(same_state(right, sequential));
    REQUIRE(same_state(reversed, sequential));
    REQUIRE(same_state(tree[0], sequential));
    const F want = oracle(v), got = tree[0].rounded();
    CAPTURE(show(got), show(want));
    REQUIRE(same_bits(got, want));
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: of(x) holds x exactly", "[exact_accumulator]", float, double) {
  using F = TestType;
  using A = exact_accumulator<F>;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<F> xs = {F(0), -F(0), std::numeric_limits<F>::denorm_min(), -std::numeric_limits<F>::denorm_min(),
                       std::numeric_limits<F>::min(), std::numeric_limits<F>::max(), -std::numeric_limits<F>::max(),
                       F(1), -F(1)};
  for (int i = 0; i < 100000; ++i) xs.push_back(random_with_exponent<F>(rng, 0, i % 3 == 0 ? 2 : max_biased<F>));
  for (F x : xs) {
    const A a = A::of(x);
    A b = A::zero();
    b.add(x);
    const F got = a.rounded();
    const A cancelled = a + A::of(-x);
    bool cancelled_to_zero = true;
    for (int j = 0; j < A::limbs; ++j) cancelled_to_zero = cancelled_to_zero && cancelled.limb[j] == 0;
    if (!same_bits(got, x) || !same_state(a, b) || !cancelled_to_zero) {
      CAPTURE(show(x), show(got));
      REQUIRE(same_bits(got, x));
      REQUIRE(same_state(a, b));
      REQUIRE(cancelled_to_zero);
    }
  }
}

TEMPLATE_TEST_CASE("exact_accumulator: sums up to 2^41 times the largest value keep their sign and round correctly",
                   "[exact_accumulator]", float, double) {
  using F = TestType;
  using A = exact_accumulator<F>;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<F> xs = {std::numeric_limits<F>::max(), -std::numeric_limits<F>::max(),
                       std::numeric_limits<F>::denorm_min(), -std::numeric_limits<F>::denorm_min()};
  for (int i = 0; i < 400; ++i) xs.push_back(random_with_exponent<F>(rng, 0, max_biased<F>));
  for (F x : xs) {
    A a = A::of(x);
    for (int k = 1; k <= 41; ++k) {
      a = a + a;  // the sum of 2^k copies of x
      // x · 2^k exactly: a float times 2^41 is a double; a double that leaves the range is past max + half an ulp.
      const F want = sizeof(F) == 4 ? F(std::ldexp(double(x), k)) : std::ldexp(x, k);
      const F got = a.rounded();
      const bool sign_ok = (a.limb[A::limbs - 1] >> 31) == (x < 0 ? 1u : 0u);
      const A back = a + A::of(-x);  // (2^k - 1) · x: an odd multiple, so rounding is exercised
      const F want_back = odd_multiple(x, k);
      if (!same_bits(got, want) || !sign_ok || !same_bits(back.rounded(), want_back)) {
        CAPTURE(show(x), k, show(got), show(want), show(back.rounded()), show(want_back));
        REQUIRE(same_bits(got, want));
        REQUIRE(sign_ok);
        REQUIRE(same_bits(back.rounded(), want_back));
      }
    }
    // 2^42 summands, the documented limit.
    CHECK(same_bits((a + a).rounded(), sizeof(F) == 4 ? F(std::ldexp(double(x), 42)) : std::ldexp(x, 42)));
  }
}

TEST_CASE("exact_accumulator<float>: add_double_units adds a double holding an exact sum of floats",
          "[exact_accumulator]") {
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20000; ++trial) {
    // A few floats in one band of exponents (their double sum is exact when the
    // band spans at most 25 binades), anywhere in the range, including subnormals.
    const std::uint32_t lo = std::uint32_t(rng() % 230), hi = lo + std::uint32_t(rng() % 25);
    const int count = 1 + int(rng() % 15);
    std::vector<float> xs;
    double d = 0;
    for (int k = 0; k < count; ++k) {
      xs.push_back(random_with_exponent<float>(rng, lo, std::min<std::uint32_t>(hi, max_biased<float>)));
      d += double(xs.back());
    }
    exact_accumulator<float> by_items = exact_accumulator<float>::zero(), by_double = exact_accumulator<float>::zero();
    // Start from a random prefix so carries and borrows run into higher limbs.
    for (int k = 0; k < 3; ++k) {
      const float p = random_with_exponent<float>(rng, 0, max_biased<float>);
      by_items.add(p);
      by_double.add(p);
    }
    for (float x : xs) by_items.add(x);
    by_double.add_double_units(d);
    by_double.flags = by_items.flags;  // add_double_units leaves the flags to its caller
    INFO("trial " << trial << ": double sum " << show(d));
    REQUIRE(std::memcmp(by_items.limb, by_double.limb, sizeof by_items.limb) == 0);
  }
  // Zero of either sign adds nothing.
  exact_accumulator<float> a = exact_accumulator<float>::of(1.5f), b = a;
  b.add_double_units(-0.0);
  b.add_double_units(0.0);
  CHECK(same_state(a, b));
}

TEST_CASE("exact_accumulator<float>: approx_double is within 2^-52 of the exact sum", "[exact_accumulator]") {
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  int representable_seen = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<float> v = random_sequence<float>(rng, int(trial % 6), 1 + int(rng() % 40));
    exact_accumulator<float> acc = exact_accumulator<float>::zero();
    sktest::exact_sum oracle_sum;
    for (float x : v) {
      if (!std::isfinite(x)) continue;
      acc.add(x);
      oracle_sum.add(x);
      // The oracle's double is the exact sum rounded once (within 2^-53 of it).
      const long double exact = oracle_sum.rounded<double>();
      bool exact_flag = false;
      const long double approx = acc.approx_double(exact_flag);
      // The flag says whether the double is the sum itself, i.e. whether the
      // sum is a double (then approx is it).
      sktest::exact_sum difference = oracle_sum;
      difference.add(-double(exact));
      const bool representable = difference.rounded<double>() == 0;
      CHECK(exact_flag == representable);
      if (exact_flag) CHECK(approx == exact);
      representable_seen += representable ? 1 : 0;
      INFO("trial " << trial << ": exact " << show(double(exact)) << ", approx " << show(double(approx)));
      REQUIRE(std::fabs(approx - exact) <= std::ldexp(1.0L, -52) * std::fabs(exact) + std::ldexp(1.0L, -53) *
                                                                                          std::fabs(exact));
      if (exact == 0) REQUIRE(approx == 0);
    }
  }
  CHECK(representable_seen > 100);  // both answers of the flag were checked
  // Sums of small integers are doubles.
  exact_accumulator<float> small = exact_accumulator<float>::zero();
  for (int k = 1; k <= 1000; ++k) small.add(float(k % 7) - 3.0f);
  bool small_exact = false;
  CHECK(small.approx_double(small_exact) == 3.0);
  CHECK(small_exact);
}
