// tests/test_scan_policies.cu — the scan policies (scankit/policy.hpp): every
// grid strategy × block algorithm, through the host API and the template API.
//
// GPU tests:
//   * all 20 policies (default sizes) × int32, uint32, int64, uint64, float,
//     double, plus, inclusive and exclusive (random non-trivial init), at
//     sizes around each policy's own tile (1, 31, 32, 33, tile−1, tile,
//     tile+1, 3·tile+1, 40·tile−1: more than 32 tiles, so the look-back window
//     moves), the prime 100003 and 2^20; host reference for every result and
//     Thrust on the same data for n >= 100000. Floats within a Σ|x| tolerance
//     (bound derived below), and exactly on small-integer data;
//   * a non-commutative operator (affine maps over uint32) through the
//     template API with every policy, at sizes spanning several tiles and up
//     to three recursion levels of the multi-pass strategies (64 threads);
//   * block sizes that are not a multiple of 32 (96, 100, 33, 1 threads) for
//     every textbook block algorithm and grid strategy, uint32 plus (less the
//     combinations that are rejected: < 32 threads with decoupled look-back,
//     1-item tiles with the multi-pass strategies);
//   * the number of operator applications of each block algorithm on one
//     tile, against the textbook work formulas;
//   * textbook policies whose shared memory is exactly the 48 KB validation
//     limit.
// Host tests: invalid policies are rejected (std::invalid_argument) before
// any device access, also with n == 0 and null pointers; textbook policies
// take only op::plus in the host API; the documented default shapes; names
// and the list of all policies.
#include "support/cuda_check.hpp"
#include "support/noncommutative.cuh"
#include "support/policies.hpp"
#include "support/random.hpp"
#include "support/reference.hpp"
#include "support/thrust_oracle.cuh"

#include <scankit/detail/textbook_dispatch.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/device/operators.cuh>
#include <scankit/device/scan.cuh>
#include <scankit/policy.hpp>
#include <scankit/scankit.hpp>

#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using namespace sktest;
using scankit::block_algorithm;
using scankit::grid_strategy;
using scankit::scan_policy;

constexpr grid_strategy all_grids[] = {grid_strategy::decoupled_lookback, grid_strategy::reduce_then_scan,
                                       grid_strategy::scan_then_propagate, grid_strategy::chained};
constexpr block_algorithm all_blocks[] = {block_algorithm::warp_shuffle, block_algorithm::kogge_stone,
                                          block_algorithm::kogge_stone_double_buffer, block_algorithm::brent_kung,
                                          block_algorithm::three_phase};

/// Runs f(); an exception fails the check (and the case is skipped) instead of
/// ending the whole test case, so the remaining policies still run.
template <class F>
bool launched(F&& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    FAIL_CHECK("the scan threw: " << e.what());
    return false;
  }
}

// ---- floating-point tolerance of the textbook policies --------------------
//
// reference.hpp's bound: |got − exact| <= γ_h·Σ|x| when no term passes
// through more than h roundings. For a textbook policy with tiles of `tile`
// items and `tiles` tiles at the top level (plus that file's accounting):
//
//  * inside a tile, each result is a binary tree over at most `tile` terms, so
//    a term meets at most tile − 1 additions, whatever the block algorithm
//    (the real depths are far smaller: log2 for Kogge-Stone, 2·log2 for
//    Brent-Kung, items − 1 + log2(threads) + 1 for three-phase);
//  * chained: inclusive(t) = inclusive(t−1) + total(t), one level per tile,
//    then one add for the stored result: <= tile + tiles + 1;
//  * decoupled look-back: a look-back from tile t that ends at tile j's
//    inclusive prefix adds ceil(log2 count) (warp_reverse_reduce over count
//    lanes) + 1 (previous windows) + 1 (publishing) <= t − j levels, and the
//    aggregates it passed sit at most 5 + windows + 2 levels deep, so
//    inclusive(t) <= tile + t + 8 and a result <= tile + tiles + 9;
//  * reduce-then-scan / scan-then-propagate: a term goes through its tile's
//    total (<= tile − 1), the scan of the totals (recursively, depth h(tiles)),
//    the prefix combine with init (+1) and the carry (+1):
//    h(n) <= tile + 1 + h(tiles); with h(m) <= m − 1 for m <= tile this is
//    <= tile + tiles for two levels, and for L levels (L−1)(tile + 1) +
//    tiles_(L−1), still below tile + tiles + 64 since tiles >= tile^(L−2).
// So h = tiles + tile + 64 is safe for every textbook policy. (It is loose:
// the exact small-integer sweep below is the sharp float check.) The tuned
// policy uses reference.hpp's own bound (both: policy_depth_bound, support/policies.hpp).

// ---- 1. every policy × the host API types, plus ---------------------------

/// The sizes each policy is tested at, around its own tile.
std::vector<std::size_t> policy_sizes(std::size_t tile) {
  return {1, 31, 32, 33, tile - 1, tile, tile + 1, 3 * tile + 1, 40 * tile - 1, 100003, std::size_t(1) << 20};
}

