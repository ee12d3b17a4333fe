// tests/test_scan.cu — the host API scans across types, operators and sizes.
//
// scankit::inclusive_scan / exclusive_scan for int32, uint32, int64, uint64,
// float and double with plus, min, max (and bit_and, bit_or, bit_xor for the
// integer types), inclusive and exclusive (random non-trivial init), at sizes
// 1, 31, 32, 33, tile−1, tile, tile+1, k·tile±1 (k = 2, 7, 33), 100·tile+1 (the
// look-back may walk more than 32 predecessors), the prime 1000003, random
// sizes, 2^20 and (plus only) 2^24. Every result has two oracles: Thrust on
// the same device data, and the independent host reference of
// support/reference.hpp. Integers and min/max are compared exactly; float
// sums within the Σ|x| tolerance, and exactly on small-integer data.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"
#include "support/thrust_oracle.cuh"

#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/scankit.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using namespace sktest;

/// Items per tile of the host API's scan of T (default tuning).
template <class T>
constexpr std::size_t default_tile = scankit::detail::tile_items<T, scankit::detail::default_scan_tuning<T>>;

/// The sizes each operator family is tested at; the three random ones come
/// from the run seed (and are CAPTUREd with every case that uses them).
template <class T>
std::vector<std::size_t> test_sizes(const std::string& family, bool with_2_24) {
  const std::size_t t = default_tile<T>;
  std::vector<std::size_t> sizes{1,         31,        32,         33,          t - 1,       t,
                                 t + 1,     2 * t - 1, 2 * t + 1,  7 * t - 1,   7 * t + 1,   33 * t - 1,
                                 33 * t + 1, 100 * t + 1, 1000003, std::size_t(1) << 20};
  rng r(case_seed(std::string("sizes/") + family + "/" + type_name<T>()));
  for (int i = 0; i < 3; ++i) sizes.push_back(1 + r.below(3'000'000));
  if (with_2_24) sizes.push_back(std::size_t(1) << 24);
  return sizes;
}

/// One host API scan of n fresh values, checked against the host reference
/// and (with_thrust) against Thrust on the same input.
template <class T>
void check_host_scan(scankit::context& ctx, cudaStream_t stream, scankit::op o, bool exclusive, std::size_t n,
                     value_kind kind, bool with_thrust = true) {
  const char* type = type_name<T>();
  const char* op_name = scankit::to_string(o);
  const char* data = to_string(kind);
  const std::uint64_t seed = case_seed(std::string(type) + "/" + op_name + (exclusive ? "/exclusive/" : "/inclusive/") +
                                       data + "/" + std::to_string(n));
  CAPTURE(type, op_name, exclusive, n, data, seed);
  rng r(seed);
  const std::vector<T> in = make_input<T>(n, kind, r);
  const T init = make_init<T>(o, kind, r);
  const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
  INFO("init " << (exclusive ? format_value(init) : std::string("(none: inclusive)")));
  if constexpr (std::is_floating_point_v<T>) {
    if (kind == value_kind::small_integers) {
      // Exactness argument: every partial sum is an integer of magnitude at
      // most Σ|x| + |init|, exact in T while that stays below 2^digits.
      double abs_sum = std::fabs(double(init));
      for (T x : in) abs_sum += std::fabs(double(x));
      REQUIRE(abs_sum < std::ldexp(1.0, std::numeric_limits<T>::digits));
    }
  }

  device_buffer<T> d_in(n), d_out(n), d_thrust(with_thrust ? n : 0);
  d_in.upload(in, stream);
  d_out.poison(stream);
  d_thrust.poison(stream);
  if (exclusive)
    scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, o);
  else
    scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n, o);
  SKTEST_CUDA(cudaGetLastError());
  if (with_thrust) thrust_scan(stream, d_in.data(), d_thrust.data(), n, o, exclusive, init);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());

  const std::vector<ref_t<T>> ref = reference_scan(in, o, mode, init);
  const bool tolerant = std::is_floating_point_v<T> && o == scankit::op::plus && kind != value_kind::small_integers;
  {
    const scan_check c =
        compare_scan(d_out.download(stream), ref, in, mode, init, tolerant ? scankit_depth_bound<T>(n) : 0.0);
    INFO("scankit vs host reference: " << c.report);
    CHECK(c.ok());
  }
  if (with_thrust) {
    const scan_check c = compare_scan(d_thrust.download(stream), ref, in, mode, init, tolerant ? thrust_depth_bound(n) : 0.0);
    INFO("Thrust vs host reference (checks the oracle itself): " << c.report);
    CHECK(c.ok());
  }
}

}  // namespace

TEMPLATE_TEST_CASE("host API plus scans match Thrust and the host reference", "[gpu][scan]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : test_sizes<TestType>("plus", /*with_2_24=*/true))
    for (bool exclusive : {false, true})
      check_host_scan<TestType>(ctx, stream, scankit::op::plus, exclusive, n, value_kind::sum_safe);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("host API min and max scans match Thrust and the host reference", "[gpu][scan]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : test_sizes<TestType>("minmax", false))
    for (scankit::op o : {scankit::op::min, scankit::op::max})
      for (bool exclusive : {false, true}) check_host_scan<TestType>(ctx, stream, o, exclusive, n, kind_for(o));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("host API bitwise scans match Thrust and the host reference", "[gpu][scan]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t) {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : test_sizes<TestType>("bitwise", false))
    for (scankit::op o : {scankit::op::bit_and, scankit::op::bit_or, scankit::op::bit_xor})
      for (bool exclusive : {false, true}) check_host_scan<TestType>(ctx, stream, o, exclusive, n, kind_for(o));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("floating-point plus scans of small integers are exact", "[gpu][scan]", float, double) {
  // Integers in ±[1, 4]: every partial sum of at most ~3·10^6 of them is exact
  // in float, in any association order, so scankit and Thrust must both match
  // the reference exactly — a sharper check than the Σ|x| tolerance.
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : test_sizes<TestType>("exact", false))
    for (bool exclusive : {false, true})
      check_host_scan<TestType>(ctx, stream, scankit::op::plus, exclusive, n, value_kind::small_integers);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small host API scans for the sanitizers", "[gpu][scan][sanitize]") {
  // Small sizes only (scripts/gpu-check runs [sanitize] under compute-sanitizer);
  // no Thrust, so every report would be about scankit.
  cuda_stream stream;
  scankit::context ctx(stream);
  for (bool exclusive : {false, true}) {
    for (std::size_t n : {std::size_t(1), std::size_t(33), default_tile<std::int32_t> + 1, 3 * default_tile<std::int32_t> - 1}) {
      check_host_scan<std::int32_t>(ctx, stream, scankit::op::plus, exclusive, n, value_kind::sum_safe, false);
      check_host_scan<float>(ctx, stream, scankit::op::plus, exclusive, n, value_kind::sum_safe, false);
    }
    for (std::size_t n : {std::size_t(2), std::size_t(31), default_tile<double> + 1, 3 * default_tile<double> - 1}) {
      check_host_scan<double>(ctx, stream, scankit::op::max, exclusive, n, value_kind::full_range, false);
      check_host_scan<std::uint64_t>(ctx, stream, scankit::op::bit_xor, exclusive, n, value_kind::full_range, false);
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}
