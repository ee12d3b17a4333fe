// tests/support/reference.hpp — independent host reference scans, and the
// comparison of device results against them (exact, or within a tolerance
// derived from Σ|x| for floating-point sums).
//
// The references are sequential folds with an explicit accumulator type:
//   int32 plus   int64 accumulator (the data never overflows int32; checked)
//   int64 plus   __int128 accumulator (likewise checked against int64)
//   uint32 plus  uint64 accumulator, result taken mod 2^32 (= device wrap)
//   uint64 plus  uint64 accumulator, wraps mod 2^64 like the device
//   float/double plus  compensated (Neumaier) summation in double: within
//                about 2·eps(double)·Σ|x| of the exact sum at any n here
//   min, max, bitwise  exact in T (the result is one of the inputs or a
//                bitwise function of them: no rounding anywhere)
// Plain C++: shared by nvcc-compiled tests.
#pragma once

#include "support/cuda_check.hpp"

#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/scan.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace sktest {

/// inclusive: out[i] = x0 ⊕ ... ⊕ xi; inclusive_init: init ⊕ x0 ⊕ ... ⊕ xi;
/// exclusive: out[0] = init, out[i] = init ⊕ x0 ⊕ ... ⊕ x(i-1).
enum class scan_mode { inclusive, inclusive_init, exclusive };

inline const char* to_string(scan_mode m) {
  switch (m) {
    case scan_mode::inclusive: return "inclusive";
    case scan_mode::inclusive_init: return "inclusive_init";
    case scan_mode::exclusive: return "exclusive";
  }
  return "?";
}

/// Type of the reference values: double for floating T (never rounded to T).
template <class T>
using ref_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

/// a ⊕ b for the operators other than plus, exactly as the library's functors
/// define them (device/operators.cuh).
template <class T>
T host_combine(scankit::op o, const T& a, const T& b) {
  switch (o) {
    case scankit::op::min: return b < a ? b : a;
    case scankit::op::max: return a < b ? b : a;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (o) {
      case scankit::op::bit_and: return T(a & b);
      case scankit::op::bit_or: return T(a | b);
      case scankit::op::bit_xor: return T(a ^ b);
      default: break;
    }
  }
  FAIL("host_combine: operator " << scankit::to_string(o) << " not handled here");
  return a;
}

/// Compensated double sum (Neumaier): error <= 2u|s| + O(n·u²)·Σ|x|.
class compensated_sum {
 public:
  void add(double x) {
    const double t = s_ + x;
    c_ += std::fabs(s_) >= std::fabs(x) ? (s_ - t) + x : (x - t) + s_;
    s_ = t;
  }
  double value() const { return s_ + c_; }

 private:
  double s_ = 0, c_ = 0;
};

/// The host reference scan of `in` with operator o (see the header comment).
template <class T>
std::vector<ref_t<T>> reference_scan(const std::vector<T>& in, scankit::op o, scan_mode mode, T init) {
  const std::size_t n = in.size();
  const bool has_init = mode != scan_mode::inclusive;
  const bool exclusive = mode == scan_mode::exclusive;
  std::vector<ref_t<T>> out(n);
  if (n == 0) return out;

  if (o == scankit::op::plus) {
    if constexpr (std::is_floating_point_v<T>) {
      compensated_sum acc;
      if (has_init) acc.add(double(init));
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) out[i] = acc.value();
        acc.add(double(in[i]));
        if (!exclusive) out[i] = acc.value();
      }
    } else if constexpr (std::is_signed_v<T>) {
      using acc_t = std::conditional_t<sizeof(T) <= 4, std::int64_t, __int128>;
      acc_t acc = has_init ? acc_t(init) : 0;
      acc_t abs_sum = has_init ? (init < 0 ? -acc_t(init) : acc_t(init)) : 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) out[i] = T(acc);
        acc += acc_t(in[i]);
        abs_sum += in[i] < 0 ? -acc_t(in[i]) : acc_t(in[i]);
        if (!exclusive) out[i] = T(acc);
      }
      // Every partial sum the device forms, in any association, is bounded by
      // Σ|x| + |init|: if that fits, no signed overflow (UB) can happen there.
      INFO("test data must not overflow " << (sizeof(T) == 4 ? "int32" : "int64"));
      REQUIRE(abs_sum <= acc_t(std::numeric_limits<T>::max()));
    } else {
      // Unsigned: arithmetic mod 2^64 in the accumulator, then mod 2^bits(T),
      // which is exactly the device's wrapping sum.
      std::uint64_t acc = has_init ? std::uint64_t(init) : 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) out[i] = T(acc);
        acc += std::uint64_t(in[i]);
        if (!exclusive) out[i] = T(acc);
      }
    }
    return out;
  }

  T acc = init;
  bool has = has_init;
  for (std::size_t i = 0; i < n; ++i) {
    if (exclusive) out[i] = ref_t<T>(acc);
    acc = has ? host_combine(o, acc, in[i]) : in[i];
    has = true;
    if (!exclusive) out[i] = ref_t<T>(acc);
  }
  return out;
}

