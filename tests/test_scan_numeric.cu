// tests/test_scan_numeric.cu — the numeric modes of float and double scans
// (scankit::numeric_mode in scankit/policy.hpp; docs/numeric.md).
//
// GPU tests:
//   * run_to_run: 50 runs of the same 2^20- and 2^26-item float and double
//     sums (mixed signs, magnitudes 2^-20 .. 2^20: order sensitive) give the
//     same bits, while a second context on a second stream runs fast scans of
//     other 2^24- and 2^26-item data between them, all enqueued without
//     synchronizing (bits compared on the device, every scratch output
//     poisoned first); exclusive (random init) too, and min/max; the first run
//     of each matches the host reference. compensated (documented run to run
//     reproducible as well) the same way. How many of 50 fast-mode runs differ
//     from the first is reported (WARN), never asserted;
//   * run_to_run with every scan policy (all_scan_policies), inclusive and
//     exclusive, and through the template API with a non-associative custom
//     operator (composition of float affine maps) under every policy: 10 runs
//     with identical bits, the first within a Higham-style bound of a double
//     sequential fold;
//   * exact: every output equals the host oracle's (support/exact_sum.hpp)
//     correctly rounded exact prefix sum bit for bit (NaN equals NaN, -0
//     differs from +0), inclusive and exclusive (init from the same data),
//     float and double, on adversarial data — huge cancellations (values
//     near 2^100 and their negations among values near 1), random bits over
//     the whole finite exponent range, subnormals only, subnormal/normal
//     mixes, ±0 mixes with exact zeros, all -0 (every output -0), values at
//     the top of the range whose prefixes overflow to ±inf and come back,
//     uniform [-1, 1) — at sizes 1, 2, tile−1, tile, tile+1, 3·tile+7,
//     100003 and (random bits, uniform) 2^20; in place and misaligned;
//   * exact: six tile shapes (detail::launch_exact_scan with custom tunings,
//     32×1 to 512×9) give the default's bits and the oracle's;
//   * NaN and ±inf in every mode (fast, run_to_run, compensated, exact) give
//     the oracle's class (NaN / +inf / -inf / finite) for every output; the
//     data are small integers, so every finite output is exact in every mode
//     and is compared bit for bit as well;
//   * compensated: on ill-conditioned data (values ±r·2^k, k up to 60 for
//     double / 20 for float, each cancelled later, among values below 1) every
//     output is within the documented bound u|S_i| + γ(i+1)²·Σ|x_j| (errors
//     measured exactly with the oracle), and on the cancelled prefixes fast
//     mode's largest error is at least 100× compensated's;
//   * rejected modes leave the (poisoned) output untouched; integer scans
//     accept every mode and give the fast result (also with a textbook
//     policy); caller workspaces sized by scan_workspace_bytes(n, size, mode);
//   * [large] exact and run_to_run float sums of 2^31 + 4099 values in
//     {-1, 0, +1}, checked in full against an int64 running sum;
//   * [sanitize] small cases of every mode.
// Host tests: exact and compensated with min/max, with every textbook policy
// and (template API) with a non-floating type throw std::invalid_argument
// before any device access, also for n == 0; valid combinations with n == 0
// do nothing; integer scans accept every mode; scan_workspace_bytes with a mode.
#include "support/cuda_check.hpp"
#include "support/exact_sum.hpp"
#include "support/float_bits.hpp"
#include "support/policies.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"
#include "support/rejection.hpp"

#include <scankit/detail/maybe.cuh>
#include <scankit/detail/numeric/numeric_dispatch.cuh>
#include <scankit/detail/textbook_dispatch.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/scankit.hpp>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace sktest;
using scankit::block_algorithm;
using scankit::grid_strategy;
using scankit::numeric_mode;
using scankit::scan_policy;

constexpr numeric_mode all_numeric_modes[] = {numeric_mode::fast, numeric_mode::run_to_run, numeric_mode::exact,
                                              numeric_mode::compensated};

/// Items per tile of the tuned scan of T (fast and run_to_run).
template <class T>
constexpr std::size_t default_tile = scankit::detail::tile_items<T, scankit::detail::default_scan_tuning<T>>;

/// Items per tile of the exact scan of F (default tuning).
template <class F>
constexpr std::size_t exact_tile = scankit::detail::exact_tile_items<F>;

/// Items per tile of the compensated scan of F (the tuned kernel over pairs).
template <class F>
constexpr std::size_t compensated_tile =
    scankit::detail::tile_items<scankit::detail::compensated<F>, scankit::detail::compensated_scan_tuning<F>>;

// ---- bits of floating-point values ----------------------------------------

/// For failure messages: the value, in hex float, and its bits.
template <class F>
std::string show(F x) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, "%.17g = %a (0x%0*llx)", double(x), double(x), int(2 * sizeof(F)),
                static_cast<unsigned long long>(to_bits(x)));
  std::string s = buffer;
  if (is_poison(x)) s += " [POISON: never written]";
  return s;
}

/// The IEEE format constants the generators use.
template <class F>
struct ieee {
  static constexpr int mantissa_bits = std::numeric_limits<F>::digits - 1;  // 23 / 52
  static constexpr std::uint32_t max_biased = sizeof(F) == 4 ? 254 : 2046;  // largest finite biased exponent
  static constexpr std::uint32_t bias = sizeof(F) == 4 ? 127 : 1023;
};

/// The finite F with this sign, biased exponent and (low bits of) fraction.
template <class F>
F make_float(bool negative, std::uint32_t biased, std::uint64_t fraction) {
  using B = bits_of<F>;
  constexpr int m = ieee<F>::mantissa_bits;
  const B b = (B(negative ? 1 : 0) << (8 * sizeof(F) - 1)) | (B(biased) << m) | (B(fraction) & ((B(1) << m) - 1));
  return from_bits<F>(b);
}

/// Random sign and fraction, biased exponent uniform in [lo, hi].
template <class F>
F random_with_exponent(rng& r, std::uint32_t lo, std::uint32_t hi) {
  const bool negative = r.coin();
  const std::uint32_t biased = lo + std::uint32_t(r.below(hi - lo + 1));
  return make_float<F>(negative, biased, r.next());
}

/// Random sign and fraction, magnitude in [2^-2, 2^2).
template <class F>
F near_one(rng& r) {
  return random_with_exponent<F>(r, ieee<F>::bias - 2, ieee<F>::bias + 1);
}

/// ±m·2^e, full mantissa, e uniform in [-20, 20]: sums of these depend on the
/// order of the additions in the last bits.
template <class F>
F order_sensitive_value(rng& r) {
  return random_with_exponent<F>(r, ieee<F>::bias - 20, ieee<F>::bias + 20);
}

template <class F>
std::vector<F> order_sensitive_data(std::size_t n, rng& r) {
  std::vector<F> v(n);
  for (auto& x : v) x = order_sensitive_value<F>(r);
  return v;
}

// ---- classification ----------------------------------------------------------

enum class fp_class { finite, nan, pos_inf, neg_inf };

template <class F>
fp_class classify(F x) {
  if (std::isnan(x)) return fp_class::nan;
  if (std::isinf(x)) return x > 0 ? fp_class::pos_inf : fp_class::neg_inf;
  return fp_class::finite;
}

const char* class_name(fp_class c) {
  switch (c) {
    case fp_class::finite: return "finite";
    case fp_class::nan: return "NaN";
    case fp_class::pos_inf: return "+inf";
    case fp_class::neg_inf: return "-inf";
  }
  return "?";
}

// ---- the oracle and bitwise comparison ----------------------------------------

/// out[i] = the exact sum of x[0..i] (inclusive) or of init, x[0..i-1]
/// (exclusive), rounded once to F by the host oracle.
template <class F>
std::vector<F> exact_prefix_sums(const std::vector<F>& in, bool exclusive, F init) {
  std::vector<F> out(in.size());
  exact_sum acc;
  if (exclusive) acc.add(init);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) out[i] = acc.rounded<F>();
    acc.add(in[i]);
    if (!exclusive) out[i] = acc.rounded<F>();
  }
  return out;
}

struct bit_check {
  std::size_t mismatches = 0;
  std::string report;  // the first mismatches, for INFO
  bool ok() const { return mismatches == 0; }
};

/// Element-by-element same_bits comparison.
template <class F>
bit_check compare_bits(const std::vector<F>& got, const std::vector<F>& want) {
  bit_check c;
  if (got.size() != want.size()) {
    c.mismatches = 1;
    c.report = "size mismatch: got " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
    return c;
  }
  std::ostringstream s;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (same_bits(got[i], want[i])) continue;
    if (c.mismatches < 8) s << "  [" << i << "] got " << show(got[i]) << ", expected " << show(want[i]) << "\n";
    ++c.mismatches;
  }
  if (c.mismatches != 0)
    c.report = std::to_string(c.mismatches) + " of " + std::to_string(want.size()) + " outputs differ:\n" + s.str();
  return c;
}

