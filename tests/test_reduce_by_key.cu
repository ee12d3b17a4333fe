// tests/test_reduce_by_key.cu — reduction of runs of equal consecutive keys
// (scankit::reduce_by_key / reduce_by_key_async, and the template API):
//
//   * host API: every key type (int32, uint32, int64, uint64) × every value
//     type (int32, uint32, int64, uint64, float, double) × plus, min, max, at
//     sizes around the tiles (reduce_by_key_shape<K, V>::tile_items: 256·16
//     for pairs of up to 8 bytes, held in registers, 256·9 for pairs of 9 to
//     16 bytes, staged: 1, 31, 32, 33, tile−1, tile,
//     tile+1, 2·tile±1, 33·tile+1),
//     primes, 2^20 and (a few pairs) 2^24, with
//     runs of length 1, 2, 50, 100000, one run of everything, and random
//     lengths; keys drawn so that equal keys also come back in later,
//     non-adjacent runs (they must stay separate runs);
//   * the async twin with the count in device memory (poisoned first), also
//     under CUDA graph capture with fresh data per replay;
//   * oracles: a host reference (explicit accumulator: int64 / __int128 /
//     wrapping uint64 / compensated double) and thrust::reduce_by_key on the
//     same device data for a representative set of (key, value, operator);
//     outputs poisoned and required to stay poisoned past the run count;
//   * template API: a non-commutative operator (affine maps, 2×2 matrices)
//     and a custom key equality on a struct key (the run's FIRST key is
//     kept), with a checked operator that flags poison or T{} placeholders,
//     for both kernels (pairs of 2+4, 3+4 and 4+4 bytes in registers);
//   * keys or values misaligned for 16-byte loads, for both kernels;
//   * bad arguments (host test, no GPU): null pointers, overlaps, a null
//     d_count for the async twin, bitwise operators, n >= 2^32 (the header's
//     limit); n == 0 gives 0 runs;
//   * [large]: more than 2^31 items, runs crossing 2^31, checked in full.
#include "support/cuda_check.hpp"
#include "support/noncommutative.cuh"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include "support/reference.hpp"
#include "support/segments.hpp"

#include <scankit/detail/kernels/reduce_by_key_kernel.cuh>
#include <scankit/device/reduce_by_key.cuh>
#include <scankit/scankit.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace reduce_by_key_tests {

using namespace sktest;
using scankit::op;

// Tiles of 4-byte key/value pairs, and of wider ones.
constexpr std::size_t rbk_tile = scankit::detail::reduce_by_key_shape<std::uint32_t, std::uint32_t>::tile_items;
constexpr std::size_t rbk_tile_wide = scankit::detail::reduce_by_key_shape<std::uint64_t, double>::tile_items;

constexpr op all_ops[] = {op::plus, op::min, op::max};

// ---- inputs -----------------------------------------------------------------------------

/// Run lengths: `mean_run` 1, 2, 50, 100000 are fixed lengths; 0 means one
/// run of everything; a negative value -m means random lengths 1 .. 2m-1.
inline std::string run_name(double mean_run) {
  if (mean_run == 0) return "all";
  if (mean_run < 0) return "random" + std::to_string(int(-mean_run));
  return std::to_string(std::uint64_t(mean_run));
}

/// n keys in runs (see run_name). A new run's key differs from the previous
/// run's; half the time it is taken from a pool of three values, so equal keys
/// recur in later, non-adjacent runs.
template <class K>
std::vector<K> make_keys(std::size_t n, double mean_run, rng& r) {
  std::vector<K> keys(n);
  const K pool[3] = {K(7), K(std::numeric_limits<K>::max()), K(std::numeric_limits<K>::min())};
  K previous{};
  for (std::size_t i = 0; i < n;) {
    std::size_t len = n;
    if (mean_run > 0) len = std::size_t(mean_run);
    else if (mean_run < 0) len = 1 + std::size_t(r.below(std::uint64_t(-2 * mean_run - 1)));
    K key;
    do key = r.coin() ? pool[r.below(3)] : K(r.next());
    while (i > 0 && key == previous);
    for (std::size_t j = 0; j < len && i < n; ++j) keys[i++] = key;
    previous = key;
  }
  return keys;
}

// ---- reference ---------------------------------------------------------------------------

template <class K, class V>
struct runs_reference {
  std::vector<K> keys;
  std::vector<ref_t<V>> value;
  std::vector<double> abs_sum;
  std::vector<std::uint64_t> length;
};