/// All policies through the host API with op::plus on data of `kind`. The
/// data of one (size, mode) is drawn once and scanned by every policy that
/// tests that size; the host reference (and, for n >= 100000, Thrust) is
/// computed once per data set.
template <class T>
void check_all_policies_host_api(value_kind kind) {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<scan_policy> policies = scankit::all_scan_policies();
  REQUIRE(policies.size() == 20);

  std::map<std::size_t, std::set<std::size_t>> policies_at;  // n -> indices into `policies`
  for (std::size_t p = 0; p < policies.size(); ++p)
    for (std::size_t n : policy_sizes(tile_of<T>(policies[p]))) policies_at[n].insert(p);

  const char* type = type_name<T>();
  const char* data = to_string(kind);
  const bool tolerant = std::is_floating_point_v<T> && kind != value_kind::small_integers;
  for (const auto& entry : policies_at) {
    const std::size_t n = entry.first;  // (a structured binding could not be captured in C++17)
    const std::set<std::size_t>& users = entry.second;
    for (bool exclusive : {false, true}) {
      const std::uint64_t seed = case_seed(std::string("policies/host/") + type + "/" + data +
                                           (exclusive ? "/exclusive/" : "/inclusive/") + std::to_string(n));
      CAPTURE(type, data, exclusive, n, seed);
      rng r(seed);
      const std::vector<T> in = make_input<T>(n, kind, r);
      const T init = make_init<T>(scankit::op::plus, kind, r);
      const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
      INFO("init " << (exclusive ? format_value(init) : std::string("(none: inclusive)")));
      if constexpr (std::is_floating_point_v<T>) {
        if (kind == value_kind::small_integers) {
          // Every partial sum is an integer of magnitude <= Σ|x| + |init|:
          // exact in T, in any association order, while that is < 2^digits.
          double abs_sum = std::fabs(double(init));
          for (T x : in) abs_sum += std::fabs(double(x));
          REQUIRE(abs_sum < std::ldexp(1.0, std::numeric_limits<T>::digits));
        }
      }
      const std::vector<ref_t<T>> ref = reference_scan(in, scankit::op::plus, mode, init);

      device_buffer<T> d_in(n), d_out(n);
      d_in.upload(in, stream);

      // Thrust on the same device data: checked against the reference (the
      // oracle itself), then every policy is compared with it too.
      const bool with_thrust = n >= 100000;
      std::vector<ref_t<T>> thrust_result;
      if (with_thrust) {
        device_buffer<T> d_thrust(n);
        d_thrust.poison(stream);
        thrust_scan(stream, d_in.data(), d_thrust.data(), n, scankit::op::plus, exclusive, init);
        SKTEST_CUDA(cudaStreamSynchronize(stream));
        SKTEST_CUDA(cudaGetLastError());
        const std::vector<T> t = d_thrust.download(stream);
        const scan_check c = compare_scan(t, ref, in, mode, init, tolerant ? thrust_depth_bound(n) : 0.0);
        INFO("Thrust vs host reference (checks the oracle itself): " << c.report);
        CHECK(c.ok());
        thrust_result.assign(t.begin(), t.end());
      }

      for (std::size_t p : users) {
        const scan_policy& policy = policies[p];
        const std::string policy_name = describe(policy);
        const std::size_t tile = tile_of<T>(policy);
        CAPTURE(policy_name, tile);
        d_out.poison(stream);
        const bool ok = launched([&] {
          if (exclusive)
            scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, policy);
          else
            scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n, policy);
        });
        if (!ok) continue;
        SKTEST_CUDA(cudaStreamSynchronize(stream));
        SKTEST_CUDA(cudaGetLastError());
        const std::vector<T> got = d_out.download(stream);
        const double depth = tolerant ? policy_depth_bound<T>(policy, n) : 0.0;
        {
          const scan_check c = compare_scan(got, ref, in, mode, init, depth);
          INFO("policy vs host reference: " << c.report);
          CHECK(c.ok());
        }
        if (with_thrust) {
          // Both sides are within their own bound of the exact sums.
          const scan_check c =
              compare_scan(got, thrust_result, in, mode, init, tolerant ? depth + thrust_depth_bound(n) : 0.0);
          INFO("policy vs Thrust: " << c.report);
          CHECK(c.ok());
        }
      }
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- template API helpers --------------------------------------------------

/// CHECKs got == ref element by element (exact), listing the first mismatches.
template <class T>
void expect_equal_scan(const std::vector<T>& got, const std::vector<T>& ref, const std::string& what) {
  std::size_t mismatches = 0;
  std::ostringstream report;
  if (got.size() != ref.size()) {
    mismatches = 1;
    report << "size " << got.size() << " vs " << ref.size();
  } else {
    for (std::size_t i = 0; i < ref.size(); ++i) {
      if (got[i] == ref[i]) continue;
      if (mismatches < 8)
        report << "  [" << i << "] got " << got[i] << (is_poison(got[i]) ? " [POISON: never written]" : "")
               << ", expected " << ref[i] << "\n";
      ++mismatches;
    }
  }
  INFO(what << ": " << mismatches << " of " << ref.size() << " elements wrong\n" << report.str());
  CHECK(mismatches == 0);
}

/// One template API scan with `policy` of fresh random data (gen(rng&)),
/// against the sequential host fold.
template <class T, class Op, class HostOp, class Gen>
void check_policy_template_scan(scankit::context& ctx, cudaStream_t stream, const scan_policy& policy,
                                const std::string& what, std::size_t n, scan_mode mode, Op op, HostOp host_op,
                                Gen gen) {
  const std::string policy_name = describe(policy);
  const char* mode_name = to_string(mode);
  const std::uint64_t seed =
      case_seed("policies/template/" + what + "/" + policy_name + "/" + mode_name + "/" + std::to_string(n));
  CAPTURE(what, policy_name, mode_name, n, seed);
  rng r(seed);
  std::vector<T> in(n);
  for (auto& x : in) x = gen(r);
  const T init = gen(r);
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  const bool ok = launched([&] {
    if (mode == scan_mode::exclusive)
      scankit::device::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, op, policy);
    else
      scankit::device::inclusive_scan(ctx, d_in.data(), d_out.data(), n, op, policy);
  });
  if (!ok) return;
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  expect_equal_scan(d_out.download(stream), sequential_fold(in, host_op, mode, init), what);
}