// ---- running scans -----------------------------------------------------------

/// The host API scan with the default policy in numeric mode `mode`.
template <class T>
void run_mode(scankit::context& ctx, numeric_mode mode, bool exclusive, const T* d_in, T* d_out, std::size_t n,
              T init, scankit::op o = scankit::op::plus) {
  const scan_policy p = scankit::with_numeric(mode);
  if (exclusive)
    scankit::exclusive_scan(ctx, d_in, d_out, n, init, p, o);
  else
    scankit::inclusive_scan(ctx, d_in, d_out, n, p, o);
}

/// Uploads `in`, runs one scan in `mode` into a poisoned output, returns it.
template <class T>
std::vector<T> scan_once(scankit::context& ctx, cudaStream_t stream, numeric_mode mode, bool exclusive,
                         const std::vector<T>& in, T init, scankit::op o = scankit::op::plus) {
  const std::size_t n = in.size();
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  run_mode(ctx, mode, exclusive, d_in.data(), d_out.data(), n, init, o);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  return d_out.download(stream);
}

/// Adds to *d_count the number of i < n with a[i] != b[i] (as bit patterns).
template <class U>
__global__ void count_differences(const U* a, const U* b, std::size_t n, unsigned long long* d_count) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    local += a[i] != b[i] ? 1u : 0u;
  for (int offset = 16; offset > 0; offset >>= 1) local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31u) == 0 && local != 0) atomicAdd(d_count, local);
}

/// Runs `scan(d_out)` `runs` times on `stream`: the first run into d_first,
/// every other one into a freshly poisoned scratch buffer that a kernel then
/// compares with d_first bit for bit. `between(r)` is called before run r
/// (to enqueue other work elsewhere). Nothing synchronizes until every run is
/// enqueued. Returns, per run, how many elements differ from the first run's
/// (entry 0 is 0).
template <class T, class Scan, class Between>
std::vector<unsigned long long> repeat_runs(cudaStream_t stream, std::size_t n, int runs, device_buffer<T>& d_first,
                                            Scan&& scan, Between&& between) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "compared as 32- or 64-bit words");
  using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, unsigned long long>;
  REQUIRE(d_first.size() == n);
  device_buffer<T> d_again(n);
  device_buffer<unsigned long long> d_counts{static_cast<std::size_t>(runs)};
  SKTEST_CUDA(cudaMemsetAsync(d_counts.data(), 0, d_counts.bytes(), stream));
  d_first.poison(stream);
  between(0);
  scan(d_first.data());
  for (int r = 1; r < runs; ++r) {
    between(r);
    d_again.poison(stream);
    scan(d_again.data());
    count_differences<U><<<1024, 256, 0, stream>>>(reinterpret_cast<const U*>(d_first.data()),
                                                   reinterpret_cast<const U*>(d_again.data()), n, d_counts.data() + r);
    SKTEST_CUDA(cudaGetLastError());
  }
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  return d_counts.download(stream);
}

struct repeat_summary {
  int differing_runs = 0;
  std::string report;
};

repeat_summary summarize(const std::vector<unsigned long long>& counts) {
  repeat_summary s;
  std::ostringstream out;
  for (std::size_t r = 1; r < counts.size(); ++r) {
    if (counts[r] == 0) continue;
    if (s.differing_runs < 8) out << "  run " << r << ": " << counts[r] << " elements differ from run 0\n";
    ++s.differing_runs;
  }
  s.report = std::to_string(s.differing_runs) + " of " + std::to_string(counts.size() - 1) +
             " repeated runs differ from the first\n" + out.str();
  return s;
}

/// Fills d[0, n) with order-sensitive values (±[0, 1)·2^(-16..15)) from a
/// counter hash: load for a second stream, generated on the device.
template <class F>
__global__ void fill_mixed(F* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::uint64_t h = mix64(seed + i * 0x9e3779b97f4a7c15ull);
    const double m = double(std::int64_t(h >> 11) - (std::int64_t(1) << 52)) * 0x1p-52;  // [-1, 1)
    d[i] = F(ldexp(m, int(h & 31u) - 16));
  }
}

/// CHECKs a float/double plus scan against the host reference within the
/// Σ|x| tolerance of the tuned scan (reference.hpp).
template <class F>
void expect_sum_close(const std::vector<F>& in, const std::vector<double>& ref, const std::vector<F>& got,
                      bool exclusive, F init, const std::string& what) {
  const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
  const scan_check c = compare_scan(got, ref, in, mode, init, scankit_depth_bound<F>(in.size()));
  INFO(what << ": " << c.report);
  CHECK(c.ok());
}

template <class F>
void expect_sum_close(const std::vector<F>& in, const std::vector<F>& got, bool exclusive, F init,
                      const std::string& what) {
  const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
  expect_sum_close(in, reference_scan(in, scankit::op::plus, mode, init), got, exclusive, init, what);
}

// ---- a non-associative custom operator: float affine maps ------------------------

/// x -> a·x + b in float: composition is associative in exact arithmetic
/// only, and not commutative.
struct affine_f {
  float a, b;
};

/// f ⊕ g = "f, then g".
struct compose_affine_f {
  __host__ __device__ affine_f operator()(const affine_f& f, const affine_f& g) const {
    return {g.a * f.a, g.a * f.b + g.b};
  }
};

// ---- exact-mode data ---------------------------------------------------------------

enum class exact_data {
  cancellation,    // values near 2^100 and their negations among values near 1
  random_bits,     // random sign, exponent and fraction over the whole finite range
  subnormals,      // subnormals only (and the odd ±0)
  subnormal_mix,   // subnormals and the smallest normals
  signed_zeros,    // mostly ±0, a run of -0 first, values that later cancel exactly
  negative_zeros,  // -0 only
  overflow,        // the top three binades: prefixes overflow to ±inf and come back
  uniform,         // uniform in [-1, 1)
};

constexpr exact_data all_exact_data[] = {exact_data::cancellation, exact_data::random_bits,   exact_data::subnormals,
                                         exact_data::subnormal_mix, exact_data::signed_zeros, exact_data::negative_zeros,
                                         exact_data::overflow,     exact_data::uniform};

const char* data_name(exact_data d) {
  switch (d) {
    case exact_data::cancellation: return "cancellation";
    case exact_data::random_bits: return "random_bits";
    case exact_data::subnormals: return "subnormals";
    case exact_data::subnormal_mix: return "subnormal_mix";
    case exact_data::signed_zeros: return "signed_zeros";
    case exact_data::negative_zeros: return "negative_zeros";
    case exact_data::overflow: return "overflow";
    case exact_data::uniform: return "uniform";
  }
  return "?";
}

/// `count` values of kind `kind` (callers take the last one as the init of
/// an exclusive scan).
template <class F>
std::vector<F> make_exact_data(exact_data kind, std::size_t count, rng& r) {
  using fmt = ieee<F>;
  std::vector<F> v(count);
  switch (kind) {
    case exact_data::cancellation: {
      // Up to 8 nested large values open at a time; each is closed later by
      // its exact negation (once in 256 by the negation of its neighbour
      // towards zero, leaving one ulp of it behind), so the exact prefix sum
      // keeps returning from ~2^100 to the values near 1 in between.
      std::vector<F> open;
      for (auto& x : v) {
        const std::uint64_t pick = r.below(8);
        if (pick < 2 && open.size() < 8) {
          x = random_with_exponent<F>(r, fmt::bias + 90, fmt::bias + 110);
          open.push_back(x);
        } else if (pick < 4 && !open.empty()) {
          const F big = open.back();
          open.pop_back();
          x = r.below(256) == 0 ? -std::nextafter(big, F(0)) : -big;
        } else {
          x = near_one<F>(r);
        }
      }
      break;
    }
    case exact_data::random_bits:
      for (auto& x : v) x = random_with_exponent<F>(r, 0, fmt::max_biased);
      break;
    case exact_data::subnormals:
      for (auto& x : v) x = make_float<F>(r.coin(), 0, r.next());
      break;
    case exact_data::subnormal_mix:
      for (auto& x : v) x = r.coin() ? make_float<F>(r.coin(), 0, r.next()) : random_with_exponent<F>(r, 1, 30);
      break;
    case exact_data::signed_zeros: {
      // A leading run of -0 (half the time): those prefixes are -0. Then ±0
      // with now and then a value near 1 that a later item cancels exactly:
      // exact zeros with summands other than -0, which must round to +0.
      const std::size_t leading = r.coin() ? std::size_t(r.below(24)) : 0;
      std::vector<F> open;
      for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t pick = r.below(16);
        if (i < leading) {
          v[i] = -F(0);
        } else if (pick == 0 && open.size() < 4) {
          v[i] = near_one<F>(r);
          open.push_back(v[i]);
        } else if (pick == 1 && !open.empty()) {
          v[i] = -open.back();
          open.pop_back();
        } else {
          v[i] = r.coin() ? -F(0) : F(0);
        }
      }
      break;
    }
    case exact_data::negative_zeros:
      for (auto& x : v) x = -F(0);
      break;
    case exact_data::overflow: {
      // Values in the top three binades with signs biased (3:1) towards the
      // exact sum's opposite: the prefix hovers around a few times the
      // largest finite value, crossing the overflow threshold both ways. A
      // quarter of the items are near 1 (lost unless the sum cancels).
      long double s = 0;  // the running sum, approximately (enough for the sign)
      for (auto& x : v) {
        if (r.below(4) == 0) {
          x = near_one<F>(r);
        } else {
          const bool towards_zero = r.below(4) != 0;
          const bool negative = s > 0 ? towards_zero : s < 0 ? !towards_zero : r.coin();
          x = make_float<F>(negative, fmt::max_biased - std::uint32_t(r.below(3)), r.next());
        }
        s += x;
      }
      break;
    }
    case exact_data::uniform:
      for (auto& x : v) x = F(double(r.next() >> 11) * 0x1p-52 - 1.0);
      break;
  }
  return v;
}