/// Runs of equal consecutive keys and the fold of their values in order, with
/// an explicit accumulator (see the header comment).
template <class K, class V>
runs_reference<K, V> reference_runs(const std::vector<K>& keys, const std::vector<V>& values, op o) {
  runs_reference<K, V> ref;
  const std::size_t n = keys.size();
  std::size_t overflowing = 0;  // one assertion at the end (Catch assertions are slow)
  for (std::size_t b = 0; b < n;) {
    std::size_t e = b + 1;
    while (e < n && keys[e] == keys[b]) ++e;
    double abs_sum = 0;
    for (std::size_t i = b; i < e; ++i) abs_sum += std::fabs(double(values[i]));
    ref_t<V> value{};
    if (o == op::plus) {
      if constexpr (std::is_floating_point_v<V>) {
        compensated_sum acc;
        for (std::size_t i = b; i < e; ++i) acc.add(double(values[i]));
        value = acc.value();
      } else if constexpr (std::is_signed_v<V>) {
        using acc_t = std::conditional_t<sizeof(V) <= 4, std::int64_t, __int128>;
        acc_t acc = 0, abs = 0;
        for (std::size_t i = b; i < e; ++i) {
          acc += acc_t(values[i]);
          abs += values[i] < 0 ? -acc_t(values[i]) : acc_t(values[i]);
        }
        overflowing += !(abs <= acc_t(std::numeric_limits<V>::max()));
        value = V(acc);
      } else {
        std::uint64_t acc = 0;
        for (std::size_t i = b; i < e; ++i) acc += std::uint64_t(values[i]);
        value = V(acc);
      }
    } else {
      V acc = values[b];
      for (std::size_t i = b + 1; i < e; ++i) acc = host_combine(o, acc, values[i]);
      value = ref_t<V>(acc);
    }
    ref.keys.push_back(keys[b]);
    ref.value.push_back(value);
    ref.abs_sum.push_back(abs_sum);
    ref.length.push_back(e - b);
    b = e;
  }
  INFO("runs whose data could overflow the signed value type (the device would have UB)");
  REQUIRE(overflowing == 0);
  return ref;
}

/// Depth bound of scankit's reduction of a run of `len` items: 8 sequential
/// items per thread, ~16 block-scan levels, one add per tile crossed, a few
/// for the look-back — below len/1024 + 160.
inline double run_depth(std::uint64_t len) { return double(len) / 1024.0 + 160.0; }

/// Checks keys and values of `count` runs against the reference, and that
/// nothing was written past the count.
template <class K, class V>
void check_runs(const std::vector<K>& got_keys, const std::vector<V>& got_values, std::size_t count,
                const runs_reference<K, V>& ref, op o, bool exact_floats, double extra_depth, const char* what) {
  INFO(what);
  REQUIRE(count == ref.keys.size());
  std::vector<K> keys(got_keys.begin(), got_keys.begin() + count);
  SKTEST_CHECK_EXACT(keys, ref.keys, same_bits_fn{}, "unique keys");
  std::size_t bad = 0;
  std::ostringstream report;
  for (std::size_t i = 0; i < count; ++i) {
    bool wrong;
    double tolerance = 0;
    if constexpr (std::is_floating_point_v<V>) {
      if (o == op::plus && !exact_floats) {
        tolerance = ref.abs_sum[i] *
                    (std::numeric_limits<V>::epsilon() * (run_depth(ref.length[i]) + extra_depth) +
                     4 * std::numeric_limits<double>::epsilon()) *
                    (1 + 1e-6);
        wrong = !(std::fabs(double(got_values[i]) - ref.value[i]) <= tolerance);
      } else {
        wrong = !(double(got_values[i]) == ref.value[i]);
      }
    } else {
      wrong = got_values[i] != ref.value[i];
    }
    if (wrong && bad++ < 8)
      report << "  run " << i << " (length " << ref.length[i] << "): got " << show(got_values[i]) << ", expected "
             << show(ref.value[i]) << (tolerance > 0 ? " (tolerance " + std::to_string(tolerance) + ")" : "") << "\n";
  }
  INFO(bad << " of " << count << " reduced values wrong:\n" << report.str());
  CHECK(bad == 0);
  std::size_t written_past = 0;
  for (std::size_t i = count; i < got_keys.size(); ++i) written_past += !is_poison(got_keys[i]);
  for (std::size_t i = count; i < got_values.size(); ++i) written_past += !is_poison(got_values[i]);
  CHECK(written_past == 0);
}

// ---- the Thrust oracle ---------------------------------------------------------------------

/// thrust::reduce_by_key of the same device data with `functor`; returns the
/// number of runs.
template <class K, class V, class F>
std::size_t thrust_runs(cudaStream_t stream, const K* d_keys, const V* d_values, std::size_t n, K* d_keys_out,
                        V* d_values_out, F functor) {
  const auto ends = thrust::reduce_by_key(thrust::cuda::par.on(stream), d_keys, d_keys + n, d_values, d_keys_out,
                                          d_values_out, thrust::equal_to<K>{}, functor);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  return std::size_t(ends.first - d_keys_out);
}

/// The Thrust oracle for a representative set of (key, value, operator)
/// combinations (each one is a Thrust instantiation, so compile time limits
/// the set): int32/int32/plus, uint64/double/plus, int64/float/min,
/// uint32/uint64/max, int32/double/max, uint64/int64/plus. Other calls return
/// without checking.
template <class K, class V>
void thrust_check(cudaStream_t stream, const device_buffer<K>& d_keys, const device_buffer<V>& d_values, std::size_t n,
                  op o, const runs_reference<K, V>& ref, bool exact_floats) {
  using std::is_same_v;
  auto check_with = [&](op covered, auto functor) {
    if (o != covered || n == 0) return;
    device_buffer<K> d_k(n);
    device_buffer<V> d_v(n);
    d_k.poison(stream);
    d_v.poison(stream);
    const std::size_t runs = thrust_runs(stream, d_keys.data(), d_values.data(), n, d_k.data(), d_v.data(), functor);
    check_runs(d_k.download(stream), d_v.download(stream), runs, ref, o, exact_floats, thrust_depth_bound(n),
               "thrust::reduce_by_key vs host reference (the oracle)");
  };
  if constexpr (is_same_v<K, std::int32_t> && is_same_v<V, std::int32_t>) check_with(op::plus, thrust::plus<V>{});
  else if constexpr (is_same_v<K, std::uint64_t> && is_same_v<V, double>) check_with(op::plus, thrust::plus<V>{});
  else if constexpr (is_same_v<K, std::int64_t> && is_same_v<V, float>) check_with(op::min, thrust::minimum<V>{});
  else if constexpr (is_same_v<K, std::uint32_t> && is_same_v<V, std::uint64_t>) check_with(op::max, thrust::maximum<V>{});
  else if constexpr (is_same_v<K, std::int32_t> && is_same_v<V, double>) check_with(op::max, thrust::maximum<V>{});
  else if constexpr (is_same_v<K, std::uint64_t> && is_same_v<V, std::int64_t>) check_with(op::plus, thrust::plus<V>{});
  else (void)check_with;
}