/// all_scan_policies() with `threads` threads per block for the textbook ones
/// (the tuned policy ignores threads and keeps its compile-time tuning).
std::vector<scan_policy> policies_with_threads(unsigned threads) {
  std::vector<scan_policy> policies = scankit::all_scan_policies();
  for (scan_policy& p : policies)
    if (!is_tuned(p)) p.threads = threads;
  return policies;
}

/// Number of levels of tile totals the multi-pass strategies scan for n items
/// (1: the items fit one tile).
std::size_t recursion_levels(std::size_t n, std::size_t tile) {
  std::size_t levels = 1;
  for (std::size_t m = n; m > tile; m = (m + tile - 1) / tile) ++levels;
  return levels;
}

// ---- 3. uint32 plus through the host API with an explicit shape -----------

/// Host API uint32 plus scan (wrapping, exact) with `policy`, inclusive or
/// exclusive, against the host reference.
void check_uint32_policy_scan(scankit::context& ctx, cudaStream_t stream, const scan_policy& policy, std::size_t n,
                              bool exclusive, const std::string& key) {
  using T = std::uint32_t;
  const std::string policy_name = describe(policy);
  const std::uint64_t seed =
      case_seed("policies/" + key + "/" + policy_name + (exclusive ? "/exclusive/" : "/inclusive/") + std::to_string(n));
  CAPTURE(policy_name, exclusive, n, seed);
  rng r(seed);
  const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
  const T init = make_init<T>(scankit::op::plus, value_kind::full_range, r);
  const scan_mode mode = exclusive ? scan_mode::exclusive : scan_mode::inclusive;
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  const bool ok = launched([&] {
    if (exclusive)
      scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, policy);
    else
      scankit::inclusive_scan(ctx, d_in.data(), d_out.data(), n, policy);
  });
  if (!ok) return;
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  SKTEST_CUDA(cudaGetLastError());
  const scan_check c = compare_scan(d_out.download(stream), reference_scan(in, scankit::op::plus, mode, init), in,
                                    mode, init, 0.0);
  INFO("policy vs host reference: " << c.report);
  CHECK(c.ok());
}

// ---- 4. operator-application counts ----------------------------------------

/// uint32 wrapping sum that counts its applications in device memory.
struct counting_plus {
  unsigned long long* d_count;
  __device__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const {
    atomicAdd(d_count, 1ull);
    return a + b;
  }
};

constexpr unsigned long long log2_exact(unsigned long long x) {
  unsigned long long k = 0;
  while ((1ull << k) < x) ++k;
  return k;
}

/// Kogge-Stone on N = 2^k items: the step with stride s (s = 1, 2, ..., N/2;
/// the loop runs while s < N) combines the N − s items i >= s:
/// Σ (N − s) = N·log2(N) − (N − 1).
constexpr unsigned long long kogge_stone_work(unsigned long long n) { return n * log2_exact(n) - (n - 1); }
/// Brent-Kung on N = 2^k items: up-sweep with stride s combines N/(2s) items
/// (s = 1 .. N/2: N − 1 in all); down-sweep with stride s = N/4 .. 1 combines
/// the N/(2s) − 1 items i + s < N (N − 1 − log2 N in all): 2N − 2 − log2(N).
constexpr unsigned long long brent_kung_work(unsigned long long n) { return 2 * n - 2 - log2_exact(n); }
/// Three-phase, T threads × I items, T a power of two: T runs of I − 1
/// sequential adds, Kogge-Stone over the T run totals, then every run but the
/// first adds its predecessor total to its I items.
constexpr unsigned long long three_phase_work(unsigned long long t, unsigned long long i) {
  return t * (i - 1) + (t == 1 ? 0 : kogge_stone_work(t)) + (t - 1) * i;
}
static_assert(kogge_stone_work(256) == 1793 && kogge_stone_work(512) == 4097 && kogge_stone_work(1024) == 9217);
static_assert(brent_kung_work(256) == 502 && brent_kung_work(512) == 1013 && brent_kung_work(1024) == 2036);
static_assert(three_phase_work(1, 8) == 7 && three_phase_work(1, 64) == 63);
static_assert(three_phase_work(256, 8) == 1792 + 1793 + 2040);

}  // namespace