enum class placement { separate, in_place, misaligned };

const char* placement_name(placement p) {
  switch (p) {
    case placement::separate: return "separate";
    case placement::in_place: return "in_place";
    case placement::misaligned: return "misaligned";
  }
  return "?";
}

/// One exact-mode scan of fresh data of kind `kind`, compared bit for bit
/// with the oracle. misaligned: d_in and d_out one element past an aligned
/// allocation (scalar loads and stores), the element before d_out must stay
/// poisoned.
template <class F>
void check_exact_case(scankit::context& ctx, cudaStream_t stream, exact_data kind, std::size_t n, bool exclusive,
                      placement where = placement::separate) {
  const char* type = type_name<F>();
  const char* data = data_name(kind);
  const char* layout = placement_name(where);
  const std::uint64_t seed = case_seed(std::string("exact/") + type + "/" + data + (exclusive ? "/exclusive/" : "/inclusive/") +
                                       std::to_string(n) + "/" + layout);
  CAPTURE(type, data, exclusive, n, layout, seed);
  rng r(seed);
  std::vector<F> in = make_exact_data<F>(kind, n + 1, r);
  const F init = in.back();
  in.pop_back();
  INFO("init " << (exclusive ? show(init) : std::string("(none: inclusive)")));
  const std::vector<F> want = exact_prefix_sums(in, exclusive, init);

  std::vector<F> got;
  if (where == placement::in_place) {
    device_buffer<F> d(n);
    d.upload(in, stream);
    run_mode(ctx, numeric_mode::exact, exclusive, d.data(), d.data(), n, init);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    got = d.download(stream);
  } else {
    const std::size_t offset = where == placement::misaligned ? 1 : 0;
    device_buffer<F> d_in(n + offset), d_out(n + offset);
    d_in.poison(stream);
    d_in.upload(in, stream, offset);
    d_out.poison(stream);
    run_mode(ctx, numeric_mode::exact, exclusive, d_in.data() + offset, d_out.data() + offset, n, init);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    got = d_out.download(stream, offset);
    if (offset != 0) CHECK(is_poison(d_out.download(stream, 0, 1).at(0)));
    CHECK(d_in.download(stream, offset) == in);  // the input is not modified (compared as values; no NaN here)
  }
  const bit_check c = compare_bits(got, want);
  INFO("exact scan vs the oracle: " << c.report);
  CHECK(c.ok());
  if (kind == exact_data::negative_zeros) {
    // Independent of the oracle: a sum of -0 only is -0 (and so is -0 as init).
    std::size_t not_negative_zero = 0;
    for (F x : got) not_negative_zero += !(x == F(0) && std::signbit(x));
    CHECK(not_negative_zero == 0);
  }
}

/// The exact-mode test sizes around the exact tile.
template <class F>
std::vector<std::size_t> exact_sizes() {
  const std::size_t t = exact_tile<F>;
  return {1, 2, t - 1, t, t + 1, 3 * t + 7, 100003};
}

// ---- tile shapes of the exact kernel -----------------------------------------------

template <int Threads, int Items>
struct exact_shape {
  static constexpr int threads = Threads;
  static constexpr int items = Items;
};

/// Runs the exact scan with tuning `Tuning` on d_in (n items), returns the output.
template <class F, class Tuning>
std::vector<F> exact_with_tuning(scankit::context& ctx, cudaStream_t stream, const device_buffer<F>& d_in,
                                 bool exclusive, F init) {
  const std::size_t n = d_in.size();
  device_buffer<F> d_out(n);
  d_out.poison(stream);
  const scankit::detail::maybe<F> initial{init, exclusive};
  if (exclusive)
    scankit::detail::launch_exact_scan<true, F, Tuning>(ctx, d_in.data(), d_out.data(), n, initial, "exclusive_scan");
  else
    scankit::detail::launch_exact_scan<false, F, Tuning>(ctx, d_in.data(), d_out.data(), n, initial, "inclusive_scan");
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  return d_out.download(stream);
}

// ---- compensated: ill-conditioned data ------------------------------------------------

/// x with large values ±r·2^k (k in [kmin, kmax]) that are each cancelled
/// exactly a few items later, among values of magnitude <= 1. balanced[i]:
/// no large value is outstanding in x[0..i], so the exact prefix sum is a sum
/// of small values only while the partial sums a scan forms in between are
/// large: the ill-conditioned outputs.
template <class F>
struct ill_conditioned {
  std::vector<F> x;
  std::vector<std::uint8_t> balanced;
};

template <class F>
ill_conditioned<F> make_ill_conditioned(std::size_t n, rng& r) {
  const std::uint32_t bias = ieee<F>::bias;
  const std::uint32_t kmin = sizeof(F) == 4 ? 12 : 40, kmax = sizeof(F) == 4 ? 20 : 60;
  ill_conditioned<F> d;
  d.x.reserve(n + 16);
  d.balanced.reserve(n + 16);
  auto push = [&](F v, bool balanced) {
    d.x.push_back(v);
    d.balanced.push_back(balanced ? 1 : 0);
  };
  while (d.x.size() < n) {
    // Group: +B, 0..4 small, -B, 1..8 small.
    const F big = random_with_exponent<F>(r, bias + kmin, bias + kmax);
    push(big, false);
    for (std::uint64_t k = r.below(5); k > 0; --k) push(draw_grid_float<F>(r), false);
    push(-big, true);
    for (std::uint64_t k = 1 + r.below(8); k > 0; --k) push(draw_grid_float<F>(r), true);
  }
  d.x.resize(n);
  d.balanced.resize(n);
  return d;
}

/// Largest errors and bound violations of one compensated (and fast) scan.
struct compensated_report {
  std::size_t violations = 0, balanced = 0;
  long double worst_ratio = 0;  // max error / bound of compensated
  long double comp_max_balanced = 0, fast_max_balanced = 0, comp_max_all = 0, fast_max_all = 0;
  long double last_bound = 0, last_abs_sum = 0;
  std::string first_violations;
};

/// |S - y| for the exact sum S held in `acc`, rounded to double (exact up to
/// that rounding: the difference is formed in the oracle).
template <class F>
long double exact_error(const exact_sum& acc, F y) {
  exact_sum diff = acc;
  diff.add(-y);
  return std::fabs((long double)diff.rounded<double>());
}

template <class F>
compensated_report check_compensated_bound(const ill_conditioned<F>& d, const std::vector<F>& comp,
                                           const std::vector<F>& fast, bool exclusive, F init) {
  const long double u = std::ldexp(1.0L, -std::numeric_limits<F>::digits);  // 2^-24 / 2^-53
  compensated_report rep;
  std::ostringstream s;
  exact_sum acc;
  long double abs_sum = 0;
  if (exclusive) {
    acc.add(init);
    abs_sum += std::fabs((long double)init);
  }
  const std::size_t n = d.x.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (!exclusive) {
      acc.add(d.x[i]);
      abs_sum += std::fabs((long double)d.x[i]);
    }
    const long double S = std::fabs((long double)acc.rounded<double>());
    const long double depth = (long double)(i + 1);
    const long double gamma = depth * u / (1 - depth * u);
    // 1e-6: the rounding of the bound's own terms (S, abs_sum, the error) only.
    const long double bound = (u * S + gamma * gamma * abs_sum) * (1 + 1e-6L);
    const long double e_comp = exact_error(acc, comp[i]);
    const long double e_fast = exact_error(acc, fast[i]);
    if (!(e_comp <= bound)) {
      if (rep.violations < 8)
        s << "  [" << i << "] compensated " << show(comp[i]) << ": error " << double(e_comp) << " > bound "
          << double(bound) << " (|S| " << double(S) << ", sum|x| " << double(abs_sum) << ")\n";
      ++rep.violations;
    }
    if (bound > 0) rep.worst_ratio = std::max(rep.worst_ratio, e_comp / bound);
    rep.comp_max_all = std::max(rep.comp_max_all, e_comp);
    rep.fast_max_all = std::max(rep.fast_max_all, std::isnan(double(e_fast)) ? 0.0L : e_fast);
    const bool balanced = exclusive ? (i == 0 || d.balanced[i - 1] != 0) : d.balanced[i] != 0;
    if (balanced) {
      ++rep.balanced;
      rep.comp_max_balanced = std::max(rep.comp_max_balanced, e_comp);
      rep.fast_max_balanced = std::max(rep.fast_max_balanced, e_fast);
    }
    if (exclusive) {
      acc.add(d.x[i]);
      abs_sum += std::fabs((long double)d.x[i]);
    }
    if (i + 1 == n) {
      rep.last_bound = bound;
      rep.last_abs_sum = abs_sum;
    }
  }
  rep.first_violations = s.str();
  return rep;
}