// ---- one host API case ----------------------------------------------------------------------

template <class K, class V>
void rbk_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, double mean_run, op o, bool async,
              value_kind kind) {
  const std::uint64_t seed = case_seed(std::string("reduce_by_key/") + type_name<K>() + "/" + type_name<V>() + "/" +
                                       scankit::to_string(o) + "/" + to_string(kind) + "/" + std::to_string(n) + "/" +
                                       run_name(mean_run));
  const char* op_name = scankit::to_string(o);
  const std::string runs_desc = run_name(mean_run);
  CAPTURE(type_name<K>(), type_name<V>(), op_name, n, runs_desc, async, to_string(kind), seed);
  rng r(seed);
  const std::vector<K> keys = make_keys<K>(n, mean_run, r);
  const std::vector<V> values = make_input<V>(n, kind, r);
  const bool exact_floats = kind == value_kind::small_integers;
  const runs_reference<K, V> ref = reference_runs(keys, values, o);
  if constexpr (std::is_floating_point_v<V>) {
    if (exact_floats) {
      std::size_t inexact = 0;
      for (double a : ref.abs_sum) inexact += !(a < std::ldexp(1.0, std::numeric_limits<V>::digits));
      REQUIRE(inexact == 0);  // every partial sum exact
    }
  }

  device_buffer<K> d_keys(n), d_unique(n);
  device_buffer<V> d_values(n), d_reduced(n);
  device_buffer<std::size_t> d_count(1);
  d_keys.upload(keys, stream);
  d_values.upload(values, stream);
  d_unique.poison(stream);
  d_reduced.poison(stream);
  d_count.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  std::size_t count = 0;
  if (async) {
    scankit::reduce_by_key_async(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(),
                                 d_count.data(), o);
    count = d_count.download(stream).at(0);
  } else {
    count = scankit::reduce_by_key(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(), o);
  }
  SKTEST_CUDA(cudaGetLastError());
  check_runs(d_unique.download(stream), d_reduced.download(stream), count, ref, o, exact_floats, 0,
             "scankit::reduce_by_key vs host reference");
  thrust_check(stream, d_keys, d_values, n, o, ref, exact_floats);
}

/// Sizes around the tile (design.md), a prime and 2^20.
std::vector<std::size_t> rbk_sizes() {
  const std::size_t t = rbk_tile, w = rbk_tile_wide;
  return {1, 31, 32, 33, t - 1, t, t + 1, 2 * t - 1, 2 * t + 1, 33 * t + 1, w - 1, w, w + 1, 33 * w + 1, 100003,
          std::size_t(1) << 20};
}

/// The run patterns tried at size n (100000 and "all" only where they differ
/// from each other).
std::vector<double> run_patterns(std::size_t n) {
  std::vector<double> p{1, 2, 50, -5};
  if (n > 100000) p.push_back(100000);
  p.push_back(0);
  return p;
}

template <class K, class V>
void value_sweep(scankit::context& ctx, cuda_stream& stream) {
  int k = 0;
  for (std::size_t n : rbk_sizes())
    for (double mean_run : run_patterns(n))
      for (op o : all_ops) rbk_case<K, V>(ctx, stream, n, mean_run, o, (k++ % 2) == 1, kind_for(o));
}