// ============================================================================
// GPU tests
// ============================================================================

TEMPLATE_TEST_CASE("every scan policy matches the host reference and Thrust through the host API",
                   "[gpu][policy]", std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  check_all_policies_host_api<TestType>(kind_for(scankit::op::plus));
}

TEMPLATE_TEST_CASE("every scan policy is exact on small-integer floating-point data", "[gpu][policy]", float,
                   double) {
  // Integers in ±[1, 4]: every partial sum is exact in T whatever the
  // association, so each policy must match the reference exactly — the sharp
  // float check the Σ|x| tolerance cannot give at large n.
  check_all_policies_host_api<TestType>(value_kind::small_integers);
}

TEST_CASE("every scan policy composes affine maps in order through the template API", "[gpu][policy][template]") {
  // Textbook policies with 64 threads: tiles of 64 (Kogge-Stone), 128
  // (Brent-Kung) and 512 items (three-phase, warp-shuffle), so tile·tile + 5
  // takes three levels of the multi-pass strategies (n → tile + 1 totals → 2
  // totals → 1 tile) and tile·tile − 1 two, the totals exactly filling a tile.
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const scan_policy& policy : policies_with_threads(64)) {
    const std::size_t tile = tile_of<affine32>(policy);
    std::vector<std::size_t> sizes{1, 2, tile - 1, tile, tile + 1, 3 * tile + 1, 33 * tile + 7};
    if (!is_tuned(policy)) {
      REQUIRE(recursion_levels(tile * tile - 1, tile) == 2);
      REQUIRE(recursion_levels(tile * tile + 5, tile) == 3);
      sizes.push_back(tile * tile - 1);
      sizes.push_back(tile * tile + 5);
    }
    for (std::size_t n : sizes)
      for (scan_mode mode : {scan_mode::inclusive, scan_mode::exclusive})
        check_policy_template_scan<affine32>(ctx, stream, policy, "affine32", n, mode, compose_affine32{},
                                             compose_affine32{}, random_affine32);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("textbook policies with block sizes that are not a multiple of 32", "[gpu][policy]") {
  struct block_case {
    block_algorithm block;
    unsigned items;
  };
  const block_case blocks[] = {{block_algorithm::kogge_stone, 0}, {block_algorithm::kogge_stone_double_buffer, 0},
                               {block_algorithm::brent_kung, 0},  {block_algorithm::three_phase, 3},
                               {block_algorithm::three_phase, 8}, {block_algorithm::warp_shuffle, 3},
                               {block_algorithm::warp_shuffle, 8}};
  cuda_stream stream;
  scankit::context ctx(stream);
  for (unsigned threads : {96u, 100u, 33u, 1u}) {
    for (const block_case& b : blocks) {
      for (grid_strategy grid : all_grids) {
        const scan_policy policy{grid, b.block, threads, b.items};
        // warp_shuffle with look-back is the tuned kernel: threads are ignored.
        if (is_tuned(policy)) continue;
        // Not allowed, and rejected with std::invalid_argument (host test
        // "invalid policies ..."): decoupled look-back with fewer than 32
        // threads (a whole warp looks back), and 1-item tiles with the
        // multi-pass strategies (the tile totals would never shrink).
        if (threads < 32 && grid == grid_strategy::decoupled_lookback) continue;
        const bool multi_pass = grid == grid_strategy::reduce_then_scan || grid == grid_strategy::scan_then_propagate;
        const unsigned items = b.block == block_algorithm::brent_kung ? 2u : b.items == 0 ? 1u : b.items;
        if (multi_pass && threads * items < 2) continue;
        const std::size_t tile = tile_of<std::uint32_t>(policy);
        std::set<std::size_t> sizes{1, 2, tile - 1, tile, tile + 1, 5 * tile + 3, 37 * tile + 1, 4099};
        if (tile * tile + 1 <= (std::size_t(1) << 20)) sizes.insert(tile * tile + 1);  // two levels of totals
        sizes.erase(0);
        for (std::size_t n : sizes)
          for (bool exclusive : {false, true})
            check_uint32_policy_scan(ctx, stream, policy, n, exclusive, "odd_threads");
      }
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("block algorithms apply the operator as often as the textbook work formulas say", "[gpu][policy]") {
  // One full tile (n == tile), inclusive, no init, single-pass grid: a single
  // tile publishes nothing and stores without a prefix, so every application
  // is the block algorithm's own. (Chained, not look-back: look-back needs 32
  // threads, and the one-thread sequential cases have one.)
  struct count_case {
    block_algorithm block;
    unsigned threads, items;
    unsigned long long expected;
  };
  const count_case cases[] = {
      {block_algorithm::kogge_stone, 256, 0, kogge_stone_work(256)},
      {block_algorithm::kogge_stone, 512, 0, kogge_stone_work(512)},
      {block_algorithm::kogge_stone, 1024, 0, kogge_stone_work(1024)},
      {block_algorithm::kogge_stone_double_buffer, 256, 0, kogge_stone_work(256)},
      {block_algorithm::kogge_stone_double_buffer, 512, 0, kogge_stone_work(512)},
      {block_algorithm::kogge_stone_double_buffer, 1024, 0, kogge_stone_work(1024)},
      {block_algorithm::brent_kung, 128, 0, brent_kung_work(256)},
      {block_algorithm::brent_kung, 256, 0, brent_kung_work(512)},
      {block_algorithm::brent_kung, 512, 0, brent_kung_work(1024)},
      {block_algorithm::three_phase, 1, 8, three_phase_work(1, 8)},
      {block_algorithm::three_phase, 1, 64, three_phase_work(1, 64)},
      {block_algorithm::three_phase, 256, 8, three_phase_work(256, 8)},
  };
  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<unsigned long long> d_count(1);
  for (const count_case& k : cases) {
    const scan_policy policy{grid_strategy::chained, k.block, k.threads, k.items};
    const std::size_t n = tile_of<std::uint32_t>(policy);
    const std::string policy_name = describe(policy);
    const unsigned long long expected = k.expected;
    const std::uint64_t seed = case_seed("policies/count/" + policy_name);
    CAPTURE(policy_name, n, expected, seed);
    const std::size_t items = k.block == block_algorithm::brent_kung ? 2 : k.block == block_algorithm::three_phase ? k.items : 1;
    REQUIRE(n == std::size_t(k.threads) * items);
    rng r(seed);
    const std::vector<std::uint32_t> in = make_input<std::uint32_t>(n, value_kind::full_range, r);
    device_buffer<std::uint32_t> d_in(n), d_out(n);
    d_in.upload(in, stream);
    d_out.poison(stream);
    SKTEST_CUDA(cudaMemsetAsync(d_count.data(), 0, sizeof(unsigned long long), stream));
    const bool ok = launched([&] {
      scankit::device::inclusive_scan(ctx, d_in.data(), d_out.data(), n, counting_plus{d_count.data()}, policy);
    });
    if (!ok) continue;
    SKTEST_CUDA(cudaStreamSynchronize(stream));
    SKTEST_CUDA(cudaGetLastError());
    CHECK(d_count.download(stream).at(0) == expected);
    const scan_check c = compare_scan(d_out.download(stream),
                                      reference_scan(in, scankit::op::plus, scan_mode::inclusive, std::uint32_t(0)),
                                      in, scan_mode::inclusive, std::uint32_t(0), 0.0);
    INFO("counted scan vs host reference: " << c.report);
    CHECK(c.ok());
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("textbook policies at the 48 KB shared memory limit run", "[gpu][policy]") {
  // resolve_textbook_shape accepts tile + scratch up to 49152 bytes: 744
  // threads × 15 items of 4 bytes ((11160 + 11160/32 + 744 + 32)·4 = 49136;
  // 745 threads would need 49204) and 128 × 44 of 8 bytes, exactly 49152
  // ((5632 + 5632/16 + 128 + 32)·8). A shape it accepts must also launch.
  // The kernels' static shared memory (launch ticket, prefix) comes on top,
  // so the dispatch raises the dynamic limit before each launch.
  cuda_stream stream;
  scankit::context ctx(stream);
  for (grid_strategy grid : all_grids) {
    const scan_policy p4{grid, block_algorithm::three_phase, 744, 15};
    const scan_policy p8{grid, block_algorithm::three_phase, 128, 44};
    REQUIRE(scankit::detail::resolve_textbook_shape(p4, 4).smem_bytes == 49136);
    REQUIRE(scankit::detail::resolve_textbook_shape(p8, 8).smem_bytes == 49152);
    for (std::size_t n : {tile_of<std::uint32_t>(p4), 3 * tile_of<std::uint32_t>(p4) + 1})
      check_uint32_policy_scan(ctx, stream, p4, n, false, "smem_limit");
    for (std::size_t n : {tile_of<std::uint64_t>(p8), 3 * tile_of<std::uint64_t>(p8) + 1}) {
      using T = std::uint64_t;
      const std::string policy_name = describe(p8);
      const std::uint64_t seed = case_seed("policies/smem_limit/" + policy_name + "/" + std::to_string(n));
      CAPTURE(policy_name, n, seed);
      rng r(seed);
      const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
      const T init = make_init<T>(scankit::op::plus, value_kind::full_range, r);
      device_buffer<T> d_in(n), d_out(n);
      d_in.upload(in, stream);
      d_out.poison(stream);
      if (!launched([&] { scankit::exclusive_scan(ctx, d_in.data(), d_out.data(), n, init, p8); })) continue;
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      SKTEST_CUDA(cudaGetLastError());
      const scan_check c = compare_scan(d_out.download(stream),
                                        reference_scan(in, scankit::op::plus, scan_mode::exclusive, init), in,
                                        scan_mode::exclusive, init, 0.0);
      INFO("policy vs host reference: " << c.report);
      CHECK(c.ok());
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small policy scans for the sanitizers", "[gpu][policy][sanitize]") {
  // Small sizes only (scripts/gpu-check runs [sanitize] under compute-sanitizer).
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const scan_policy& policy : scankit::all_scan_policies()) {
    for (std::size_t n : {std::size_t(33), 3 * tile_of<std::uint32_t>(policy) - 1})
      for (bool exclusive : {false, true}) check_uint32_policy_scan(ctx, stream, policy, n, exclusive, "sanitize");
  }
  for (const scan_policy& policy : policies_with_threads(64)) {
    const std::size_t tile = tile_of<affine32>(policy);
    for (std::size_t n : {std::size_t(2), 3 * tile + 1})
      for (scan_mode mode : {scan_mode::inclusive, scan_mode::exclusive})
        check_policy_template_scan<affine32>(ctx, stream, policy, "affine32", n, mode, compose_affine32{},
                                             compose_affine32{}, random_affine32);
  }
  const scan_policy odd{grid_strategy::reduce_then_scan, block_algorithm::three_phase, 100, 3};
  check_uint32_policy_scan(ctx, stream, odd, 3 * tile_of<std::uint32_t>(odd) + 1, true, "sanitize");
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ============================================================================
// Host tests (no device needed: everything here throws or returns before any
// device access)
// ============================================================================

namespace {

/// Policies every type must reject, whatever n.
std::vector<scan_policy> invalid_policies() {
  return {
      {grid_strategy::decoupled_lookback, block_algorithm::kogge_stone, 0, 2},
      {grid_strategy::chained, block_algorithm::kogge_stone, 256, 8},
      {grid_strategy::reduce_then_scan, block_algorithm::kogge_stone_double_buffer, 0, 2},
      {grid_strategy::scan_then_propagate, block_algorithm::brent_kung, 0, 1},
      {grid_strategy::chained, block_algorithm::brent_kung, 128, 4},
      {grid_strategy::decoupled_lookback, block_algorithm::three_phase, 0, 65},
      {grid_strategy::reduce_then_scan, block_algorithm::warp_shuffle, 32, 65},  // textbook warp-shuffle
      {grid_strategy::chained, block_algorithm::three_phase, 1025, 0},
      {grid_strategy::decoupled_lookback, block_algorithm::kogge_stone, 1025, 0},
      {grid_strategy::scan_then_propagate, block_algorithm::brent_kung, 1025, 0},
      {grid_strategy::scan_then_propagate, block_algorithm::warp_shuffle, 1025, 8},
      {grid_strategy::decoupled_lookback, block_algorithm::three_phase, 1024, 64},  // shared memory
      {grid_strategy::chained, block_algorithm::three_phase, 1024, 12},            // 4 bytes: 53376 B
      {grid_strategy::decoupled_lookback, block_algorithm::kogge_stone, 31, 0},    // look-back needs a warp
      {grid_strategy::decoupled_lookback, block_algorithm::three_phase, 1, 8},
      {grid_strategy::reduce_then_scan, block_algorithm::kogge_stone, 1, 0},       // 1-item tiles never shrink
      {grid_strategy::scan_then_propagate, block_algorithm::three_phase, 1, 1},
  };
}

}  // namespace

TEMPLATE_TEST_CASE("invalid policies are rejected before any device access", "[policy]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  scankit::context ctx;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  T* a = fake<T>(0x10000000);
  T* b = fake<T>(0x40000000);
  const char* type = type_name<T>();
  for (const scan_policy& p : invalid_policies()) {
    const std::string policy_name = describe(p);
    CAPTURE(type, policy_name);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, null_in, null_out, 0, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, a, b, 1000, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::exclusive_scan(ctx, a, b, 1000, T(1), p), std::invalid_argument);
  }
  // 512 threads × 11 items: the padded tile and the scratch are
  // (5632 + 176 + 512 + 32)·4 = 25408 bytes of 4-byte items (fine) but
  // (5632 + 352 + 512 + 32)·8 = 52224 of 8-byte ones (> 49152).
  const scan_policy p{grid_strategy::reduce_then_scan, block_algorithm::three_phase, 512, 11};
  if (sizeof(T) == 8) {
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, null_in, null_out, 0, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p), std::invalid_argument);
  } else {
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, p));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p));
  }
}

TEMPLATE_TEST_CASE("textbook policies take only op::plus in the host API", "[policy]", std::int32_t, std::uint32_t,
                   std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  scankit::context ctx;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  T* a = fake<T>(0x10000000);
  T* b = fake<T>(0x40000000);
  std::vector<scankit::op> others{scankit::op::min, scankit::op::max};
  if (std::is_integral_v<T>) others.insert(others.end(), {scankit::op::bit_and, scankit::op::bit_or, scankit::op::bit_xor});
  const char* type = type_name<T>();
  for (const scan_policy& p : textbook_policies()) {
    const std::string policy_name = describe(p);
    for (scankit::op o : others) {
      const char* op_name = scankit::to_string(o);
      CAPTURE(type, policy_name, op_name);
      CHECK_THROWS_AS(scankit::inclusive_scan(ctx, null_in, null_out, 0, p, o), std::invalid_argument);
      CHECK_THROWS_AS(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p, o), std::invalid_argument);
      CHECK_THROWS_AS(scankit::inclusive_scan(ctx, a, b, 1000, p, o), std::invalid_argument);
      CHECK_THROWS_AS(scankit::exclusive_scan(ctx, a, b, 1000, T(1), p, o), std::invalid_argument);
    }
    // op::plus (explicit or defaulted) with n == 0 does nothing.
    CAPTURE(type, policy_name);
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, p));
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, p, scankit::op::plus));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), p));
  }
  // The default (tuned) policy keeps every operator of the host API.
  const scan_policy tuned{};
  for (scankit::op o : others) {
    const char* op_name = scankit::to_string(o);
    CAPTURE(type, op_name);
    CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, tuned, o));
    CHECK_NOTHROW(scankit::exclusive_scan(ctx, null_in, null_out, 0, T(1), tuned, o));
  }
  // ... and ignores threads and items (fixed compile-time tuning).
  const scan_policy tuned_sized{grid_strategy::decoupled_lookback, block_algorithm::warp_shuffle, 5000, 1000};
  CHECK_NOTHROW(scankit::inclusive_scan(ctx, null_in, null_out, 0, tuned_sized));
}