// ---- NaN and infinities -----------------------------------------------------------------

/// Small integers ±1..4 with the given specials placed, in this order, at
/// sorted random distinct positions (at_edges: the first at 0, the last at n-1).
template <class F>
std::vector<F> with_specials(std::size_t n, const std::vector<F>& specials, bool at_edges, rng& r) {
  std::vector<F> v(n);
  for (auto& x : v) x = F((r.coin() ? -1 : 1) * int(1 + r.below(4)));
  std::vector<std::size_t> positions;
  while (positions.size() < specials.size()) {
    std::size_t p = std::size_t(r.below(n));
    if (at_edges && positions.empty()) p = 0;
    if (at_edges && positions.size() + 1 == specials.size() && specials.size() > 1) p = n - 1;
    if (std::find(positions.begin(), positions.end(), p) == positions.end()) positions.push_back(p);
  }
  std::sort(positions.begin(), positions.end());
  for (std::size_t k = 0; k < specials.size(); ++k) v[positions[k]] = specials[k];
  return v;
}

// ---- [large] ---------------------------------------------------------------------------

/// d[i] = (hash(seed, i) mod 3) - 1, in {-1, 0, +1}.
__global__ void fill_ternary(float* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = float(int(hash_u32(seed, i) % 3u) - 1);
}

}  // namespace

// =============================================================================
// run_to_run
// =============================================================================

