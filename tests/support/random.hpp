// tests/support/random.hpp — test data: fresh every run, reproducible.
//
// Every data set is drawn from its own generator, seeded by mixing Catch's
// run seed (random per run, printed by the test main, set with --rng-seed)
// with a key naming the case (type, operator, mode, size), so a failure can
// be replayed with `--rng-seed S` whatever the test filter or order. Tests
// CAPTURE the seed and the size they actually ran.
//
// Values by operator (never all zeros):
//   plus, signed   small magnitudes: |x| <= 100 (int32) or 2^38 (int64), so no
//                  partial sum of up to 2^24 items (+ init, + one tile of
//                  padding) can overflow: signed overflow would be UB.
//   plus, unsigned full range: wrapping is defined and the reference wraps.
//   min, max, xor  full range.
//   bit_and        all ones, with about 2·bits single-bit holes spread over the
//                  array (full-range values would zero the prefix after a few
//                  dozen items and then test nothing); bit_or the dual.
//   floating       ±m·2^-(digits+e): m in [1, 2^digits), e = 0 half the time,
//                  else 1..16 — uniform in [-1, 1] with a magnitude spread.
//                  For float every value is a multiple of 2^-40, so is every
//                  rounded sum of them, and the poison pattern 0xA5A5A5A5
//                  (an odd multiple of 2^-75) can never be a correct result.
//   small_integers ±1..4 as T: every partial sum is exact in float while the
//                  sum of |x| stays below 2^24 (checked by the tests).
#pragma once

#include <catch2/catch.hpp>
#include <scankit/scan.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__CUDACC__)
#define SKTEST_HD __host__ __device__
#else
#define SKTEST_HD
#endif

namespace sktest {

/// SplitMix64 finalizer: a good 64-bit mix, identical on host and device.
SKTEST_HD inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Random 32-bit value number `i` of stream `seed` (counter-based: any element
/// can be recomputed anywhere, on host or device; the i-th SplitMix64 output).
SKTEST_HD inline std::uint32_t hash_u32(std::uint64_t seed, std::uint64_t i) {
  return std::uint32_t(mix64(seed + i * 0x9e3779b97f4a7c15ull) >> 32);
}

inline std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

/// The seed of one case: Catch's run seed mixed with the case's key.
inline std::uint64_t case_seed(const std::string& key) {
  return mix64(mix64(std::uint64_t(Catch::rngSeed())) ^ fnv1a(key));
}

/// Small, fast, portable generator (SplitMix64 stream).
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix64(state_ += 0x9e3779b97f4a7c15ull); }
  /// Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias < 2^-64·bound).
  std::uint64_t below(std::uint64_t bound) {
    return std::uint64_t((static_cast<unsigned __int128>(next()) * bound) >> 64);
  }
  bool coin() { return (next() >> 63) != 0; }

 private:
  std::uint64_t state_;
};

enum class value_kind { sum_safe, full_range, sparse_holes, sparse_bits, small_integers };

inline const char* to_string(value_kind k) {
  switch (k) {
    case value_kind::sum_safe: return "sum_safe";
    case value_kind::full_range: return "full_range";
    case value_kind::sparse_holes: return "sparse_holes";
    case value_kind::sparse_bits: return "sparse_bits";
    case value_kind::small_integers: return "small_integers";
  }
  return "?";
}

/// The data each host API operator is tested with (see the header comment).
inline value_kind kind_for(scankit::op o) {
  switch (o) {
    case scankit::op::plus: return value_kind::sum_safe;
    case scankit::op::bit_and: return value_kind::sparse_holes;
    case scankit::op::bit_or: return value_kind::sparse_bits;
    default: return value_kind::full_range;
  }
}

template <class T>
constexpr const char* type_name() {
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "custom";
}

/// Largest |x| of sum_safe signed data: keeps 2^24 + 2^13 items + init far
/// from overflow (100·(2^24 + 2^13) + 1000 < 2^31; 2^38·(2^24 + 2^13) + 2^40 < 2^63).
template <class T>
constexpr std::int64_t sum_safe_limit = sizeof(T) == 4 ? 100 : (std::int64_t(1) << 38);

/// A floating value on the 2^-(digits+16) grid, |x| <= 1, never 0.
template <class T>
T draw_grid_float(rng& r) {
  constexpr int digits = std::numeric_limits<T>::digits;
  const std::uint64_t m = 1 + r.below((std::uint64_t(1) << digits) - 1);
  const int e = r.coin() ? 0 : 1 + int(r.below(16));
  const T magnitude = std::ldexp(T(m), -(digits + e));
  return r.coin() ? -magnitude : magnitude;
}

/// One value of kind `kind` for an array of n items.
template <class T>
T draw_value(rng& r, value_kind kind, std::size_t n) {
  if (kind == value_kind::small_integers) return T((r.coin() ? -1 : 1) * int(1 + r.below(4)));
  if constexpr (std::is_floating_point_v<T>) {
    return draw_grid_float<T>(r);
  } else {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = std::numeric_limits<U>::digits;
    switch (kind) {
      case value_kind::sum_safe:
        if constexpr (std::is_signed_v<T>) {
          const T m = T(1 + r.below(std::uint64_t(sum_safe_limit<T>)));
          return r.coin() ? T(-m) : m;
        } else {
          return T(r.next());
        }
      case value_kind::sparse_holes:
      case value_kind::sparse_bits: {
        // About 2·bits marked items over the whole array (every item when n is small).
        const bool marked = r.below(std::max<std::uint64_t>(n, 2 * bits)) < 2 * bits;
        const U bit = marked ? U(U(1) << r.below(bits)) : U(0);
        return T(kind == value_kind::sparse_bits ? bit : U(~bit));
      }
      default: return T(U(r.next()));
    }
  }
}

/// n values of kind `kind`, never all zero.
template <class T>
std::vector<T> make_input(std::size_t n, value_kind kind, rng& r) {
  std::vector<T> v(n);
  bool any_nonzero = false;
  for (auto& x : v) {
    x = draw_value<T>(r, kind, n);
    any_nonzero |= x != T(0);
  }
  if (n != 0 && !any_nonzero) v[r.below(n)] = T(1);
  return v;
}

/// A non-trivial initial value for an exclusive scan (or inclusive_scan_init)
/// with operator o on data of kind `kind`: never the operator's identity.
template <class T>
T make_init(scankit::op o, value_kind kind, rng& r) {
  if (kind == value_kind::small_integers) return T((r.coin() ? -1 : 1) * int(1 + r.below(4)));
  if constexpr (std::is_floating_point_v<T>) {
    (void)o;
    return draw_grid_float<T>(r);
  } else {
    using U = std::make_unsigned_t<T>;
    constexpr int bits = std::numeric_limits<U>::digits;
    switch (o) {
      case scankit::op::plus:
        if constexpr (std::is_signed_v<T>) {
          const std::int64_t limit = sizeof(T) == 4 ? 1000 : (std::int64_t(1) << 40);
          const T m = T(1 + r.below(std::uint64_t(limit)));
          return r.coin() ? T(-m) : m;
        } else {
          return T(r.next());
        }
      case scankit::op::bit_and: return T(U(~(U(1) << r.below(bits))));
      case scankit::op::bit_or: return T(U(U(1) << r.below(bits)));
      default: {
        T x = T(U(r.next()));
        if (x == T(0)) x = T(1);
        return x;
      }
    }
  }
}

}  // namespace sktest