TEST_CASE("textbook policies validate pointers before any device access", "[policy]") {
  scankit::context ctx;
  using T = std::int32_t;
  const T* null_in = nullptr;
  T* null_out = nullptr;
  T* a = fake<T>(0x10000000);
  T* b = fake<T>(0x40000000);
  const std::size_t n = std::size_t(1) << 20;
  for (const scan_policy& p : textbook_policies()) {
    const std::string policy_name = describe(p);
    CAPTURE(policy_name);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, null_in, b, n, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, a, null_out, n, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::exclusive_scan(ctx, a, a + 1, n, T(0), p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::inclusive_scan(ctx, a + n - 1, a, n, p), std::invalid_argument);
  }
}

TEST_CASE("the template API validates policies and pointers before any device access", "[policy][template]") {
  // affine32 (8 bytes) with its non-commutative operator: the template API
  // takes any operator with a textbook policy, but not a bad shape.
  scankit::context ctx;
  const affine32* null_in = nullptr;
  affine32* null_out = nullptr;
  affine32* a = fake<affine32>(0x10000000);
  affine32* b = fake<affine32>(0x40000000);
  const affine32 init{3, 5};
  const compose_affine32 op{};
  for (const scan_policy& p : invalid_policies()) {
    const std::string policy_name = describe(p);
    CAPTURE(policy_name);
    CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, null_in, null_out, 0, op, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::device::exclusive_scan(ctx, null_in, null_out, 0, init, op, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, a, b, 1000, op, p), std::invalid_argument);
  }
  const std::size_t n = std::size_t(1) << 20;
  for (const scan_policy& p : textbook_policies()) {
    const std::string policy_name = describe(p);
    CAPTURE(policy_name);
    CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, null_in, b, n, op, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::device::exclusive_scan(ctx, a, null_out, n, init, op, p), std::invalid_argument);
    CHECK_THROWS_AS(scankit::device::inclusive_scan(ctx, a, a + 3, n, op, p), std::invalid_argument);
    CHECK_NOTHROW(scankit::device::inclusive_scan(ctx, null_in, null_out, 0, op, p));
    CHECK_NOTHROW(scankit::device::exclusive_scan(ctx, null_in, null_out, 0, init, op, p));
  }
}