TEMPLATE_TEST_CASE("run_to_run sums give the same bits on every run while other streams work", "[gpu][numeric]", float,
                   double) {
  using F = TestType;
  const char* type = type_name<F>();
  cuda_stream stream, other_stream;
  scankit::context ctx(stream), other_ctx(other_stream);

  // Other work: fast scans of 2^26 floats and 2^24 doubles on a second
  // context and stream, enqueued between the runs, never waited for.
  const std::size_t other_f = std::size_t(1) << 26, other_d = std::size_t(1) << 24;
  device_buffer<float> d_other_f_in(other_f), d_other_f_out(other_f);
  device_buffer<double> d_other_d_in(other_d), d_other_d_out(other_d);
  fill_mixed<<<1024, 256, 0, other_stream>>>(d_other_f_in.data(), other_f, case_seed("run_to_run/load/float"));
  fill_mixed<<<1024, 256, 0, other_stream>>>(d_other_d_in.data(), other_d, case_seed("run_to_run/load/double"));
  SKTEST_CUDA(cudaGetLastError());
  auto load = [&](int r) {
    if (r % 2 == 0)
      scankit::inclusive_scan(other_ctx, d_other_f_in.data(), d_other_f_out.data(), other_f);
    else
      scankit::exclusive_scan(other_ctx, d_other_d_in.data(), d_other_d_out.data(), other_d, 0.5);
  };

  for (std::size_t n : {std::size_t(1) << 20, std::size_t(1) << 26}) {
    const std::uint64_t seed = case_seed(std::string("run_to_run/") + type + "/" + std::to_string(n));
    CAPTURE(type, n, seed);
    rng r(seed);
    const std::vector<F> in = order_sensitive_data<F>(n, r);
    const F init = order_sensitive_value<F>(r);
    device_buffer<F> d_in(n), d_first(n);
    d_in.upload(in, stream);
    const std::vector<double> ref_inclusive = reference_scan(in, scankit::op::plus, scan_mode::inclusive, init);

    for (bool exclusive : {false, true}) {
      const int runs = exclusive ? 10 : 50;
      CAPTURE(exclusive, runs);
      const auto counts = repeat_runs(
          stream, n, runs, d_first,
          [&](F* d_out) { run_mode(ctx, numeric_mode::run_to_run, exclusive, d_in.data(), d_out, n, init); }, load);
      const repeat_summary s = summarize(counts);
      INFO("run_to_run: " << s.report);
      CHECK(s.differing_runs == 0);
      if (exclusive)
        expect_sum_close(in, d_first.download(stream), true, init, "run_to_run, first run");
      else
        expect_sum_close(in, ref_inclusive, d_first.download(stream), false, init, "run_to_run, first run");
    }

    // compensated is documented run to run reproducible too (fixed-order look-back).
    {
      const auto counts = repeat_runs(
          stream, n, 20, d_first,
          [&](F* d_out) { run_mode(ctx, numeric_mode::compensated, false, d_in.data(), d_out, n, F(0)); }, load);
      const repeat_summary s = summarize(counts);
      INFO("compensated: " << s.report);
      CHECK(s.differing_runs == 0);
      expect_sum_close(in, ref_inclusive, d_first.download(stream), false, init, "compensated, first run");
    }

    // fast: informational only — the look-back's combine order depends on scheduling.
    {
      const auto counts = repeat_runs(
          stream, n, 50, d_first,
          [&](F* d_out) { run_mode(ctx, numeric_mode::fast, false, d_in.data(), d_out, n, F(0)); }, load);
      const repeat_summary s = summarize(counts);
      WARN("fast mode, " << type << " n = " << n << " (informational, not a failure): " << s.report);
      expect_sum_close(in, ref_inclusive, d_first.download(stream), false, init, "fast, first run");
    }
  }

  // min and max: run_to_run accepts every operator (exact anyway, checked exactly).
  {
    const std::size_t n = (std::size_t(1) << 20) + 11;
    for (scankit::op o : {scankit::op::min, scankit::op::max})
      for (bool exclusive : {false, true}) {
        const char* op_name = scankit::to_string(o);
        const std::uint64_t seed = case_seed(std::string("run_to_run/minmax/") + type + "/" + op_name + "/" +
                                             (exclusive ? "exclusive" : "inclusive"));
        CAPTURE(type, op_name, exclusive, n, seed);
        rng r(seed);
        const std::vector<F> in = make_input<F>(n, value_kind::full_range, r);
        const F init = make_init<F>(o, value_kind::full_range, r);
        device_buffer<F> d_in(n), d_first(n);
        d_in.upload(in, stream);
        const auto counts = repeat_runs(
            stream, n, 5, d_first,
            [&](F* d_out) { run_mode(ctx, numeric_mode::run_to_run, exclusive, d_in.data(), d_out, n, init, o); },
            load);
        const repeat_summary s = summarize(counts);
        INFO(s.report);
        CHECK(s.differing_runs == 0);
        const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
        const scan_check c = compare_scan(d_first.download(stream), reference_scan(in, o, mode, init), in, mode, init, 0.0);
        INFO(c.report);
        CHECK(c.ok());
      }
  }
  other_stream.synchronize();
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("run_to_run gives the same bits with every scan policy", "[gpu][numeric][policy]", float, double) {
  using F = TestType;
  const char* type = type_name<F>();
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = (std::size_t(1) << 20) + 7;
  const std::uint64_t seed = case_seed(std::string("run_to_run/policies/") + type);
  CAPTURE(type, n, seed);
  rng r(seed);
  const std::vector<F> in = order_sensitive_data<F>(n, r);
  const F init = order_sensitive_value<F>(r);
  device_buffer<F> d_in(n), d_first(n);
  d_in.upload(in, stream);
  for (bool exclusive : {false, true}) {
    const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
    const auto ref = reference_scan(in, scankit::op::plus, mode, init);
    for (scan_policy p : scankit::all_scan_policies()) {
      p.numeric = numeric_mode::run_to_run;
      const std::string policy = describe(p);
      CAPTURE(policy, exclusive);
      const auto counts = repeat_runs(
          stream, n, 3, d_first,
          [&](F* d_out) {
            if (exclusive)
              scankit::exclusive_scan(ctx, d_in.data(), d_out, n, init, p);
            else
              scankit::inclusive_scan(ctx, d_in.data(), d_out, n, p);
          },
          [](int) {});
      const repeat_summary s = summarize(counts);
      INFO(s.report);
      CHECK(s.differing_runs == 0);
      const scan_check c = compare_scan(d_first.download(stream), ref, in, mode, init, policy_depth_bound<F>(p, n));
      INFO("first run vs host reference: " << c.report);
      CHECK(c.ok());
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("run_to_run composes float affine maps with the same bits on every run (template API, every policy)",
          "[gpu][numeric][template]") {
  // Float affine maps x -> a·x + b with a = 2^e, e in {-1, 0, +1} (a walk of
  // the running exponent kept within ±16, so every product of consecutive a's
  // is an exact power of two within range) and b uniform in [-1, 1]:
  // composition then rounds only in the additions of b, which depend on the
  // combine order. Reference: a sequential fold in double (a exact, b within
  // 2^-53 relative of each term). a must match exactly; b within
  // γ(h + 2)·Σ_k |b_k|·Π_{j>k} |a_j| (each term meets at most one rounded
  // addition per level of the combining tree, h = the policy's depth bound).
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = (std::size_t(1) << 20) + 3;
  const std::uint64_t seed = case_seed("run_to_run/affine");
  CAPTURE(n, seed);
  rng r(seed);
  std::vector<affine_f> in(n);
  int exponent = 0;  // sum of the e's so far
  for (auto& f : in) {
    int e = int(r.below(3)) - 1;
    if (exponent >= 16) e = -int(r.below(2));
    if (exponent <= -16) e = int(r.below(2));
    exponent += e;
    f.a = std::ldexp(1.0f, e);
    f.b = float(double(r.next() >> 11) * 0x1p-52 - 1.0);
  }
  const affine_f init{2.0f, float(double(r.next() >> 11) * 0x1p-52 - 1.0)};
  device_buffer<affine_f> d_in(n), d_first(n);
  d_in.upload(in, stream);

  for (bool exclusive : {false, true}) {
    // Double reference and the scale of each output's b.
    std::vector<double> ref_a(n), ref_b(n), scale_b(n);
    {
      double a = exclusive ? init.a : 1.0, b = exclusive ? init.b : 0.0, s = exclusive ? std::fabs(init.b) : 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        if (exclusive) ref_a[i] = a, ref_b[i] = b, scale_b[i] = s;
        a = double(in[i].a) * a;
        b = double(in[i].a) * b + double(in[i].b);
        s = double(in[i].a) * s + std::fabs(double(in[i].b));
        if (!exclusive) ref_a[i] = a, ref_b[i] = b, scale_b[i] = s;
      }
    }
    for (scan_policy p : scankit::all_scan_policies()) {
      p.numeric = numeric_mode::run_to_run;
      const std::string policy = describe(p);
      CAPTURE(policy, exclusive);
      const auto counts = repeat_runs(
          stream, n, 10, d_first,
          [&](affine_f* d_out) {
            if (exclusive)
              scankit::device::exclusive_scan(ctx, d_in.data(), d_out, n, init, compose_affine_f{}, p);
            else
              scankit::device::inclusive_scan(ctx, d_in.data(), d_out, n, compose_affine_f{}, p);
          },
          [](int) {});
      const repeat_summary s = summarize(counts);
      INFO(s.report);
      CHECK(s.differing_runs == 0);

      const std::vector<affine_f> got = d_first.download(stream);
      const double h = policy_depth_bound<affine_f>(p, n) + 2;
      const double u = std::ldexp(1.0, -24);
      const double gamma = h * u / (1 - h * u);
      std::size_t bad = 0;
      std::ostringstream report;
      for (std::size_t i = 0; i < n; ++i) {
        const double tol_b = (gamma + 4 * std::numeric_limits<double>::epsilon()) * scale_b[i] * (1 + 1e-6);
        const bool ok = double(got[i].a) == ref_a[i] && std::fabs(double(got[i].b) - ref_b[i]) <= tol_b;
        if (ok) continue;
        if (bad < 8)
          report << "  [" << i << "] got {" << got[i].a << ", " << got[i].b << "}, expected {" << ref_a[i] << ", "
                 << ref_b[i] << "} (b tolerance " << tol_b << ")" << (is_poison(got[i]) ? " [POISON]" : "") << "\n";
        ++bad;
      }
      INFO("first run vs double fold: " << bad << " of " << n << " wrong\n" << report.str());
      CHECK(bad == 0);
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// =============================================================================
// exact
// =============================================================================

TEMPLATE_TEST_CASE("exact scans equal the correctly rounded exact prefix sums bit for bit", "[gpu][numeric]", float,
                   double) {
  using F = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (exact_data kind : all_exact_data) {
    std::vector<std::size_t> sizes = exact_sizes<F>();
    if (kind == exact_data::random_bits || kind == exact_data::uniform) sizes.push_back(std::size_t(1) << 20);
    for (std::size_t n : sizes)
      for (bool exclusive : {false, true}) check_exact_case<F>(ctx, stream, kind, n, exclusive);
  }
  // In place and misaligned (scalar loads and stores), several tiles.
  const std::size_t n = 3 * exact_tile<F> + 7;
  for (bool exclusive : {false, true}) {
    check_exact_case<F>(ctx, stream, exact_data::cancellation, n, exclusive, placement::in_place);
    check_exact_case<F>(ctx, stream, exact_data::random_bits, n, exclusive, placement::misaligned);
    check_exact_case<F>(ctx, stream, exact_data::overflow, 100003, exclusive, placement::in_place);
    check_exact_case<F>(ctx, stream, exact_data::signed_zeros, 100003, exclusive, placement::misaligned);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("exact scans give the same bits for every tile shape", "[gpu][numeric]", float, double) {
  using F = TestType;
  const char* type = type_name<F>();
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = sizeof(F) == 4 ? 200003 : 100003;
  for (exact_data kind : {exact_data::cancellation, exact_data::random_bits, exact_data::overflow})
    for (bool exclusive : {false, true}) {
      const char* data = data_name(kind);
      const std::uint64_t seed =
          case_seed(std::string("exact/shapes/") + type + "/" + data + (exclusive ? "/exclusive" : "/inclusive"));
      CAPTURE(type, data, exclusive, n, seed);
      rng r(seed);
      std::vector<F> in = make_exact_data<F>(kind, n + 1, r);
      const F init = in.back();
      in.pop_back();
      const std::vector<F> want = exact_prefix_sums(in, exclusive, init);
      device_buffer<F> d_in(n), d_default(n);
      d_in.upload(in, stream);
      d_default.poison(stream);
      run_mode(ctx, numeric_mode::exact, exclusive, d_in.data(), d_default.data(), n, init);
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      const std::vector<F> by_default = d_default.download(stream);
      {
        const bit_check c = compare_bits(by_default, want);
        INFO("default shape vs the oracle: " << c.report);
        CHECK(c.ok());
      }
      auto check_shape = [&](auto shape) {
        using tuning = decltype(shape);
        const int threads = tuning::threads, items = tuning::items;
        CAPTURE(threads, items);
        const std::vector<F> got = exact_with_tuning<F, tuning>(ctx, stream, d_in, exclusive, init);
        const bit_check vs_default = compare_bits(got, by_default);
        INFO("vs the default shape: " << vs_default.report);
        CHECK(vs_default.ok());
        const bit_check vs_oracle = compare_bits(got, want);
        INFO("vs the oracle: " << vs_oracle.report);
        CHECK(vs_oracle.ok());
      };
      check_shape(exact_shape<32, 1>{});
      check_shape(exact_shape<64, 3>{});
      check_shape(exact_shape<128, 5>{});
      check_shape(exact_shape<128, 7>{});
      check_shape(exact_shape<256, 15>{});
      check_shape(exact_shape<512, 9>{});
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// =============================================================================
// NaN and infinities
// =============================================================================

TEMPLATE_TEST_CASE("NaN and infinities propagate in every numeric mode", "[gpu][numeric]", float, double) {
  // IEEE addition: any NaN, or +inf and -inf together, give NaN; otherwise an
  // infinity wins. The finite values are small integers (every partial sum is
  // an integer below 2^24 in magnitude), so every mode's finite outputs are
  // exact and compared bit for bit with the oracle too.
  using F = TestType;
  using lim = std::numeric_limits<F>;
  const char* type = type_name<F>();
  const F nan = lim::quiet_NaN(), inf = lim::infinity();
  cuda_stream stream;
  scankit::context ctx(stream);
  struct scenario {
    const char* name;
    std::vector<F> specials;  // in order of position
    bool at_edges;
    bool init_inf;            // exclusive: init = +inf
  };
  const std::vector<scenario> scenarios{
      {"NaN, +inf, -inf", {nan, inf, -inf}, false, false},
      {"+inf, -inf, NaN", {inf, -inf, nan}, false, false},
      {"-inf, +inf", {-inf, inf}, false, false},
      {"+inf only", {inf}, false, false},
      {"-inf, NaN at the ends", {-inf, nan}, true, false},
      {"-inf, +inf with init +inf", {-inf, inf}, false, true},
      {"-inf only with init +inf", {-inf}, false, true},
  };
  for (std::size_t n : {default_tile<F> + 1, std::size_t(100003)})
    for (const scenario& sc : scenarios)
      for (bool exclusive : {false, true}) {
        if (sc.init_inf && !exclusive) continue;
        const std::uint64_t seed = case_seed(std::string("specials/") + type + "/" + sc.name + "/" + std::to_string(n) +
                                             (exclusive ? "/exclusive" : "/inclusive"));
        const char* specials = sc.name;
        CAPTURE(type, specials, exclusive, n, seed);
        rng r(seed);
        const std::vector<F> in = with_specials<F>(n, sc.specials, sc.at_edges, r);
        const F init = sc.init_inf ? inf : F((r.coin() ? -1 : 1) * int(1 + r.below(4)));
        double abs_sum = std::isfinite(init) ? std::fabs(double(init)) : 0;
        for (F x : in)
          if (std::isfinite(x)) abs_sum += std::fabs(double(x));
        REQUIRE(abs_sum < 0x1p24);  // every partial sum of the finite values is exact in float
        const std::vector<F> want = exact_prefix_sums(in, exclusive, init);
        std::size_t specials_out = 0;
        for (F w : want) specials_out += classify(w) != fp_class::finite;
        REQUIRE(specials_out > 0);

        for (numeric_mode mode : all_numeric_modes) {
          const char* mode_name = scankit::to_string(mode);
          CAPTURE(mode_name);
          const std::vector<F> got = scan_once(ctx, stream, mode, exclusive, in, init);
          std::size_t wrong_class = 0, wrong_value = 0;
          std::ostringstream report;
          for (std::size_t i = 0; i < n; ++i) {
            const fp_class g = classify(got[i]), w = classify(want[i]);
            const bool class_ok = g == w, value_ok = same_bits(got[i], want[i]);
            if (class_ok && value_ok) continue;
            if (wrong_class + wrong_value < 8)
              report << "  [" << i << "] got " << class_name(g) << " " << show(got[i]) << ", expected "
                     << class_name(w) << " " << show(want[i]) << "\n";
            wrong_class += !class_ok;
            wrong_value += class_ok && !value_ok;
          }
          INFO(report.str());
          CHECK(wrong_class == 0);
          CHECK(wrong_value == 0);
        }
      }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// =============================================================================
// compensated
// =============================================================================

TEMPLATE_TEST_CASE("compensated scans stay within their error bound on ill-conditioned sums", "[gpu][numeric]", float,
                   double) {
  // |out_i − S_i| <= u|S_i| + γ(i+1)²·Σ_{j<=i}|x_j| (compensated.cuh; the
  // tree depth is at most i + 1), errors measured exactly with the oracle. On
  // the cancelled prefixes (exact sum of small values, partial sums of 2^k)
  // fast mode loses the small values that meet an uncancelled large one;
  // compensated keeps them.
  using F = TestType;
  const char* type = type_name<F>();
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(1) << 16, std::size_t(1) << 20})
    for (bool exclusive : {false, true}) {
      if (exclusive && n > (std::size_t(1) << 16)) continue;  // the oracle's error checks dominate the run time
      const std::uint64_t seed = case_seed(std::string("compensated/") + type + "/" + std::to_string(n) +
                                           (exclusive ? "/exclusive" : "/inclusive"));
      CAPTURE(type, n, exclusive, seed);
      rng r(seed);
      const ill_conditioned<F> d = make_ill_conditioned<F>(n, r);
      const F init = draw_grid_float<F>(r);
      device_buffer<F> d_in(n), d_comp(n), d_fast(n);
      d_in.upload(d.x, stream);
      d_comp.poison(stream);
      d_fast.poison(stream);
      run_mode(ctx, numeric_mode::compensated, exclusive, d_in.data(), d_comp.data(), n, init);
      run_mode(ctx, numeric_mode::fast, exclusive, d_in.data(), d_fast.data(), n, init);
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      SKTEST_CUDA(cudaGetLastError());
      const compensated_report rep =
          check_compensated_bound(d, d_comp.download(stream), d_fast.download(stream), exclusive, init);
      INFO("cancelled outputs: " << rep.balanced << "; largest errors there: compensated "
                                 << double(rep.comp_max_balanced) << ", fast " << double(rep.fast_max_balanced)
                                 << "; over all outputs: compensated " << double(rep.comp_max_all) << ", fast "
                                 << double(rep.fast_max_all) << "; compensated's largest error/bound "
                                 << double(rep.worst_ratio));
      // The bound says something: at the last output it is far below Σ|x|.
      REQUIRE(rep.last_bound < 0.01L * rep.last_abs_sum);
      {
        INFO(rep.violations << " outputs outside the bound:\n" << rep.first_violations);
        CHECK(rep.violations == 0);
      }
      REQUIRE(rep.balanced >= n / 4);
      CHECK(rep.fast_max_balanced > 0);  // the data really is ill-conditioned for a plain sum
      CHECK(rep.fast_max_balanced >= 100 * rep.comp_max_balanced);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// =============================================================================
// bad arguments, integers, workspaces
// =============================================================================

TEMPLATE_TEST_CASE("exact and compensated take only plus and the default policy", "[numeric]", float, double) {
  // Host only: the mode checks come before any device access (fake pointers
  // are never dereferenced), also for n == 0 with null pointers.
  using T = TestType;
  scankit::context ctx;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  T* a = fake<T>(0x10000000);
  T* b = fake<T>(0x40000000);
  const char* type = type_name<T>();
  for (numeric_mode mode : {numeric_mode::exact, numeric_mode::compensated}) {
    const char* mode_name = scankit::to_string(mode);
    const scan_policy tuned = scankit::with_numeric(mode);
    for (scankit::op o : {scankit::op::min, scankit::op::max}) {
      const char* op_name = scankit::to_string(o);
      CAPTURE(type, mode_name, op_name);
      expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, b, 1000, tuned, o); }, "inclusive_scan");
      expect_invalid_argument([&] { scankit::exclusive_scan(ctx, a, b, 1000, T(1), tuned, o); }, "exclusive_scan");
      expect_invalid_argument([&] { scankit::inclusive_scan(ctx, null_in, null_out, 0, tuned, o); }, "inclusive_scan");
      expect_invalid_argument([&] { scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), tuned, o); },
                              "exclusive_scan");
    }
    for (scan_policy p : textbook_policies()) {
      p.numeric = mode;
      const std::string policy = describe(p);
      CAPTURE(type, mode_name, policy);
      expect_invalid_argument([&] { scankit::inclusive_scan(ctx, a, b, 1000, p); }, "inclusive_scan");
      expect_invalid_argument([&] { scankit::exclusive_scan(ctx, a, b, 1000, T(1), p); }, "exclusive_scan");
      expect_invalid_argument([&] { scankit::inclusive_scan(ctx, null_in, null_out, 0, p); }, "inclusive_scan");
      expect_invalid_argument([&] { scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p); }, "exclusive_scan");
    }
    // Plus on the default policy, n == 0: valid, does nothing.
    CAPTURE(type, mode_name);
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, tuned));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), tuned));
    // ... but the usual pointer checks still apply.
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, null_in, b, 1000, tuned), std::invalid_argument);
    CHECK_THROWS_AS(scankit::exclusive_scan(ctx, a, a + 1, 1000, T(1), tuned), std::invalid_argument);
  }
  // run_to_run takes every policy and min/max (n == 0: nothing to do), but not bitwise operators on floats.
  for (scan_policy p : scankit::all_scan_policies()) {
    p.numeric = numeric_mode::run_to_run;
    const std::string policy = describe(p);
    CAPTURE(type, policy);
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, p));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p));
  }
  for (scankit::op o : {scankit::op::min, scankit::op::max})
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, scankit::with_numeric(numeric_mode::run_to_run), o));
  for (numeric_mode mode : all_numeric_modes)
    expect_invalid_argument(
        [&] { scankit::inclusive_scan(ctx, a, b, 1000, scankit::with_numeric(mode), scankit::op::bit_xor); },
        "inclusive_scan");
}