TEMPLATE_TEST_CASE("reduce_by_key equals the host reference for every key, value and operator",
                   "[gpu][reduce_by_key]", std::int32_t, std::uint32_t, std::int64_t, std::uint64_t) {
  using K = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  value_sweep<K, std::int32_t>(ctx, stream);
  value_sweep<K, std::uint32_t>(ctx, stream);
  value_sweep<K, std::int64_t>(ctx, stream);
  value_sweep<K, std::uint64_t>(ctx, stream);
  value_sweep<K, float>(ctx, stream);
  value_sweep<K, double>(ctx, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("reduce_by_key at 2^24 items and exact float sums", "[gpu][reduce_by_key]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t big = std::size_t(1) << 24;
  for (double mean_run : {-5.0, 50.0, 100000.0}) {
    rbk_case<std::int32_t, std::int32_t>(ctx, stream, big, mean_run, op::plus, false, value_kind::sum_safe);
    rbk_case<std::uint64_t, double>(ctx, stream, big, mean_run, op::plus, true, value_kind::sum_safe);
    rbk_case<std::int64_t, float>(ctx, stream, big, mean_run, op::min, false, value_kind::full_range);
    rbk_case<std::uint32_t, std::uint64_t>(ctx, stream, big, mean_run, op::max, true, value_kind::full_range);
  }
  // Small integers: every float partial sum exact, so the comparison is exact.
  for (std::size_t n : {std::size_t(33), 7 * rbk_tile + 3, std::size_t(1) << 20})
    for (double mean_run : {1.0, 50.0, -5.0, 0.0}) {
      rbk_case<std::int32_t, float>(ctx, stream, n, mean_run, op::plus, false, value_kind::small_integers);
      rbk_case<std::uint64_t, double>(ctx, stream, n, mean_run, op::plus, true, value_kind::small_integers);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("small reduce_by_key calls for the sanitizers", "[gpu][reduce_by_key][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(1), std::size_t(33), rbk_tile + 1, 3 * rbk_tile - 1})
    for (double mean_run : {1.0, -5.0, 0.0}) {
      rbk_case<std::int32_t, std::int32_t>(ctx, stream, n, mean_run, op::plus, false, value_kind::sum_safe);
      rbk_case<std::uint64_t, double>(ctx, stream, n, mean_run, op::max, true, value_kind::full_range);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

/// Keys or values one element off 16-byte alignment: full tiles take the
/// item-by-item loads.
template <class K, class V>
void misaligned_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, op o) {
  CAPTURE(type_name<K>(), type_name<V>(), n);
  rng r(case_seed(std::string("reduce_by_key/misaligned/") + type_name<K>() + "/" + type_name<V>()));
  const std::vector<K> keys = make_keys<K>(n, 3, r);
  const std::vector<V> values = make_input<V>(n, value_kind::sum_safe, r);
  const runs_reference<K, V> ref = reference_runs(keys, values, o);
  device_buffer<K> d_keys(n + 1), d_unique(n);
  device_buffer<V> d_values(n + 1), d_reduced(n);
  for (std::size_t key_shift : {std::size_t(0), std::size_t(1)}) {
    CAPTURE(key_shift);
    d_keys.upload(keys, stream, key_shift);
    d_values.upload(values, stream, 1 - key_shift);  // one of the two misaligned
    d_unique.poison(stream);
    d_reduced.poison(stream);
    const std::size_t count = scankit::reduce_by_key(ctx, d_keys.data() + key_shift, d_values.data() + 1 - key_shift,
                                                     n, d_unique.data(), d_reduced.data(), o);
    check_runs(d_unique.download(stream), d_reduced.download(stream), count, ref, o, false, 0,
               "misaligned reduce_by_key vs host reference");
  }
}

TEST_CASE("reduce_by_key with misaligned keys and values (tiles loaded item by item)", "[gpu][reduce_by_key][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  misaligned_case<std::int32_t, std::int32_t>(ctx, stream, 5 * rbk_tile + 17, op::plus);    // held in registers
  misaligned_case<std::uint64_t, double>(ctx, stream, 5 * rbk_tile_wide + 17, op::max);    // staged
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 2. n == 0, graph capture -------------------------------------------------------------------

TEST_CASE("reduce_by_key of n == 0 gives 0 runs and writes nothing", "[gpu][reduce_by_key][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::size_t> d_count(1);
  d_count.poison(stream);
  CHECK(scankit::reduce_by_key(ctx, static_cast<const std::int32_t*>(nullptr), static_cast<const float*>(nullptr), 0,
                               static_cast<std::int32_t*>(nullptr), static_cast<float*>(nullptr)) == 0);
  scankit::reduce_by_key_async(ctx, static_cast<const std::uint64_t*>(nullptr), static_cast<const double*>(nullptr), 0,
                               static_cast<std::uint64_t*>(nullptr), static_cast<double*>(nullptr), d_count.data(),
                               op::max);
  CHECK(d_count.download(stream).at(0) == 0);
  device_buffer<std::uint32_t> d_keys(4), d_out_keys(4);
  device_buffer<std::int64_t> d_values(4), d_out_values(4);
  d_out_keys.poison(stream);
  d_out_values.poison(stream);
  CHECK(scankit::reduce_by_key(ctx, d_keys.data(), d_values.data(), 0, d_out_keys.data(), d_out_values.data()) == 0);
  CHECK(count_unpoisoned(download_bytes(d_out_keys.data(), 4 * sizeof(std::uint32_t), stream)) == 0);
  CHECK(count_unpoisoned(download_bytes(d_out_values.data(), 4 * sizeof(std::int64_t), stream)) == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("reduce_by_key_async under CUDA graph capture", "[gpu][reduce_by_key]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = 37 * rbk_tile + 5;
  device_buffer<std::int64_t> d_keys(n), d_unique(n);
  device_buffer<double> d_values(n), d_reduced(n);
  device_buffer<std::size_t> d_count(1);
  rng r(case_seed("reduce_by_key/graph"));
  // Warm-up outside capture: the context's storage is grown before capture.
  d_keys.upload(make_keys<std::int64_t>(n, -5, r), stream);
  d_values.upload(make_input<double>(n, value_kind::small_integers, r), stream);
  scankit::reduce_by_key_async(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(), d_count.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  SKTEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scankit::reduce_by_key_async(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(), d_count.data());
  SKTEST_CUDA(cudaStreamEndCapture(stream, &graph));
  SKTEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    CAPTURE(replay);
    const std::vector<std::int64_t> keys = make_keys<std::int64_t>(n, replay == 0 ? 1.0 : replay == 1 ? 50.0 : -3.0, r);
    const std::vector<double> values = make_input<double>(n, value_kind::small_integers, r);
    d_keys.upload(keys, stream);
    d_values.upload(values, stream);
    d_unique.poison(stream);
    d_reduced.poison(stream);
    d_count.poison(stream);
    SKTEST_CUDA(cudaGraphLaunch(exec, stream));
    const std::size_t count = d_count.download(stream).at(0);
    check_runs(d_unique.download(stream), d_reduced.download(stream), count,
               reference_runs(keys, values, op::plus), op::plus, true, 0, "graph replay");
  }
  SKTEST_CUDA(cudaGraphExecDestroy(exec));
  SKTEST_CUDA(cudaGraphDestroy(graph));
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 3. template API: non-commutative operators, custom key equality ------------------------------

/// A key whose runs are decided by `cell` alone; `id` tells which key of the
/// run was kept (the first one).
struct cell_key {
  std::uint32_t cell, id;
};
inline bool operator==(const cell_key& a, const cell_key& b) { return a.cell == b.cell && a.id == b.id; }
inline std::ostream& operator<<(std::ostream& s, const cell_key& k) { return s << "{cell=" << k.cell << " id=" << k.id << "}"; }

struct same_cell {
  __host__ __device__ bool operator()(const cell_key& a, const cell_key& b) const { return a.cell == b.cell; }
};

/// 4 bytes: cell and id of a key joined by cell only (pairs with a 4-byte
/// value are held in registers).
struct cell_key16 {
  std::uint16_t cell, id;
};
inline bool operator==(const cell_key16& a, const cell_key16& b) { return a.cell == b.cell && a.id == b.id; }
inline std::ostream& operator<<(std::ostream& s, const cell_key16& k) { return s << "{cell=" << k.cell << " id=" << k.id << "}"; }

struct same_cell16 {
  __host__ __device__ bool operator()(const cell_key16& a, const cell_key16& b) const { return a.cell == b.cell; }
};

/// 3 bytes (128 is not a multiple: shared-memory slots without padding).
struct key3 {
  std::uint8_t b[3];
};
__host__ __device__ inline bool operator==(const key3& x, const key3& y) {
  return x.b[0] == y.b[0] && x.b[1] == y.b[1] && x.b[2] == y.b[2];
}
inline std::ostream& operator<<(std::ostream& s, const key3& k) {
  return s << "{" << unsigned(k.b[0]) << "," << unsigned(k.b[1]) << "," << unsigned(k.b[2]) << "}";
}

/// Runs of `equal` and the left-to-right fold of their values (host).
template <class K, class V, class Equal, class HostOp>
void sequential_runs(const std::vector<K>& keys, const std::vector<V>& values, Equal equal, HostOp op,
                     std::vector<K>& out_keys, std::vector<V>& out_values) {
  for (std::size_t b = 0; b < keys.size();) {
    std::size_t e = b + 1;
    V acc = values[b];
    while (e < keys.size() && equal(keys[e - 1], keys[e])) acc = op(acc, values[e++]);
    out_keys.push_back(keys[b]);
    out_values.push_back(acc);
    b = e;
  }
}

/// Template API reduce_by_key of fresh data, with poison before and after the
/// inputs (a read outside [0, n) would hand the checked operator poison),
/// against the sequential host fold. The inputs start `shift` items past a
/// 16-byte boundary (shift 1: no 16-byte loads, tiles loaded item by item).
template <class K, class V, class Equal, class MakeOp, class HostOp, class KeyGen, class Gen>
void template_case(scankit::context& ctx, cuda_stream& stream, const std::string& what, std::size_t n, bool async,
                   Equal equal, MakeOp make_op, HostOp host_op, KeyGen key_gen, Gen gen, std::size_t shift = 0) {
  constexpr std::size_t slack = 512;
  const std::uint64_t seed =
      case_seed("reduce_by_key/template/" + what + "/" + std::to_string(n) + "/" + std::to_string(shift));
  CAPTURE(what, n, async, shift, seed);
  rng r(seed);
  std::vector<K> keys(n);
  std::vector<V> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    keys[i] = key_gen(r, i);
    values[i] = gen(r);
  }
  std::vector<K> expected_keys;
  std::vector<V> expected_values;
  sequential_runs(keys, values, equal, host_op, expected_keys, expected_values);

  device_buffer<K> d_keys(n + 2 * slack), d_unique(n);
  device_buffer<V> d_values(n + 2 * slack), d_reduced(n);
  device_buffer<std::size_t> d_count(1);
  device_buffer<unsigned> d_error(1);
  d_keys.poison(stream);
  d_values.poison(stream);
  d_keys.upload(keys, stream, slack + shift);
  d_values.upload(values, stream, slack + shift);
  d_unique.poison(stream);
  d_reduced.poison(stream);
  d_count.poison(stream);
  SKTEST_CUDA(cudaMemsetAsync(d_error.data(), 0, sizeof(unsigned), stream));
  const K* keys_in = d_keys.data() + slack + shift;
  const V* values_in = d_values.data() + slack + shift;
  std::size_t count = 0;
  if (async) {
    scankit::device::reduce_by_key_async(ctx, keys_in, values_in, n, d_unique.data(), d_reduced.data(), d_count.data(),
                                         make_op(d_error.data()), equal);
    count = d_count.download(stream).at(0);
  } else {
    count = scankit::device::reduce_by_key(ctx, keys_in, values_in, n, d_unique.data(), d_reduced.data(),
                                           make_op(d_error.data()), equal);
  }
  SKTEST_CUDA(cudaGetLastError());
  {
    const unsigned error = d_error.download(stream).at(0);
    INFO("the operator must only see input values and their combinations; it saw: " << describe_checked_error(error));
    CHECK(error == 0u);
  }
  REQUIRE(count == expected_keys.size());
  const std::vector<K> got_keys = d_unique.download(stream);
  const std::vector<V> got_values = d_reduced.download(stream);
  SKTEST_CHECK_EXACT(std::vector<K>(got_keys.begin(), got_keys.begin() + count), expected_keys, same_bits_fn{},
                     what + ": unique keys (the first key of each run)");
  SKTEST_CHECK_EXACT(std::vector<V>(got_values.begin(), got_values.begin() + count), expected_values, same_bits_fn{},
                     what + ": reduced values vs sequential fold");
  std::size_t written_past = 0;
  for (std::size_t i = count; i < n; ++i) written_past += !is_poison(got_keys[i]) + !is_poison(got_values[i]);
  CHECK(written_past == 0);
}


/// Keys for runs of mean length `mean` (random 1 .. 2·mean−1), or one run.
struct run_keys {
  double mean;
  std::uint32_t key = 0, left = 0;
  std::uint32_t operator()(rng& r, std::size_t) {
    if (left == 0) {
      key += 1 + std::uint32_t(r.below(3));  // a new run never repeats the previous key
      left = mean <= 0 ? ~0u : 1 + std::uint32_t(r.below(std::uint64_t(2 * mean - 1)));
    }
    --left;
    return key;
  }
};

/// cell_key in runs of equal cells; ids distinct, so only the first key of
/// each run is right in d_unique.
struct cell_keys {
  double mean;
  run_keys runs{0};
  cell_keys(double m) : mean(m), runs{m} {}
  cell_key operator()(rng& r, std::size_t i) { return {runs(r, i), std::uint32_t(i)}; }
};

/// cell_key16 the same way (cells and ids modulo 2^16: a new run's cell still
/// differs from the previous run's).
struct cell_keys16 {
  run_keys runs;
  cell_keys16(double m) : runs{m} {}
  cell_key16 operator()(rng& r, std::size_t i) { return {std::uint16_t(runs(r, i)), std::uint16_t(i)}; }
};

/// key3 from run_keys (modulo 2^24).
struct key3_keys {
  run_keys runs;
  key3_keys(double m) : runs{m} {}
  key3 operator()(rng& r, std::size_t i) {
    const std::uint32_t k = runs(r, i);
    return {{std::uint8_t(k), std::uint8_t(k >> 8), std::uint8_t(k >> 16)}};
  }
};

std::vector<std::size_t> template_sizes() {
  const std::size_t t = rbk_tile, w = rbk_tile_wide;
  return {1, 2, 31, 33, t - 1, t, t + 1, 2 * t + 1, 33 * t - 1, 70 * t + 17, w - 1, w + 1, 33 * w + 1,
          (std::size_t(1) << 20) + 3};
}

TEST_CASE("template API: non-commutative reduce_by_key and custom key equality", "[gpu][reduce_by_key][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : template_sizes())
    for (double mean : {1.0, 3.0, 700.0, 0.0}) {
      const std::string m = std::to_string(mean);
      template_case<std::uint32_t, affine32>(ctx, stream, "affine32/" + m, n, n % 2 == 0, scankit::detail::equal_to{},
                                             make_compose_affine32{}, compose_affine32{}, run_keys{mean},
                                             random_affine32);
      template_case<cell_key, tagged_affine4>(ctx, stream, "cell_key/checked4/" + m, n, n % 2 == 1, same_cell{},
                                              make_checked<tagged_affine4>{}, host_compose<tagged_affine4>{}, cell_keys(mean),
                                              random_tagged_affine4);
      // Pairs of up to 8 bytes (held in registers): 4 + 4, a custom equality
      // on a 4-byte key, 2 + 4 and 3 + 4 bytes.
      template_case<std::uint32_t, tagged_affine4>(ctx, stream, "checked4/" + m, n, n % 2 == 0,
                                                   scankit::detail::equal_to{}, make_checked<tagged_affine4>{},
                                                   host_compose<tagged_affine4>{}, run_keys{mean}, random_tagged_affine4);
      template_case<cell_key16, tagged_affine4>(ctx, stream, "cell_key16/checked4/" + m, n, n % 2 == 1, same_cell16{},
                                                make_checked<tagged_affine4>{}, host_compose<tagged_affine4>{},
                                                cell_keys16(mean), random_tagged_affine4);
      template_case<std::uint16_t, tagged_affine4>(
          ctx, stream, "key16/checked4/" + m, n, false, scankit::detail::equal_to{}, make_checked<tagged_affine4>{},
          host_compose<tagged_affine4>{}, [keys = run_keys{mean}](rng& r, std::size_t i) mutable { return std::uint16_t(keys(r, i)); },
          random_tagged_affine4);
      template_case<key3, tagged_affine4>(ctx, stream, "key3/checked4/" + m, n, true, scankit::detail::equal_to{},
                                          make_checked<tagged_affine4>{}, host_compose<tagged_affine4>{}, key3_keys(mean),
                                          random_tagged_affine4);
    }
  for (std::size_t n : {std::size_t(5), 3 * rbk_tile + 1, std::size_t(100003)})
    for (double mean : {2.0, 5000.0}) {
      const std::string m = std::to_string(mean);
      template_case<cell_key, mat2>(ctx, stream, "cell_key/mat2/" + m, n, false, same_cell{}, make_mat2_product{},
                                    mat2_product{}, cell_keys(mean), random_mat2);
      template_case<std::uint32_t, tagged_affine12>(ctx, stream, "checked12/" + m, n, true,
                                                    scankit::detail::equal_to{}, make_checked<tagged_affine12>{},
                                                    host_compose<tagged_affine12>{}, run_keys{mean},
                                                    random_tagged_affine12);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("template API: 1-byte keys and 3-byte values held in registers", "[gpu][reduce_by_key][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const auto byte_keys = [](double mean) {
    return [keys = run_keys{mean}](rng& r, std::size_t i) mutable { return std::uint8_t(keys(r, i)); };
  };
  for (std::size_t n : template_sizes())
    for (double mean : {1.0, 3.0, 700.0, 0.0}) {
      const std::string m = std::to_string(mean);
      // 4 + 3 bytes: unpadded value slots, and a 3-byte value in the carries.
      template_case<std::uint32_t, tagged_affine3>(ctx, stream, "checked3/" + m, n, n % 2 == 0,
                                                   scankit::detail::equal_to{}, make_checked<tagged_affine3>{},
                                                   host_compose<tagged_affine3>{}, run_keys{mean}, random_tagged_affine3);
      // 1 + 3 and 1 + 4 bytes: key slots of one byte.
      template_case<std::uint8_t, tagged_affine3>(ctx, stream, "key8/checked3/" + m, n, n % 2 == 1,
                                                  scankit::detail::equal_to{}, make_checked<tagged_affine3>{},
                                                  host_compose<tagged_affine3>{}, byte_keys(mean), random_tagged_affine3);
      template_case<std::uint8_t, tagged_affine4>(ctx, stream, "key8/checked4/" + m, n, false,
                                                  scankit::detail::equal_to{}, make_checked<tagged_affine4>{},
                                                  host_compose<tagged_affine4>{}, byte_keys(mean), random_tagged_affine4);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("template API on misaligned inputs: non-commutative operators, tiles loaded item by item",
          "[gpu][reduce_by_key][template]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : template_sizes())
    for (double mean : {1.0, 3.0, 700.0}) {
      const std::string m = std::to_string(mean);
      template_case<std::uint32_t, tagged_affine4>(ctx, stream, "misaligned/checked4/" + m, n, n % 2 == 0,
                                                   scankit::detail::equal_to{}, make_checked<tagged_affine4>{},
                                                   host_compose<tagged_affine4>{}, run_keys{mean}, random_tagged_affine4,
                                                   1);  // held in registers
      template_case<std::uint32_t, tagged_affine12>(ctx, stream, "misaligned/checked12/" + m, n, n % 2 == 1,
                                                    scankit::detail::equal_to{}, make_checked<tagged_affine12>{},
                                                    host_compose<tagged_affine12>{}, run_keys{mean},
                                                    random_tagged_affine12, 1);  // staged
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 4. bad arguments (host: nothing is launched) ----------------------------------------------------

template <class K, class V>
void rbk_rejections(scankit::context& ctx) {
  CAPTURE(type_name<K>(), type_name<V>());
  auto* keys = reinterpret_cast<K*>(std::uintptr_t(1) << 40);
  auto* values = reinterpret_cast<V*>(std::uintptr_t(2) << 40);
  auto* ukeys = reinterpret_cast<K*>(std::uintptr_t(3) << 40);
  auto* reduced = reinterpret_cast<V*>(std::uintptr_t(4) << 40);
  auto* count = reinterpret_cast<std::size_t*>(std::uintptr_t(5) << 40);
  const std::size_t n = 10000;
  const char* sync = "reduce_by_key";
  const char* async = "reduce_by_key_async";
  auto both = [&](const K* k, const V* v, K* uk, V* rv, std::size_t* c, op o) {
    expect_invalid_argument([&] { scankit::reduce_by_key(ctx, k, v, n, uk, rv, o); }, sync);
    expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, k, v, n, uk, rv, c, o); }, async);
  };
  for (op o : all_ops) {
    CAPTURE(scankit::to_string(o));
    both(nullptr, values, ukeys, reduced, count, o);
    both(keys, nullptr, ukeys, reduced, count, o);
    both(keys, values, nullptr, reduced, count, o);
    both(keys, values, ukeys, nullptr, count, o);
    both(keys, values, keys + 1, reduced, count, o);                             // unique keys over the keys
    both(keys, values, ukeys, values + n - 1, count, o);                         // reduced over the values
    both(keys, values, ukeys, reinterpret_cast<V*>(ukeys + 3), count, o);        // outputs over each other
    both(keys, values, ukeys, reinterpret_cast<V*>(keys), count, o);             // reduced over the keys
    both(keys, values, reinterpret_cast<K*>(values + 2), reduced, count, o);     // unique keys over the values
    // d_count over an output or an input (async only).
    expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, keys, values, n, ukeys, reduced, reinterpret_cast<std::size_t*>(ukeys), o); },
                    async);
    expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, keys, values, n, ukeys, reduced, reinterpret_cast<std::size_t*>(values + 8), o); },
                    async);
    // A null d_count, also with n == 0.
    expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, keys, values, n, ukeys, reduced, nullptr, o); }, async);
    expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, keys, values, 0, ukeys, reduced, nullptr, o); }, async);
  }
  for (op o : {op::bit_and, op::bit_or, op::bit_xor}) {
    CAPTURE(scankit::to_string(o));
    both(keys, values, ukeys, reduced, count, o);
  }
  // n < 2^32 (reduce_by_key.hpp): 2^32 items are rejected. The fake arrays
  // are 2^40 bytes apart, so nothing overlaps even at 8 bytes per item.
  const std::size_t too_many = std::size_t(1) << 32;
  expect_invalid_argument([&] { scankit::reduce_by_key(ctx, keys, values, too_many, ukeys, reduced); }, sync);
  expect_invalid_argument([&] { scankit::reduce_by_key_async(ctx, keys, values, too_many, ukeys, reduced, count); }, async);
}