TEST_CASE("textbook shapes have the documented defaults and shared memory bound", "[policy]") {
  using scankit::detail::resolve_textbook_shape;
  struct expected_shape {
    block_algorithm block;
    unsigned threads, items;
  };
  // policy.hpp / textbook_dispatch.cuh: 512 threads for the one- and two-item
  // algorithms, 256 threads × 8 items for three-phase and warp-shuffle.
  const expected_shape defaults[] = {{block_algorithm::kogge_stone, 512, 1},
                                     {block_algorithm::kogge_stone_double_buffer, 512, 1},
                                     {block_algorithm::brent_kung, 512, 2},
                                     {block_algorithm::three_phase, 256, 8},
                                     {block_algorithm::warp_shuffle, 256, 8}};
  for (grid_strategy grid : all_grids) {
    for (const expected_shape& e : defaults) {
      const scan_policy p{grid, e.block, 0, 0};
      if (is_tuned(p)) continue;
      const std::string policy_name = describe(p);
      CAPTURE(policy_name);
      for (std::size_t bytes : {std::size_t(4), std::size_t(8)}) {
        const auto s = resolve_textbook_shape(p, bytes);
        CHECK(s.threads == e.threads);
        CHECK(s.items == e.items);
        CHECK(s.tile_items == e.threads * e.items);
        // Tile (one padding slot per 128 bytes where the algorithm pads) + scratch.
        const std::size_t tile_items = std::size_t(e.threads) * e.items;
        const bool padded = e.block == block_algorithm::brent_kung || e.block == block_algorithm::three_phase ||
                            e.block == block_algorithm::warp_shuffle;
        CHECK(s.smem_bytes == (tile_items + (padded ? tile_items / (128 / bytes) : 0) + e.threads + 32) * bytes);
      }
    }
  }
  // The tiles the GPU tests above assume.
  CHECK(tile_of<std::int32_t>(scan_policy{}) == 384 * 8 * 4);
  CHECK(tile_of<double>(scan_policy{}) == 256 * 12 * 2);
  CHECK(tile_of<affine32>({grid_strategy::chained, block_algorithm::kogge_stone, 64, 0}) == 64);
  CHECK(tile_of<affine32>({grid_strategy::chained, block_algorithm::brent_kung, 64, 0}) == 128);
  CHECK(tile_of<affine32>({grid_strategy::chained, block_algorithm::three_phase, 64, 0}) == 512);
  CHECK(tile_of<affine32>({grid_strategy::chained, block_algorithm::warp_shuffle, 64, 0}) == 512);

  // Explicit sizes: the fixed item counts may be given; any thread count 1..1024.
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::kogge_stone, 100, 1}, 4).tile_items == 100);
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::brent_kung, 33, 2}, 4).tile_items == 66);
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 1, 64}, 8).tile_items == 64);
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 1024, 1}, 8).tile_items == 1024);
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::kogge_stone, 1024, 0}, 8).threads == 1024);

  // The 48 KB bound is inclusive: exactly 49152 bytes pass, more do not.
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 128, 44}, 8).smem_bytes == 49152);
  CHECK_THROWS_AS(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 129, 44}, 8),
                  std::invalid_argument);
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 744, 15}, 4).smem_bytes == 49136);
  CHECK_THROWS_AS(resolve_textbook_shape({grid_strategy::chained, block_algorithm::three_phase, 745, 15}, 4),
                  std::invalid_argument);
  // Kogge-Stone keeps its tile unpadded: 1024 × (1 + 1) + 32 items.
  CHECK(resolve_textbook_shape({grid_strategy::chained, block_algorithm::kogge_stone, 1024, 0}, 8).smem_bytes ==
        (1024 + 1024 + 32) * 8);
}