TEST_CASE("the template API takes exact and compensated for float sums only", "[numeric][template]") {
  // Host only. A custom type and operator: run_to_run yes, exact/compensated no,
  // with the default policy and with every textbook one.
  scankit::context ctx;
  const affine_f* null_in = nullptr;
  affine_f* null_out = nullptr;
  affine_f* a = fake<affine_f>(0x10000000);
  affine_f* b = fake<affine_f>(0x40000000);
  const affine_f init{1.0f, 0.0f};
  for (scan_policy p : scankit::all_scan_policies()) {
    for (numeric_mode mode : {numeric_mode::exact, numeric_mode::compensated}) {
      p.numeric = mode;
      const std::string policy = describe(p);
      CAPTURE(policy);
      expect_invalid_argument([&] { scankit::device::inclusive_scan(ctx, a, b, 1000, compose_affine_f{}, p); },
                              "inclusive_scan");
      expect_invalid_argument(
          [&] { scankit::device::exclusive_scan(ctx, a, b, 1000, init, compose_affine_f{}, p); }, "exclusive_scan");
      expect_invalid_argument([&] { scankit::device::inclusive_scan(ctx, null_in, null_out, 0, compose_affine_f{}, p); },
                              "inclusive_scan");
    }
    p.numeric = numeric_mode::run_to_run;
    const std::string policy = describe(p);
    CAPTURE(policy);
    CHECK_NOTHROW(scankit::device::inclusive_scan(ctx, null_in, null_out, 0, compose_affine_f{}, p));
    CHECK_NOTHROW(scankit::device::exclusive_scan(ctx, null_in, null_out, 0, init, compose_affine_f{}, p));
  }
}