TEST_CASE("reduce_by_key rejects bad arguments before touching a device", "[reduce_by_key]") {
  scankit::context ctx;
  rbk_rejections<std::int32_t, std::int32_t>(ctx);
  rbk_rejections<std::uint32_t, double>(ctx);
  rbk_rejections<std::int64_t, float>(ctx);
  rbk_rejections<std::uint64_t, std::uint64_t>(ctx);
  rbk_rejections<std::int32_t, std::int64_t>(ctx);
  rbk_rejections<std::uint64_t, std::uint32_t>(ctx);
  // The template API: a null d_count for the async twin.
  auto* k = reinterpret_cast<std::uint32_t*>(std::uintptr_t(1) << 40);
  auto* v = reinterpret_cast<affine32*>(std::uintptr_t(2) << 40);
  expect_invalid_argument([&] {
    scankit::device::reduce_by_key_async(ctx, static_cast<const std::uint32_t*>(k), static_cast<const affine32*>(v), 100,
                                         k + 1000, v + 1000, static_cast<std::size_t*>(nullptr), compose_affine32{});
  }, "reduce_by_key_async");
  expect_invalid_argument([&] {
    scankit::device::reduce_by_key(ctx, static_cast<const std::uint32_t*>(k), static_cast<const affine32*>(v), 100, k + 50,
                                   v + 1000, compose_affine32{});
  }, "reduce_by_key");
}