TEST_CASE("policy names and the list of all policies", "[policy]") {
  using scankit::to_string;
  CHECK(std::string(to_string(grid_strategy::decoupled_lookback)) == "decoupled_lookback");
  CHECK(std::string(to_string(grid_strategy::reduce_then_scan)) == "reduce_then_scan");
  CHECK(std::string(to_string(grid_strategy::scan_then_propagate)) == "scan_then_propagate");
  CHECK(std::string(to_string(grid_strategy::chained)) == "chained");
  CHECK(std::string(to_string(block_algorithm::warp_shuffle)) == "warp_shuffle");
  CHECK(std::string(to_string(block_algorithm::kogge_stone)) == "kogge_stone");
  CHECK(std::string(to_string(block_algorithm::kogge_stone_double_buffer)) == "kogge_stone_double_buffer");
  CHECK(std::string(to_string(block_algorithm::brent_kung)) == "brent_kung");
  CHECK(std::string(to_string(block_algorithm::three_phase)) == "three_phase");

  const scan_policy d{};
  CHECK(d.grid == grid_strategy::decoupled_lookback);
  CHECK(d.block == block_algorithm::warp_shuffle);
  CHECK(d.threads == 0);
  CHECK(d.items_per_thread == 0);

  const std::vector<scan_policy> all = scankit::all_scan_policies();
  CHECK(all.size() == 20);
  std::set<std::pair<grid_strategy, block_algorithm>> seen;
  for (const scan_policy& p : all) {
    const std::string policy_name = describe(p);
    CAPTURE(policy_name);
    CHECK(p.threads == 0);  // default sizes
    CHECK(p.items_per_thread == 0);
    seen.insert({p.grid, p.block});
  }
  CHECK(seen.size() == 20);  // distinct
  for (grid_strategy g : all_grids)
    for (block_algorithm b : all_blocks) CHECK(seen.count({g, b}) == 1);
}