TEMPLATE_TEST_CASE("integer scans accept every numeric mode", "[numeric]", std::int32_t, std::uint32_t, std::int64_t,
                   std::uint64_t) {
  // Host only (n == 0): every mode, every host API operator on the default
  // policy, plus on every textbook policy.
  using T = TestType;
  scankit::context ctx;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  const char* type = type_name<T>();
  for (numeric_mode mode : all_numeric_modes) {
    const char* mode_name = scankit::to_string(mode);
    for (scankit::op o : {scankit::op::plus, scankit::op::min, scankit::op::max, scankit::op::bit_and,
                          scankit::op::bit_or, scankit::op::bit_xor}) {
      const char* op_name = scankit::to_string(o);
      CAPTURE(type, mode_name, op_name);
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, scankit::with_numeric(mode), o));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), scankit::with_numeric(mode), o));
    }
    for (scan_policy p : textbook_policies()) {
      p.numeric = mode;
      const std::string policy = describe(p);
      CAPTURE(type, policy);
      CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, p));
      CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p));
    }
  }
}

TEST_CASE("scan_workspace_bytes knows the numeric modes", "[numeric]") {
  for (std::size_t n : {std::size_t(0), std::size_t(1), exact_tile<float>, default_tile<float> + 1,
                        std::size_t(1000003), std::size_t(1) << 26}) {
    CAPTURE(n);
    for (std::size_t size : {std::size_t(4), std::size_t(8)}) {
      CAPTURE(size);
      // fast and run_to_run run the tuned kernel on F itself (run_to_run: on
      // larger 8-byte tiles, so fewer of them).
      CHECK(scankit::scan_workspace_bytes(n, size, numeric_mode::fast) == scankit::scan_workspace_bytes(n, size));
      CHECK(scankit::scan_workspace_bytes(n, size, numeric_mode::run_to_run) <= scankit::scan_workspace_bytes(n, size));
      if (n > 2 * default_tile<double>)
        CHECK(scankit::scan_workspace_bytes(n, size, numeric_mode::run_to_run) > 0);
    }
  }
  // One tile needs no workspace; more than one needs at least the status
  // words and values of its tiles' carries (exact: accumulators; compensated:
  // {sum, error} pairs).
  for (numeric_mode mode : {numeric_mode::exact, numeric_mode::compensated}) {
    const char* mode_name = scankit::to_string(mode);
    CAPTURE(mode_name);
    CHECK(scankit::scan_workspace_bytes(1, 4, mode) == 0);
    CHECK(scankit::scan_workspace_bytes(1, 8, mode) == 0);
  }
  auto carry_bytes = [](auto carry_tag, std::size_t tile, std::size_t n) {
    using status_t = scankit::detail::tile_status<decltype(carry_tag)>;
    const std::size_t tiles = (n + tile - 1) / tile;
    return (1 + status_t::words(tiles)) * sizeof(std::uint64_t) + status_t::scratch_bytes(tiles);
  };
  for (std::size_t n : {compensated_tile<float> + 1, std::size_t(1) << 20, std::size_t(1000003)}) {
    CAPTURE(n);
    CHECK(scankit::scan_workspace_bytes(n, 4, numeric_mode::compensated) >=
          carry_bytes(scankit::detail::compensated<float>{}, compensated_tile<float>, n));
    CHECK(scankit::scan_workspace_bytes(n, 8, numeric_mode::compensated) >=
          carry_bytes(scankit::detail::compensated<double>{}, compensated_tile<double>, n));
    CHECK(scankit::scan_workspace_bytes(n, 4, numeric_mode::exact) >=
          carry_bytes(scankit::detail::exact_accumulator<float>{}, exact_tile<float>, n));
    CHECK(scankit::scan_workspace_bytes(n, 8, numeric_mode::exact) >=
          carry_bytes(scankit::detail::exact_accumulator<double>{}, exact_tile<double>, n));
  }
  CHECK(scankit::scan_workspace_bytes(exact_tile<float> + 1, 4, numeric_mode::exact) > 0);
  CHECK(scankit::scan_workspace_bytes(exact_tile<double> + 1, 8, numeric_mode::exact) > 0);
  CHECK_THROWS_AS(scankit::scan_workspace_bytes(100, 2, numeric_mode::exact), std::invalid_argument);
}