// ---- 5. [large]: more than 2^31 items ------------------------------------------------------------------

/// Key i: blocks of 16 items split into two runs at a hash-chosen point,
/// except a giant run of one key over [2^31 - 2^22, 2^31 + 2^22) that
/// crosses 2^31. Value i in [-3, 3]. Same on host and device.
__host__ __device__ inline std::uint32_t large_key(std::uint64_t seed, std::uint64_t i) {
  constexpr std::uint64_t mid = std::uint64_t(1) << 31, half = std::uint64_t(1) << 22;
  if (i >= mid - half && i < mid + half) return 0x5eed5eedu;
  const std::uint64_t block = i / 16;
  const bool second = hash_u32(seed ^ 1, block) % 16 <= i % 16;
  return hash_u32(seed, block * 2 + (second ? 1 : 0));
}
__host__ __device__ inline std::int32_t large_value(std::uint64_t seed, std::uint64_t i) {
  return std::int32_t(hash_u32(seed ^ 2, i) % 7u) - 3;
}

__global__ void fill_large(std::uint32_t* d_keys, std::int32_t* d_values, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    d_keys[i] = large_key(seed, i);
    d_values[i] = large_value(seed, i);
  }
}

TEST_CASE("reduce_by_key past 2^31 items, checked in full", "[gpu][large][reduce_by_key]") {
  // Keys and values (int32) and outputs with room for n runs: 4 × 8.6 GB.
  const std::uint64_t n = (std::uint64_t(1) << 31) + (std::uint64_t(1) << 20) + 7;
  const std::uint64_t seed = case_seed("reduce_by_key/large");
  CAPTURE(n, seed);
  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::uint32_t> d_keys(n), d_unique(n);
  device_buffer<std::int32_t> d_values(n), d_reduced(n);
  device_buffer<std::size_t> d_count(1);
  fill_large<<<4096, 256, 0, stream>>>(d_keys.data(), d_values.data(), n, seed);
  SKTEST_CUDA(cudaGetLastError());
  d_count.poison(stream);
  scankit::reduce_by_key_async(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(),
                               d_count.data());
  const std::size_t runs = d_count.download(stream).at(0);
  CAPTURE(runs);
  const std::vector<std::uint32_t> got_keys = d_unique.download(stream, 0, runs);
  const std::vector<std::int32_t> got_values = d_reduced.download(stream, 0, runs);
  std::size_t r = 0, bad = 0, first_bad = std::size_t(-1);
  for (std::uint64_t i = 0; i < n;) {
    const std::uint32_t key = large_key(seed, i);
    std::int64_t sum = 0;  // explicit accumulator; every run is < 2^23 items of |x| <= 3
    std::uint64_t j = i;
    for (; j < n && large_key(seed, j) == key; ++j) sum += large_value(seed, j);
    const bool ok = r < runs && got_keys[r] == key && got_values[r] == std::int32_t(sum);
    if (!ok && bad++ == 0) first_bad = r;
    ++r;
    i = j;
  }
  INFO("first wrong run: " << first_bad);
  CHECK(r == runs);
  CHECK(bad == 0);
  // The sync call agrees on the count.
  CHECK(scankit::reduce_by_key(ctx, d_keys.data(), d_values.data(), n, d_unique.data(), d_reduced.data(), op::max) ==
        runs);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace reduce_by_key_tests