// ---- floating-point tolerance -------------------------------------------
//
// Every output of a scan is some binary tree of additions over its terms
// (init and x0..xi). If no term passes through more than h roundings, the
// computed value differs from the exact sum by at most
//     γ_h · Σ|x_k|,  γ_h = h·u / (1 − h·u) <= h·eps(T)   (u = eps/2, h·u <= 1/2)
// (Higham, Accuracy and Stability, §4.2) — whatever the association order,
// so also for nondeterministic look-back results. The reference adds at most
// 4·eps(double)·Σ|x| of its own. So we accept
//     |got − ref| <= Σ|x| · (eps(T)·h + 4·eps(double))
//
// h for scankit's single-pass scan (default tuning, 512 threads, <= 4 rounds
// of <= 4-item vectors): inside a tile an item meets at most (vector − 1)
// sequential adds, 5 warp-scan levels, (rounds − 1) carries, 5 levels over the
// warp totals and a few prefix folds — under 40. Across tiles, tile t's
// inclusive prefix is at most one add deeper per tile than the inclusive prefix
// it was built from (a look-back over d tiles adds <= ceil(log2 d) + 1 <= d
// levels; windows of 32 add 6 per 32 tiles). So h <= tiles + 40 < tiles + 64.
//
// Thrust (CUB) has its own tile shape — on sm_90 3072 float / 2688 double
// items per tile, <= 24 sequential items per thread — so its bound uses a
// conservative 256 items per tile and 256 levels inside a tile. That bound is
// loose; the exact small-integer tests are the sharp float check for both.

/// Depth bound h for scankit's scan of n items of T with tuning `Tuning`.
template <class T, class Tuning = scankit::detail::default_scan_tuning<T>>
double scankit_depth_bound(std::size_t n) {
  const std::size_t tile = scankit::detail::tile_items<T, Tuning>;
  return double((n + tile - 1) / tile) + 64.0 + Tuning::rounds + scankit::detail::tuning_vector_items<T, Tuning>;
}

/// Depth bound h for thrust::inclusive_scan / exclusive_scan (CUB) of n items.
inline double thrust_depth_bound(std::size_t n) { return std::ceil(double(n) / 256.0) + 256.0; }

// ---- comparison -----------------------------------------------------------

/// Outcome of comparing a device result with the reference.
struct scan_check {
  std::size_t n = 0;
  std::size_t mismatches = 0;
  std::string report;  // the first mismatches, for INFO
  bool ok() const { return mismatches == 0; }
};

template <class T>
std::string format_value(const T& v) {
  std::ostringstream s;
  if constexpr (std::is_floating_point_v<T>) {
    s << std::setprecision(17) << v;
  } else {
    s << +v << " (0x" << std::hex << +std::make_unsigned_t<T>(v) << ")";
  }
  if (is_poison(v)) s << " [POISON: never written]";
  return s.str();
}

/// Compares `got` with `ref` (from reference_scan of `in`, `mode`, `init`).
/// depth == 0: exact equality (and, for floats, never the poison pattern).
/// depth  > 0: floating-point sum, within the tolerance above with h = depth.
template <class T>
scan_check compare_scan(const std::vector<T>& got, const std::vector<ref_t<T>>& ref, const std::vector<T>& in,
                        scan_mode mode, T init, double depth) {
  scan_check c;
  c.n = ref.size();
  std::ostringstream report;
  if (got.size() != ref.size() || in.size() != ref.size()) {
    c.mismatches = 1;
    c.report = "size mismatch: got " + std::to_string(got.size()) + ", reference " + std::to_string(ref.size());
    return c;
  }
  constexpr int max_listed = 8;
  double abs_sum = mode == scan_mode::inclusive ? 0.0 : std::fabs(double(init));
  for (std::size_t i = 0; i < ref.size(); ++i) {
    bool bad;
    double tolerance = 0;
    if constexpr (std::is_floating_point_v<T>) {
      if (mode != scan_mode::exclusive) abs_sum += std::fabs(double(in[i]));
      if (depth > 0) {
        tolerance = abs_sum * (std::numeric_limits<T>::epsilon() * depth + 4 * std::numeric_limits<double>::epsilon()) *
                    (1 + 1e-6);  // 1e-6: rounding of abs_sum itself
        bad = !(std::fabs(double(got[i]) - ref[i]) <= tolerance);  // also catches NaN
      } else {
        bad = !(double(got[i]) == ref[i]);
      }
      bad |= is_poison(got[i]);
      if (mode == scan_mode::exclusive) abs_sum += std::fabs(double(in[i]));
    } else {
      bad = got[i] != ref[i];
    }
    if (bad) {
      if (c.mismatches < max_listed) {
        report << "  [" << i << "] got " << format_value(got[i]) << ", expected " << format_value(ref[i]);
        if (tolerance > 0) report << " (tolerance " << tolerance << ")";
        report << "\n";
      }
      ++c.mismatches;
    }
  }
  if (c.mismatches != 0)
    c.report = std::to_string(c.mismatches) + " of " + std::to_string(c.n) + " elements wrong:\n" + report.str();
  return c;
}

}  // namespace sktest
