// tests/test_exact_sum.cpp — the exact-sum oracle (tests/support/exact_sum.hpp)
// against what IEEE 754 guarantees: the sum of two numbers, rounded once, is
// exactly the hardware's a + b (float and double, over the whole exponent
// range including subnormals), small-integer sums are exact, and the classic
// cancellations come out exact where the naive sum does not. Host only.
#include <support/exact_sum.hpp>
#include <support/float_bits.hpp>

#include <catch2/catch.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace {

using sktest::same_bits;

/// Random finite F with a random exponent over the whole range (subnormals,
/// zeros of both signs and the largest values included).
template <class F>
F random_finite(std::mt19937_64& rng) {
  using bits_t = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  while (true) {
    const bits_t b = bits_t(rng());
    F x;
    std::memcpy(&x, &b, sizeof(F));
    if (std::isfinite(x)) return x;
  }
}

template <class F>
F exact2(F a, F b) {
  sktest::exact_sum s;
  s.add(a);
  s.add(b);
  return s.rounded<F>();
}

}  // namespace

TEMPLATE_TEST_CASE("exact sum of two numbers equals the hardware's correctly rounded a + b", "[exact_sum]", float,
                   double) {
  using F = TestType;
  const std::uint64_t seed = Catch::rngSeed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 200000; ++i) {
    F a = random_finite<F>(rng), b = random_finite<F>(rng);
    if (i % 3 == 1) b = -a * F(0.75);                                  // heavy cancellation
    if (i % 3 == 2) b = std::ldexp(random_finite<F>(rng), -30) + a;   // close magnitudes
    if (!std::isfinite(b)) continue;
    const F want = a + b;  // IEEE: correctly rounded
    const F got = exact2(a, b);
    CAPTURE(i, a, b, want, got);
    if (!same_bits(want, got)) REQUIRE(same_bits(want, got));
  }
}

TEST_CASE("exact sum: small integers add exactly, in any order", "[exact_sum]") {
  std::mt19937_64 rng(Catch::rngSeed());
  std::vector<double> v(100000);
  double naive = 0;
  for (auto& x : v) {
    x = double(std::int64_t(rng() % 2001) - 1000);
    naive += x;  // exact: all partial sums stay far below 2^53
  }
  sktest::exact_sum forward, backward;
  for (double x : v) forward.add(x);
  for (auto it = v.rbegin(); it != v.rend(); ++it) backward.add(*it);
  CHECK(forward.rounded<double>() == naive);
  CHECK(backward.rounded<double>() == naive);
}

TEST_CASE("exact sum: cancellations and the exponent range's ends", "[exact_sum]") {
  auto sum = [](std::initializer_list<double> xs) {
    sktest::exact_sum s;
    for (double x : xs) s.add(x);
    return s.rounded<double>();
  };
  const double big = DBL_MAX, tiny = std::numeric_limits<double>::denorm_min();
  CHECK(sum({1e308, 1.0, -1e308}) == 1.0);                 // naive: 0
  CHECK(sum({big, big, -big}) == big);                      // naive: inf
  CHECK(sum({big, big}) == std::numeric_limits<double>::infinity());
  CHECK(sum({-big, -big}) == -std::numeric_limits<double>::infinity());
  CHECK(sum({tiny, tiny, tiny}) == 3 * tiny);
  CHECK(sum({1.0, tiny, -1.0}) == tiny);                    // naive: 0
  CHECK(sum({1.0, std::ldexp(1.0, -53)}) == 1.0);           // a tie: to even
  CHECK(sum({1.0, std::ldexp(1.0, -53), tiny}) == std::nextafter(1.0, 2.0));  // just above the tie
  CHECK(sum({std::nextafter(1.0, 2.0), std::ldexp(1.0, -53)}) == std::nextafter(std::nextafter(1.0, 2.0), 2.0));
  // float rounding from the exact value, not via double (no double rounding).
  sktest::exact_sum f;
  f.add(1.0f);
  f.add(std::ldexp(1.0f, -24));  // exactly half an ulp of 1.0f
  f.add(std::ldexp(1.0f, -60));  // a sticky bit far below: must round up
  CHECK(f.rounded<float>() == std::nextafter(1.0f, 2.0f));
  CHECK(f.rounded<double>() == 1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -60));
  // Float subnormals and overflow.
  sktest::exact_sum g;
  g.add(std::numeric_limits<float>::denorm_min());
  g.add(std::numeric_limits<float>::denorm_min());
  CHECK(g.rounded<float>() == 2 * std::numeric_limits<float>::denorm_min());
  sktest::exact_sum h;
  h.add(FLT_MAX);
  h.add(FLT_MAX);
  CHECK(h.rounded<float>() == std::numeric_limits<float>::infinity());
  CHECK(h.rounded<double>() == 2.0 * double(FLT_MAX));
}

TEST_CASE("exact sum: signed zeros, infinities and NaN as IEEE addition", "[exact_sum]") {
  auto sum = [](std::initializer_list<double> xs) {
    sktest::exact_sum s;
    for (double x : xs) s.add(x);
    return s.rounded<double>();
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(same_bits(sum({}), 0.0));
  CHECK(same_bits(sum({-0.0}), -0.0));
  CHECK(same_bits(sum({-0.0, -0.0}), -0.0));
  CHECK(same_bits(sum({-0.0, 0.0}), 0.0));
  CHECK(same_bits(sum({1.0, -1.0}), 0.0));
  CHECK(same_bits(sum({1.0, -1.0, -0.0}), 0.0));
  CHECK(sum({1.0, inf}) == inf);
  CHECK(sum({-inf, 5.0}) == -inf);
  CHECK(std::isnan(sum({inf, -inf})));
  CHECK(std::isnan(sum({1.0, nan, 2.0})));
  CHECK(std::isnan(sum({nan, inf})));
}