TEST_CASE("rejected numeric modes leave the output untouched; integers take every mode", "[gpu][numeric]") {
  cuda_stream stream;
  scankit::context ctx(stream);

  // Float and double: exact / compensated with min or max, or with a textbook policy.
  auto rejected = [&](auto type_tag) {
    using F = decltype(type_tag);
    const char* type = type_name<F>();
    const std::size_t n = 3 * default_tile<F> + 5;
    const std::uint64_t seed = case_seed(std::string("rejected/") + type);
    CAPTURE(type, n, seed);
    rng r(seed);
    const std::vector<F> in = make_input<F>(n, value_kind::sum_safe, r);
    device_buffer<F> d_in(n), d_out(n);
    d_in.upload(in, stream);
    d_out.poison(stream);
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    for (numeric_mode mode : {numeric_mode::exact, numeric_mode::compensated}) {
      const char* mode_name = scankit::to_string(mode);
      CAPTURE(mode_name);
      for (scankit::op o : {scankit::op::min, scankit::op::max}) {
        expect_invalid_argument([&] { run_mode(ctx, mode, false, d_in.data(), d_out.data(), n, F(0), o); },
                                "inclusive_scan");
        expect_invalid_argument([&] { run_mode(ctx, mode, true, d_in.data(), d_out.data(), n, F(1), o); },
                                "exclusive_scan");
      }
      scan_policy p{grid_strategy::reduce_then_scan, block_algorithm::brent_kung, 0, 0, mode};
      expect_invalid_argument([&] { scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n, p); }, "inclusive_scan");
      p = scan_policy{grid_strategy::decoupled_lookback, block_algorithm::kogge_stone, 0, 0, mode};
      expect_invalid_argument([&] { scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, F(1), p); },
                              "exclusive_scan");
    }
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    CHECK(count_unpoisoned(download_bytes(d_out.data(), d_out.bytes(), stream)) == 0);
    CHECK(d_in.download(stream) == in);
  };
  rejected(float{});
  rejected(double{});

  // Integers: every mode gives the fast result (which matches the reference).
  auto integers = [&](auto type_tag, scankit::op o, std::size_t n) {
    using T = decltype(type_tag);
    const char* type = type_name<T>();
    const char* op_name = scankit::to_string(o);
    for (bool exclusive : {false, true}) {
      const std::uint64_t seed = case_seed(std::string("integers/") + type + "/" + op_name + "/" + std::to_string(n) +
                                           (exclusive ? "/exclusive" : "/inclusive"));
      CAPTURE(type, op_name, exclusive, n, seed);
      rng r(seed);
      const std::vector<T> in = make_input<T>(n, kind_for(o), r);
      const T init = make_init<T>(o, kind_for(o), r);
      const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
      const std::vector<T> fast = scan_once(ctx, stream, numeric_mode::fast, exclusive, in, init, o);
      const scan_check c = compare_scan(fast, reference_scan(in, o, mode, init), in, mode, init, 0.0);
      INFO("fast vs reference: " << c.report);
      CHECK(c.ok());
      for (numeric_mode m : all_numeric_modes) {
        const char* mode_name = scankit::to_string(m);
        CAPTURE(mode_name);
        CHECK(scan_once(ctx, stream, m, exclusive, in, init, o) == fast);
        if (o == scankit::op::plus) {
          // ... also with a textbook policy (host API textbook policies: plus only).
          const scan_policy p{grid_strategy::scan_then_propagate, block_algorithm::three_phase, 0, 0, m};
          device_buffer<T> d_in(n), d_out(n);
          d_in.upload(in, stream);
          d_out.poison(stream);
          if (exclusive)
            scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, p);
          else
            scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n, p);
          SKTEST_CUDA(cudaStreamSynchronize(stream));
          CHECK(d_out.download(stream) == fast);
        }
      }
    }
  };
  integers(std::int32_t{}, scankit::op::plus, 3 * default_tile<std::int32_t> + 17);
  integers(std::int32_t{}, scankit::op::plus, 33);
  integers(std::uint64_t{}, scankit::op::bit_xor, 2 * default_tile<std::uint64_t> + 1);
  integers(std::int64_t{}, scankit::op::max, 5 * default_tile<std::int64_t> - 1);
  integers(std::uint32_t{}, scankit::op::plus, 100003);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("a caller workspace sized for the numeric mode suffices", "[gpu][numeric]") {
  cuda_stream stream;
  scankit::context owned(stream);
  auto sized = [&](auto type_tag) {
    using F = decltype(type_tag);
    const char* type = type_name<F>();
    const std::size_t n = 40 * default_tile<F> + 3;  // many tiles of every kernel
    const std::uint64_t seed = case_seed(std::string("workspace/") + type);
    CAPTURE(type, n, seed);
    rng r(seed);
    const std::vector<F> in = order_sensitive_data<F>(n, r);
    const F init = order_sensitive_value<F>(r);
    for (numeric_mode mode : all_numeric_modes)
      for (bool exclusive : {false, true}) {
        const char* mode_name = scankit::to_string(mode);
        const std::size_t bytes = scankit::scan_workspace_bytes(n, sizeof(F), mode);
        CAPTURE(mode_name, exclusive, bytes);
        REQUIRE(bytes > 0);
        device_buffer<unsigned char> d_ws(bytes);
        d_ws.poison(stream);  // stale contents must not matter
        scankit::context ctx(stream, d_ws.data(), bytes);
        device_buffer<F> d_in(n), d_out(n);
        d_in.upload(in, stream);
        d_out.poison(stream);
        REQUIRE_NOTHROW(run_mode(ctx, mode, exclusive, d_in.data(), d_out.data(), n, init));
        SKTEST_CUDA(cudaStreamSynchronize(stream));
        const std::vector<F> got = d_out.download(stream);
        if (mode == numeric_mode::exact) {
          const bit_check c = compare_bits(got, exact_prefix_sums(in, exclusive, init));
          INFO(c.report);
          CHECK(c.ok());
        } else if (mode == numeric_mode::fast) {
          expect_sum_close(in, got, exclusive, init, "fast, caller workspace");
        } else {
          // Reproducible modes: the same bits as with the context's own storage.
          const bit_check c = compare_bits(got, scan_once(owned, stream, mode, exclusive, in, init));
          INFO("vs the owned-storage context: " << c.report);
          CHECK(c.ok());
        }
      }
  };
  sized(float{});
  sized(double{});
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// =============================================================================
// [sanitize], [large]
// =============================================================================

TEST_CASE("small numeric-mode scans for the sanitizers", "[gpu][numeric][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  auto small = [&](auto type_tag) {
    using F = decltype(type_tag);
    for (bool exclusive : {false, true}) {
      check_exact_case<F>(ctx, stream, exact_data::cancellation, exact_tile<F> + 1, exclusive);
      check_exact_case<F>(ctx, stream, exact_data::random_bits, 3 * exact_tile<F> + 7, exclusive, placement::misaligned);
      for (std::size_t n : {std::size_t(1000), compensated_tile<F> + 1}) {
        const std::uint64_t seed = case_seed(std::string("sanitize/compensated/") + type_name<F>() + "/" +
                                             std::to_string(n) + (exclusive ? "/exclusive" : "/inclusive"));
        CAPTURE(n, exclusive, seed);
        rng r(seed);
        const ill_conditioned<F> d = make_ill_conditioned<F>(n, r);
        const F init = draw_grid_float<F>(r);
        const std::vector<F> comp = scan_once(ctx, stream, numeric_mode::compensated, exclusive, d.x, init);
        const std::vector<F> fast = scan_once(ctx, stream, numeric_mode::fast, exclusive, d.x, init);
        const compensated_report rep = check_compensated_bound(d, comp, fast, exclusive, init);
        INFO(rep.violations << " outputs outside the bound:\n" << rep.first_violations);
        CHECK(rep.violations == 0);
      }
      {
        const std::size_t n = 3 * default_tile<F> + 5;
        const std::uint64_t seed = case_seed(std::string("sanitize/run_to_run/") + type_name<F>() +
                                             (exclusive ? "/exclusive" : "/inclusive"));
        CAPTURE(n, exclusive, seed);
        rng r(seed);
        const std::vector<F> in = order_sensitive_data<F>(n, r);
        const F init = order_sensitive_value<F>(r);
        const std::vector<F> first = scan_once(ctx, stream, numeric_mode::run_to_run, exclusive, in, init);
        const std::vector<F> second = scan_once(ctx, stream, numeric_mode::run_to_run, exclusive, in, init);
        const bit_check c = compare_bits(second, first);
        INFO(c.report);
        CHECK(c.ok());
        expect_sum_close(in, first, exclusive, init, "run_to_run");
      }
    }
  };
  small(float{});
  small(double{});
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("exact and run_to_run float sums past 2^31 items", "[gpu][numeric][large]") {
  // Values in {-1, 0, +1} from a counter hash (generated on the device and
  // recomputed on the host). The exact scan must equal the int64 running sum
  // rounded to float (C++'s int64 -> float conversion rounds to nearest even,
  // as the exact mode does) at every one of the n outputs. The random walk
  // stays far below 2^23 in magnitude (checked), so every partial sum any
  // scan forms is an exactly representable integer and run_to_run must match
  // too.
  const std::size_t n = (std::size_t(1) << 31) + 4099;
  constexpr std::size_t guard = 64;
  const std::uint64_t seed = case_seed("large/exact/float");
  CAPTURE(n, seed);
  REQUIRE(n > std::size_t(std::numeric_limits<std::int32_t>::max()));
  std::size_t free_bytes = 0, total_bytes = 0;
  SKTEST_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  INFO("device memory: " << free_bytes << " bytes free, need about " << 3 * n * sizeof(float));
  REQUIRE(free_bytes > 3 * (n + guard) * sizeof(float) + (std::size_t(512) << 20));

  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<float> d_in(n), d_exact(n + guard), d_r2r(n + guard);
  fill_ternary<<<4096, 256, 0, stream>>>(d_in.data(), n, seed);
  SKTEST_CUDA(cudaGetLastError());
  d_exact.poison(stream);
  d_r2r.poison(stream);
  scankit::inclusive_scan(ctx, d_in.data(), d_exact.data(), n, scankit::with_numeric(numeric_mode::exact));
  scankit::inclusive_scan(ctx, d_in.data(), d_r2r.data(), n, scankit::with_numeric(numeric_mode::run_to_run));
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  constexpr std::size_t chunk = std::size_t(1) << 26;
  float* h_exact = nullptr;
  float* h_r2r = nullptr;
  SKTEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&h_exact), chunk * sizeof(float)));
  const std::unique_ptr<float, cudaError_t (*)(void*)> exact_owner(h_exact, cudaFreeHost);
  SKTEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&h_r2r), chunk * sizeof(float)));
  const std::unique_ptr<float, cudaError_t (*)(void*)> r2r_owner(h_r2r, cudaFreeHost);

  std::int64_t acc = 0, max_abs = 0;
  std::size_t checked = 0, bad_exact = 0, bad_r2r = 0, first_bad_exact = n, first_bad_r2r = n;
  float got_exact = 0, got_r2r = 0, want_exact = 0, want_r2r = 0;
  for (std::size_t offset = 0; offset < n; offset += chunk) {
    const std::size_t count = std::min(chunk, n - offset);
    SKTEST_CUDA(cudaMemcpyAsync(h_exact, d_exact.data() + offset, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
    SKTEST_CUDA(cudaMemcpyAsync(h_r2r, d_r2r.data() + offset, count * sizeof(float), cudaMemcpyDeviceToHost, stream));
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t j = 0; j < count; ++j) {
      acc += std::int64_t(hash_u32(seed, offset + j) % 3u) - 1;
      max_abs = std::max(max_abs, acc < 0 ? -acc : acc);
      const float want = float(acc);
      if (to_bits(h_exact[j]) != to_bits(want) && bad_exact++ == 0)
        first_bad_exact = offset + j, got_exact = h_exact[j], want_exact = want;
      if (to_bits(h_r2r[j]) != to_bits(want) && bad_r2r++ == 0)
        first_bad_r2r = offset + j, got_r2r = h_r2r[j], want_r2r = want;
    }
    checked += count;
  }
  REQUIRE(checked == n);  // the whole output of the size actually run
  {
    INFO("exact: first mismatch at " << first_bad_exact << ": got " << show(got_exact) << ", expected "
                                     << show(want_exact));
    CHECK(bad_exact == 0);
  }
  CAPTURE(max_abs);
  REQUIRE(max_abs < (std::int64_t(1) << 23));  // premise of run_to_run's exactness
  {
    INFO("run_to_run: first mismatch at " << first_bad_r2r << ": got " << show(got_r2r) << ", expected "
                                          << show(want_r2r));
    CHECK(bad_r2r == 0);
  }
  CHECK(count_unpoisoned(download_bytes(d_exact.data() + n, guard * sizeof(float), stream)) == 0);
  CHECK(count_unpoisoned(download_bytes(d_r2r.data() + n, guard * sizeof(float), stream)) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}
