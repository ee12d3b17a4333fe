// tests/test_select.cu — compaction, partition, unique and run-length
// encoding: every host API item type against an independent host reference
// and Thrust (copy_if, stable_partition_copy, unique, reduce_by_key), at
// selection rates 0/1/50/99/100 %, runs of length 1 and very long runs, the
// design.md sizes around the selection kernel's tile; poisoned outputs must
// stay poisoned past the count. Also: the async twins (count in device
// memory, also under graph capture), in-place compaction, key/value pairs,
// every host predicate (NaN included), the template API with custom types
// and functors, every scan policy, input written by the kernel just before
// (which lets its dependents start early), bad arguments (host tests), and [large]
// calls past 2^31 items that run as several launches.
#include "support/cuda_check.hpp"
#include "support/random.hpp"

#include <scankit/detail/kernels/select_kernel.cuh>
#include <scankit/device/select.cuh>
#include <scankit/scankit.hpp>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/partition.h>
#include <thrust/reduce.h>
#include <thrust/unique.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace select_tests {

using namespace sktest;
using scankit::block_algorithm;
using scankit::grid_strategy;
using scankit::scan_policy;

template <class T>
constexpr std::size_t select_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T>>;

/// The tile with byte flags staged beside the items (compact and partition by flags).
template <class T>
constexpr std::size_t flagged_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T, 1>>;

/// The tiles of calls below select_small_call_items (the same as above
/// where the small-call tuning does not differ).
template <class T>
constexpr std::size_t small_call_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T, 0, true>>;
template <class T>
constexpr std::size_t small_call_flagged_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T, 1, true>>;

/// The short tiles that partition of 4-byte items by byte flags takes below
/// select_small_call_items where they leave the busiest block fewer items.
template <class T>
constexpr std::size_t partition_short_tile =
    scankit::detail::tile_items<T, scankit::detail::partition_short_tiles<T, 1>>;

/// The tiles of one block per SM, which compaction takes from
/// select_wide_tiles_items up: select_small_call_items for items by byte
/// flags and 8-byte items without flags, 2^25 for 4-byte items without
/// flags (select_wide_tiles).
template <class T>
constexpr std::size_t wide_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T, 0, false, 1>>;
template <class T>
constexpr std::size_t wide_flagged_tile =
    scankit::detail::tile_items<T, scankit::detail::default_select_tuning<T, 1, false, 1>>;

/// Sizes around the selection tiles of both tunings (design.md's list).
template <class T>
std::vector<std::size_t> select_sizes() {
  const std::size_t tile = select_tile<T>, flagged = flagged_tile<T>;
  const std::size_t small = small_call_tile<T>, small_flagged = small_call_flagged_tile<T>;
  const std::size_t short_flagged = partition_short_tile<T>;
  std::vector<std::size_t> sizes = {1, 31, 32, 33,
                                    tile - 1, tile, tile + 1, flagged - 1, flagged, flagged + 1,
                                    3 * tile + 1, 40 * flagged - 1,
                                    small - 1, small, small + 1, small_flagged - 1, small_flagged, small_flagged + 1,
                                    3 * small_flagged + 1, short_flagged - 1, short_flagged, short_flagged + 1,
                                    100003, std::size_t(1) << 20};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// ---- host references -----------------------------------------------------------

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The items whose flag is set, in order.
template <class T, class Flag>
std::vector<T> reference_compact(const std::vector<T>& in, const std::vector<Flag>& flags) {
  std::vector<T> out;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (flags[i]) out.push_back(in[i]);
  return out;
}

/// Selected in order, then rejected in order.
template <class T, class Flag>
std::vector<T> reference_partition(const std::vector<T>& in, const std::vector<Flag>& flags) {
  std::vector<T> out = reference_compact(in, flags);
  for (std::size_t i = 0; i < in.size(); ++i)
    if (!flags[i]) out.push_back(in[i]);
  return out;
}

/// Run heads under operator== (NaN starts a run of its own).
template <class T>
std::vector<std::uint8_t> reference_heads(const std::vector<T>& in) {
  std::vector<std::uint8_t> heads(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) heads[i] = i == 0 || !(in[i - 1] == in[i]);
  return heads;
}

template <class T>
std::vector<std::uint64_t> reference_run_lengths(const std::vector<T>& in) {
  std::vector<std::uint64_t> lengths;
  const std::vector<std::uint8_t> heads = reference_heads(in);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (heads[i]) lengths.push_back(0);
    ++lengths.back();
  }
  return lengths;
}

// ---- inputs ----------------------------------------------------------------------

/// How flags of type Flag are held on the host (bool as bytes of 0 or 1:
/// std::vector<bool> has no contiguous storage).
template <class Flag>
using flag_storage = std::conditional_t<std::is_same_v<Flag, bool>, std::uint8_t, Flag>;

/// Flags set with probability rate/100 (exactly none / all at 0 and 100).
template <class Flag>
std::vector<flag_storage<Flag>> make_flags(std::size_t n, int rate_percent, rng& r) {
  std::vector<flag_storage<Flag>> flags(n);
  for (auto& f : flags) {
    const bool on = rate_percent >= 100 || (rate_percent > 0 && r.below(100) < std::uint64_t(rate_percent));
    if constexpr (std::is_same_v<Flag, std::int32_t>) f = on ? Flag(1 + r.below(1000)) * (r.coin() ? 1 : -1) : 0;
    else if constexpr (std::is_same_v<Flag, std::uint8_t>) f = on ? Flag(1 + r.below(255)) : 0;  // any non-zero byte
    else f = on ? 1 : 0;
  }
  return flags;
}

/// Runs of random lengths with mean `mean_run` (1: every item differs from
/// its neighbour with high probability). Values come from make_input, so
/// floats stay on a grid and equal values are equal bits.
template <class T>
std::vector<T> make_runs(std::size_t n, double mean_run, rng& r) {
  std::vector<T> values = make_input<T>(n, value_kind::full_range, r);
  std::vector<T> in(n);
  std::size_t v = 0;
  for (std::size_t i = 0; i < n; ++v) {
    std::size_t len = mean_run <= 1.0 ? 1 : 1 + std::size_t(r.below(std::uint64_t(2 * mean_run - 1)));
    for (std::size_t j = 0; j < len && i < n; ++j) in[i++] = values[v % n];
  }
  return in;
}

// ---- checks ----------------------------------------------------------------------

/// got[0, expected.size()) == expected bit for bit, count right, and the rest
/// of got still poisoned (nothing written past the count).
template <class T>
void check_selected(const std::vector<T>& got, std::size_t count, const std::vector<T>& expected,
                    const char* what) {
  INFO(what);
  REQUIRE(count == expected.size());
  std::size_t bad = 0, first = count;
  for (std::size_t i = 0; i < count; ++i)
    if (!same_bits(got[i], expected[i]) && bad++ == 0) first = i;
  INFO("first mismatch at " << first << " of " << count);
  CHECK(bad == 0);
  std::size_t written_past = 0;
  for (std::size_t i = count; i < got.size(); ++i) written_past += !is_poison(got[i]);
  CHECK(written_past == 0);
}

std::size_t read_device_count(const device_buffer<std::size_t>& d_count, cudaStream_t stream) {
  return d_count.download(stream).at(0);
}

/// Captures `call` (a call on n items and their flags in d_flags, writing its
/// count to d_count) into a CUDA graph and replays it three times on fresh
/// byte flags (10, 50, 90 % selected), d_out poisoned before each;
/// check(flags, count) checks a replay.
template <class T, class Call, class Check>
void replay_on_fresh_flags(cudaStream_t stream, std::size_t n, device_buffer<std::uint8_t>& d_flags,
                           device_buffer<T>& d_out, const device_buffer<std::size_t>& d_count, rng& r, Call call,
                           Check check) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  SKTEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  call();
  SKTEST_CUDA(cudaStreamEndCapture(stream, &graph));
  SKTEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    CAPTURE(replay);
    const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 10 + 40 * replay, r);
    d_flags.upload(flags, stream);
    d_out.poison(stream);
    SKTEST_CUDA(cudaGraphLaunch(exec, stream));
    check(flags, read_device_count(d_count, stream));
  }
  SKTEST_CUDA(cudaGraphExecDestroy(exec));
  SKTEST_CUDA(cudaGraphDestroy(graph));
}

// ---- 1. compact by flags, every type × flag type × rate × size ---------------------

struct flag_is_set {
  template <class Flag>
  __device__ bool operator()(const Flag& f) const {
    return static_cast<bool>(f);
  }
};

template <class T, class Flag>
void compact_flags_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, int rate, bool async) {
  const std::string key = std::string("select/compact/") + type_name<T>() + "/" + std::to_string(sizeof(Flag)) + "/" +
                          std::to_string(n) + "/" + std::to_string(rate);
  const std::uint64_t seed = case_seed(key);
  CAPTURE(type_name<T>(), sizeof(Flag), n, rate, async, seed);
  rng r(seed);
  const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
  const std::vector<flag_storage<Flag>> flags = make_flags<Flag>(n, rate, r);
  const std::vector<T> expected = reference_compact(in, flags);
  device_buffer<T> d_in(n), d_out(n);
  device_buffer<flag_storage<Flag>> d_flags_storage(n);
  const Flag* const d_flags = reinterpret_cast<const Flag*>(d_flags_storage.data());
  device_buffer<std::size_t> d_count(1);
  d_in.upload(in, stream);
  d_flags_storage.upload(flags, stream);
  d_out.poison(stream);
  d_count.poison(stream);
  std::size_t count = 0;
  if (async) {
    scankit::compact_async(ctx, d_in.data(), d_flags, d_out.data(), n, d_count.data());
    count = read_device_count(d_count, stream);
  } else {
    count = scankit::compact(ctx, d_in.data(), d_flags, d_out.data(), n);
  }
  check_selected(d_out.download(stream), count, expected, "scankit::compact vs host reference");
  // Thrust on the same device data.
  device_buffer<T> d_thrust(n);
  T* const end = thrust::copy_if(thrust::cuda::par.on(stream), d_in.data(), d_in.data() + n, d_flags, d_thrust.data(),
                                 flag_is_set{});
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  const std::size_t thrust_count = std::size_t(end - d_thrust.data());
  CHECK(thrust_count == count);
  check_selected(d_thrust.download(stream, 0, thrust_count), thrust_count, expected, "thrust::copy_if vs host reference");
}

TEMPLATE_TEST_CASE("compact by flags equals the host reference and thrust::copy_if", "[gpu][select]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : select_sizes<T>())
    for (int rate : {0, 1, 50, 99, 100}) {
      compact_flags_case<T, std::uint8_t>(ctx, stream, n, rate, false);
      compact_flags_case<T, bool>(ctx, stream, n, rate, n % 2 == 0);
      compact_flags_case<T, std::int32_t>(ctx, stream, n, rate, true);
    }
  compact_flags_case<T, std::uint8_t>(ctx, stream, std::size_t(1) << 24, 50, true);
  compact_flags_case<T, bool>(ctx, stream, scankit::detail::select_small_call_items + 2 * wide_flagged_tile<T> + 3, 99,
                              false);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 2. compact_if / partition_if with every host predicate -------------------------

template <class T>
bool host_predicate(const scankit::predicate<T>& p, T x) {
  using scankit::compare;
  switch (p.kind) {
    case compare::not_zero: return x != T(0);
    case compare::equal: return x == p.a;
    case compare::not_equal: return x != p.a;
    case compare::less: return x < p.a;
    case compare::less_equal: return x <= p.a;
    case compare::greater: return x > p.a;
    case compare::greater_equal: return x >= p.a;
    case compare::in_range: return p.a <= x && x < p.b;
    case compare::outside_range: return !(p.a <= x && x < p.b);
  }
  return false;
}

/// Values at and next to every edge of T: its ends, zero, small bounds, and
/// for floating point NaN, the infinities, ±0 and the denormals. (The host
/// API's six types, and the narrower ones the template API also takes.)
template <class T>
std::vector<T> edge_values() {
  using lim = std::numeric_limits<T>;
  std::vector<T> v = {lim::lowest(), T(lim::lowest() + 1), T(0), T(1), T(2), T(3), T(4), T(5), T(6), T(7), T(8),
                      T(lim::max() - 1), lim::max()};
  if constexpr (std::is_signed_v<T>)
    for (const T x : {T(-1), T(-6), T(-7), T(-8)}) v.push_back(x);  // (insert: a false GCC 12 warning for 1-byte T)
  if constexpr (std::is_floating_point_v<T>) {
    const T inf = lim::infinity(), tiny = lim::denorm_min();
    v.insert(v.end(), {lim::quiet_NaN(), -inf, inf, T(-0.0), tiny, -tiny, lim::min(), std::nextafter(T(3), inf),
                       std::nextafter(T(3), -inf), std::nextafter(T(7), -inf), std::nextafter(lim::max(), T(0))});
  }
  return v;
}

/// Whether selector.bits<Vec>() over every window of Vec consecutive values
/// (cyclic) sets exactly the bits of the items host_predicate selects.
template <int Vec, class T, class Selector>
bool vector_bits_agree(const Selector& selector, const scankit::predicate<T>& pred, const std::vector<T>& values) {
  for (std::size_t start = 0; start < values.size(); ++start) {
    T v[Vec];
    unsigned expected = 0;
    for (int j = 0; j < Vec; ++j) {
      v[j] = values[(start + std::size_t(j)) % values.size()];
      expected |= unsigned(host_predicate(pred, v[j])) << j;
    }
    if (selector.template bits<Vec>(v, v, 0, Vec) != expected) return false;
  }
  return true;
}

TEMPLATE_TEST_CASE("the kernels' form of every host predicate decides as the predicate itself", "[select]",
                   std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double, std::int8_t, std::uint8_t,
                   std::int16_t, std::uint16_t, bool) {
  using T = TestType;
  using scankit::compare;
  const std::vector<T> values = edge_values<T>();
  for (compare kind : {compare::not_zero, compare::equal, compare::not_equal, compare::less, compare::less_equal,
                       compare::greater, compare::greater_equal, compare::in_range, compare::outside_range})
    for (const T& a : values)
      for (const T& b : values) {
        const scankit::predicate<T> pred{kind, a, b};
        const scankit::detail::predicate_selector<scankit::predicate<T>> selector(pred);
        std::size_t wrong = 0;
        T first_wrong{};
        for (const T& x : values)
          if (selector(x) != host_predicate(pred, x) && wrong++ == 0) first_wrong = x;
        CAPTURE(type_name<T>(), int(kind), double(a), double(b), double(first_wrong));
        REQUIRE(wrong == 0);
        // The kernels' vector form: bit j for item j of every window of the
        // values (a vector of 16 bytes, and one item), no bit past the vector.
        REQUIRE(vector_bits_agree<scankit::detail::vector_items<T>>(selector, pred, values));
        REQUIRE(vector_bits_agree<1>(selector, pred, values));
      }
}

/// The host predicate's flag for every item.
template <class T>
std::vector<std::uint8_t> host_flags(const scankit::predicate<T>& p, const std::vector<T>& in) {
  std::vector<std::uint8_t> flags(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) flags[i] = host_predicate(p, in[i]);
  return flags;
}

/// compact_if of `in` (already in d_in) into a poisoned d_out, checked
/// against the host reference; returns the count.
template <class T>
std::size_t compact_if_case(scankit::context& ctx, cuda_stream& stream, const std::vector<T>& in,
                            const device_buffer<T>& d_in, device_buffer<T>& d_out, const scankit::predicate<T>& pred) {
  d_out.poison(stream);
  const std::size_t count = scankit::compact_if(ctx, d_in.data(), d_out.data(), in.size(), pred);
  check_selected(d_out.download(stream), count, reference_compact(in, host_flags(pred, in)), "compact_if");
  return count;
}

/// Small values (many equal to the bounds), zeros, and for floats NaN, ±0 and ±inf.
template <class T>
std::vector<T> make_predicate_input(std::size_t n, rng& r) {
  std::vector<T> in(n);
  for (auto& x : in) {
    const std::uint64_t pick = r.below(20);
    if constexpr (std::is_floating_point_v<T>) {
      if (pick == 0) x = std::numeric_limits<T>::quiet_NaN();
      else if (pick == 1) x = T(-0.0);
      else if (pick == 2) x = std::numeric_limits<T>::infinity();
      else if (pick == 3) x = -std::numeric_limits<T>::infinity();
      else x = T(int(r.below(21)) - (std::is_signed_v<T> ? 10 : 0));
    } else {
      x = T(int(r.below(21)) - (std::is_signed_v<T> ? 10 : 0));
      (void)pick;
    }
  }
  return in;
}

/// compact_if_case on fresh predicate input of n items, seeded by label.
template <class T>
void compact_if_fresh_case(scankit::context& ctx, cuda_stream& stream, const std::string& label, std::size_t n,
                           const scankit::predicate<T>& pred) {
  const std::uint64_t seed = case_seed(label + type_name<T>() + "/" + std::to_string(n));
  CAPTURE(type_name<T>(), n, seed);
  rng r(seed);
  const std::vector<T> in = make_predicate_input<T>(n, r);
  device_buffer<T> d_in(n), d_out(n);
  d_in.upload(in, stream);
  compact_if_case(ctx, stream, in, d_in, d_out, pred);
}

TEMPLATE_TEST_CASE("compact_if and partition_if apply every host predicate", "[gpu][select]", std::int32_t,
                   std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  using scankit::compare;
  cuda_stream stream;
  scankit::context ctx(stream);
  const compare kinds[] = {compare::not_zero, compare::equal,         compare::not_equal,
                           compare::less,     compare::less_equal,    compare::greater,
                           compare::greater_equal, compare::in_range, compare::outside_range};
  std::vector<std::size_t> sizes = {1000, 3 * select_tile<T> + 7};
  if constexpr (sizeof(T) == 8)  // compact_if on the tiles of one block per SM
    sizes.push_back(scankit::detail::select_small_call_items + 2 * wide_tile<T> + 7);
  // Bounds (a, b); for floats also NaN bounds (every comparison false, so
  // only not_equal and outside_range select), -0.0 against +0.0 (equal as
  // values) and the infinities.
  std::vector<std::pair<T, T>> bounds = {{T(3), T(7)}};
  if constexpr (std::is_floating_point_v<T>) {
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    bounds.insert(bounds.end(), {{nan, nan}, {T(3), nan}, {T(-0.0), T(0.0)}, {T(0.0), T(-0.0)}, {-inf, inf}});
  }
  for (std::size_t n : sizes) {
    const std::uint64_t seed = case_seed(std::string("select/predicate/") + type_name<T>() + "/" + std::to_string(n));
    rng r(seed);
    const std::vector<T> in = make_predicate_input<T>(n, r);
    device_buffer<T> d_in(n), d_out(n);
    device_buffer<std::size_t> d_count(1);
    d_in.upload(in, stream);
    for (compare kind : kinds)
      for (std::size_t k = 0; k < (n < scankit::detail::select_small_call_items ? bounds.size() : 1); ++k) {
        const scankit::predicate<T> pred{kind, bounds[k].first, bounds[k].second};
        CAPTURE(type_name<T>(), n, int(kind), double(pred.a), double(pred.b), seed);
        const std::size_t count = compact_if_case(ctx, stream, in, d_in, d_out, pred);
        d_out.poison(stream);
        scankit::partition_if_async(ctx, d_in.data(), d_out.data(), n, pred, d_count.data());
        const std::size_t selected = read_device_count(d_count, stream);
        CHECK(selected == count);
        check_selected(d_out.download(stream), n, reference_partition(in, host_flags(pred, in)), "partition_if");
      }
    // The builders convert their bounds to the item type.
    d_out.poison(stream);
    const std::size_t in_range = scankit::compact_if(ctx, d_in.data(), d_out.data(), n, scankit::in_range(2, 5));
    std::size_t expected = 0;
    for (const T& x : in) expected += T(2) <= x && x < T(5);
    CHECK(in_range == expected);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 3. partition by flags vs Thrust ------------------------------------------------

template <class T>
void partition_flags_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, int rate) {
  const std::uint64_t seed =
      case_seed(std::string("select/partition/") + type_name<T>() + "/" + std::to_string(n) + "/" + std::to_string(rate));
  CAPTURE(type_name<T>(), n, rate, seed);
  rng r(seed);
  const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
  const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, rate, r);
  device_buffer<T> d_in(n), d_out(n), d_true(n), d_false(n);
  device_buffer<std::uint8_t> d_flags(n);
  d_in.upload(in, stream);
  d_flags.upload(flags, stream);
  d_out.poison(stream);
  const std::size_t count = scankit::partition(ctx, d_in.data(), d_flags.data(), d_out.data(), n);
  const std::vector<T> expected = reference_partition(in, flags);
  check_selected(d_out.download(stream), n, expected, "partition vs host reference");
  CHECK(count == reference_compact(in, flags).size());
  const auto ends = thrust::stable_partition_copy(thrust::cuda::par.on(stream), d_in.data(), d_in.data() + n,
                                                  d_flags.data(), d_true.data(), d_false.data(), flag_is_set{});
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  const std::size_t thrust_true = std::size_t(ends.first - d_true.data());
  CHECK(thrust_true == count);
  std::vector<T> thrust_result = d_true.download(stream, 0, thrust_true);
  const std::vector<T> rejected = d_false.download(stream, 0, n - thrust_true);
  thrust_result.insert(thrust_result.end(), rejected.begin(), rejected.end());
  check_selected(thrust_result, n, expected, "thrust::stable_partition_copy vs host reference");
}

TEMPLATE_TEST_CASE("partition by flags is stable and equals thrust::stable_partition_copy", "[gpu][select]",
                   std::int32_t, std::uint64_t, float, double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : select_sizes<T>())
    for (int rate : {0, 1, 50, 99, 100}) partition_flags_case<T>(ctx, stream, n, rate);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 4. unique and run-length encoding vs Thrust --------------------------------------

template <class T>
void unique_rle_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, double mean_run, bool nan_runs) {
  const std::uint64_t seed = case_seed(std::string("select/runs/") + type_name<T>() + "/" + std::to_string(n) + "/" +
                                       std::to_string(mean_run) + "/" + std::to_string(nan_runs));
  CAPTURE(type_name<T>(), n, mean_run, nan_runs, seed);
  rng r(seed);
  std::vector<T> in = make_runs<T>(n, mean_run, r);
  if constexpr (std::is_floating_point_v<T>) {
    if (nan_runs)  // NaN never equals itself; -0 equals +0
      for (std::size_t i = 0; i + 3 < n; i += 1 + std::size_t(r.below(50))) {
        in[i] = std::numeric_limits<T>::quiet_NaN();
        in[i + 1] = std::numeric_limits<T>::quiet_NaN();
        in[i + 2] = T(0.0);
        in[i + 3] = T(-0.0);
      }
  }
  const std::vector<std::uint8_t> heads = reference_heads(in);
  const std::vector<T> expected_unique = reference_compact(in, heads);
  const std::vector<std::uint64_t> expected_lengths = reference_run_lengths(in);
  device_buffer<T> d_in(n), d_out(n), d_thrust(n);
  device_buffer<std::uint32_t> d_lengths32(n), d_thrust_counts(n);
  device_buffer<std::uint64_t> d_lengths64(n);
  device_buffer<std::size_t> d_count(1);
  d_in.upload(in, stream);

  d_out.poison(stream);
  const std::size_t unique_count = scankit::unique(ctx, d_in.data(), d_out.data(), n);
  check_selected(d_out.download(stream), unique_count, expected_unique, "unique vs host reference");

  d_out.poison(stream);
  d_lengths32.poison(stream);
  const std::size_t runs = scankit::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths32.data(), n);
  check_selected(d_out.download(stream), runs, expected_unique, "run_length_encode heads vs host reference");
  std::vector<std::uint32_t> expected32(expected_lengths.begin(), expected_lengths.end());
  check_selected(d_lengths32.download(stream), runs, expected32, "run lengths (uint32) vs host reference");

  d_out.poison(stream);
  d_lengths64.poison(stream);
  d_count.poison(stream);
  scankit::run_length_encode_async(ctx, d_in.data(), d_out.data(), d_lengths64.data(), n, d_count.data());
  const std::size_t runs_async = read_device_count(d_count, stream);
  CHECK(runs_async == runs);
  check_selected(d_lengths64.download(stream), runs_async, expected_lengths, "run lengths (uint64) vs host reference");

  // Thrust: unique, and reduce_by_key of ones for the lengths.
  SKTEST_CUDA(cudaMemcpyAsync(d_thrust.data(), d_in.data(), n * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  T* const unique_end = thrust::unique(thrust::cuda::par.on(stream), d_thrust.data(), d_thrust.data() + n);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(std::size_t(unique_end - d_thrust.data()) == unique_count);
  // thrust::reduce_by_key splits runs that operator== joins when NaN or ±0
  // are involved (measured: more runs than thrust::unique on the same data),
  // so it is an oracle for ordinary values only.
  if (nan_runs) return;
  device_buffer<T> d_keys(n);
  const auto ends = thrust::reduce_by_key(thrust::cuda::par.on(stream), d_in.data(), d_in.data() + n,
                                          thrust::constant_iterator<std::uint32_t>(1), d_keys.data(),
                                          d_thrust_counts.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  const std::size_t thrust_runs = std::size_t(ends.first - d_keys.data());
  CHECK(thrust_runs == runs);
  check_selected(d_thrust_counts.download(stream, 0, thrust_runs), thrust_runs, expected32,
                 "thrust::reduce_by_key counts vs host reference");
}

TEMPLATE_TEST_CASE("unique and run_length_encode equal the host reference, thrust::unique and reduce_by_key",
                   "[gpu][select]", std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double) {
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : select_sizes<T>())
    for (double mean_run : {1.0, 2.0, 50.0}) unique_rle_case<T>(ctx, stream, n, mean_run, false);
  // Very long runs: runs spanning many tiles, and one run of everything.
  unique_rle_case<T>(ctx, stream, std::size_t(1) << 20, 100000.0, false);
  unique_rle_case<T>(ctx, stream, 77 * select_tile<T> + 5, 1e12, false);
  if constexpr (std::is_floating_point_v<T>) unique_rle_case<T>(ctx, stream, 100003, 3.0, true);
  if constexpr (sizeof(T) == 8)  // unique on the tiles of one block per SM
    unique_rle_case<T>(ctx, stream, scankit::detail::select_small_call_items + 3 * wide_tile<T> + 5, 2.0,
                       std::is_floating_point_v<T>);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("selection calls just below and above the small-call size (every tile shape)",
                   "[gpu][select][racecheck]", std::uint32_t, std::uint64_t) {
  // Below select_small_call_items 4-byte items with byte flags and 8-byte
  // items without flags take smaller tiles; above it compaction by byte flags
  // and 8-byte compaction without flags take the tiles of one block per SM,
  // partition and run-length encoding the default ones. The sizes above end
  // in a partial tile of the shape taken.
  // [racecheck]: the sizes above give every block several tiles, so each
  // buffer is refilled after its tile is written out (the [sanitize] cases
  // run at most a tile per block).
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  constexpr std::size_t below = scankit::detail::select_small_call_items - 1;
  constexpr std::size_t compact_tile = wide_flagged_tile<T>;
  for (std::size_t n : {below, below + 1 + compact_tile / 2, (below / compact_tile + 3) * compact_tile + 1})
    compact_flags_case<T, std::uint8_t>(ctx, stream, n, 50, false);
  for (std::size_t n : {below, below + 1 + flagged_tile<T> / 2}) partition_flags_case<T>(ctx, stream, n, 50);
  constexpr std::size_t unique_tile = sizeof(T) == 8 ? wide_tile<T> : select_tile<T>;
  std::vector<std::size_t> unique_sizes = {below, below + 1 + unique_tile / 2};
  if constexpr (unique_tile != select_tile<T>)  // run-length encoding's own tiles
    unique_sizes.push_back(below + 1 + select_tile<T> / 2);
  for (std::size_t n : unique_sizes) unique_rle_case<T>(ctx, stream, n, 2.0, false);

  // compact_if on either side (8-byte items: the tiles of one block per SM above).
  for (std::size_t n : {below, below + 1 + unique_tile / 2})
    compact_if_fresh_case(ctx, stream, "select/small-call/if/", n,
                          scankit::predicate<T>{scankit::compare::less, T(7), T(7)});
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("compact_if and unique of 4-byte items just below and above their one-block-per-SM size",
                   "[gpu][select]", std::uint32_t, float) {
  // From select_wide_tiles_items (2^25) up 4-byte items without flags
  // compact and drop duplicates on the tiles of one block per SM; below it
  // on the default ones. The size above ends in a partial tile.
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  constexpr std::size_t limit = scankit::detail::select_wide_tiles_items<T, 0>;
  static_assert(limit > scankit::detail::select_small_call_items, "a limit of its own");
  for (std::size_t n : {limit - 1, limit + 2 * wide_tile<T> + wide_tile<T> / 2}) {
    compact_if_fresh_case(ctx, stream, "select/wide-limit/if/", n,
                          scankit::predicate<T>{scankit::compare::in_range, T(-3), T(5)});
    unique_rle_case<T>(ctx, stream, n, 2.0, std::is_floating_point_v<T>);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

/// Partition through the kernel and counting pre-pass that the library runs
/// for calls of more than one launch (over 2^31 items) or whose cooperative
/// grid cannot be resident: forced here at any size.
template <class T>
void partition_with_pre_pass(scankit::context& ctx, const T* d_in, const std::uint8_t* d_flags, T* d_out,
                             std::size_t n, std::size_t* d_count) {
  namespace sd = scankit::detail;
  sd::run_select_single_pass<sd::select_mode::partition, sd::default_select_tuning<T, 1>>(
      ctx, scankit::device::detail_select::flagged_arrays(d_in, d_flags, d_out),
      scankit::device::detail_select::flags_of(d_flags), n, d_count);
}

TEMPLATE_TEST_CASE("partition counts in its own launch, or in a pre-pass forced", "[gpu][select]", std::uint32_t,
                   std::uint64_t) {
  // A call of one launch counts in it (cooperative): each block takes a
  // contiguous range of tiles, counts it, and places its tiles from every
  // block's count. Sizes: fewer tiles than blocks; on the short tiles
  // (uint32, partition_short_tiles) two per block on some blocks (2^21 + 7,
  // on 132 SMs); on the small-call tiles up to several per block, below
  // select_small_call_items and just above it (where they leave the busiest
  // block fewer items, on 132 SMs); on the larger tiles several per block
  // (at 2^24 both tiles give the busiest block as many items, on 132 SMs),
  // ranges of two lengths and a partial last tile. Calls alternate with the
  // pre-pass's (tickets and look-back) on one context, so the counts of a
  // launch find the status words of other launches (other tags) where they go.
  using T = TestType;
  cuda_stream stream;
  scankit::context ctx(stream);
  constexpr std::size_t below = scankit::detail::select_small_call_items - 1;
  const std::vector<std::size_t> sizes = {3 * small_call_flagged_tile<T> + 5, (std::size_t(1) << 21) + 7, below,
                                          below + 1 + 2 * flagged_tile<T> + 7,
                                          (std::size_t(1) << 24) + 2 * flagged_tile<T> + 7};
  for (std::size_t n : sizes) {
    for (int rate : {1, 50, 99}) partition_flags_case<T>(ctx, stream, n, rate);
    // The pre-pass's way at the same size, on fresh flags.
    rng r(case_seed("select/partition/pre-pass/" + std::to_string(n)));
    const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
    const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 50, r);
    device_buffer<T> d_in(n), d_out(n);
    device_buffer<std::uint8_t> d_flags(n);
    device_buffer<std::size_t> d_count(1);
    d_in.upload(in, stream);
    d_flags.upload(flags, stream);
    d_out.poison(stream);
    partition_with_pre_pass(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data());
    CHECK(d_count.download(stream)[0] == reference_compact(in, flags).size());
    check_selected(d_out.download(stream), n, reference_partition(in, flags), "partition with a pre-pass");
  }

  // Under graph capture, both ways: the cooperative launch, and the
  // pre-pass with the selection kernel launched as its programmatic
  // dependent (an edge of its own in the graph).
  for (bool pre_pass : {false, true}) {
    const std::size_t n = sizes[1];
    CAPTURE(n, pre_pass);
    rng r(case_seed("select/partition/capture/" + std::to_string(pre_pass)));
    const std::vector<T> in = make_input<T>(n, value_kind::full_range, r);
    device_buffer<T> d_in(n), d_out(n);
    device_buffer<std::uint8_t> d_flags(n);
    device_buffer<std::size_t> d_count(1);
    d_in.upload(in, stream);
    replay_on_fresh_flags(
        stream, n, d_flags, d_out, d_count, r,
        [&] {
          if (pre_pass)
            partition_with_pre_pass(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data());
          else
            scankit::partition_async(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data());
        },
        [&](const std::vector<std::uint8_t>& fresh, std::size_t count) {
          REQUIRE(count == reference_compact(in, fresh).size());
          check_selected(d_out.download(stream), n, reference_partition(in, fresh), "partition replayed");
        });
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 5. key/value pairs ----------------------------------------------------------------

template <class K, class V>
void pairs_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, int rate) {
  const std::uint64_t seed = case_seed(std::string("select/pairs/") + type_name<K>() + "/" + type_name<V>() + "/" +
                                       std::to_string(n) + "/" + std::to_string(rate));
  CAPTURE(type_name<K>(), type_name<V>(), n, rate, seed);
  rng r(seed);
  const std::vector<K> keys = make_input<K>(n, value_kind::full_range, r);
  const std::vector<V> values = make_input<V>(n, value_kind::full_range, r);
  const std::vector<std::int32_t> flags = make_flags<std::int32_t>(n, rate, r);
  device_buffer<K> d_keys(n), d_keys_out(n);
  device_buffer<V> d_values(n), d_values_out(n);
  device_buffer<std::int32_t> d_flags(n);
  device_buffer<std::size_t> d_count(1);
  d_keys.upload(keys, stream);
  d_values.upload(values, stream);
  d_flags.upload(flags, stream);
  d_keys_out.poison(stream);
  d_values_out.poison(stream);
  const std::size_t count = scankit::compact_pairs(ctx, d_keys.data(), d_values.data(), d_flags.data(),
                                                   d_keys_out.data(), d_values_out.data(), n);
  check_selected(d_keys_out.download(stream), count, reference_compact(keys, flags), "compact_pairs keys");
  check_selected(d_values_out.download(stream), count, reference_compact(values, flags), "compact_pairs values");

  // By a predicate on the keys: the upper half of the key range.
  const K threshold = K(0);
  std::vector<std::uint8_t> by_key(n);
  for (std::size_t i = 0; i < n; ++i) by_key[i] = keys[i] > threshold;
  d_keys_out.poison(stream);
  d_values_out.poison(stream);
  scankit::compact_pairs_if_async(ctx, d_keys.data(), d_values.data(), d_keys_out.data(), d_values_out.data(), n,
                                  scankit::greater(threshold), d_count.data());
  const std::size_t count_if = read_device_count(d_count, stream);
  check_selected(d_keys_out.download(stream), count_if, reference_compact(keys, by_key), "compact_pairs_if keys");
  check_selected(d_values_out.download(stream), count_if, reference_compact(values, by_key), "compact_pairs_if values");

  // The other kinds of host predicate, with bounds taken from the keys.
  using scankit::compare;
  const K lo = std::min(keys[0], keys[n / 2]), hi = std::max(keys[0], keys[n / 2]);
  for (const scankit::predicate<K> pred : {scankit::predicate<K>{compare::in_range, lo, hi},
                                           scankit::predicate<K>{compare::outside_range, lo, hi},
                                           scankit::predicate<K>{compare::less_equal, hi, hi},
                                           scankit::predicate<K>{compare::equal, keys[n / 3], keys[n / 3]},
                                           scankit::predicate<K>{compare::not_zero, K(0), K(0)}}) {
    CAPTURE(int(pred.kind));
    const std::vector<std::uint8_t> flags_of_pred = host_flags(pred, keys);
    d_keys_out.poison(stream);
    d_values_out.poison(stream);
    const std::size_t selected = scankit::compact_pairs_if(ctx, d_keys.data(), d_values.data(), d_keys_out.data(),
                                                           d_values_out.data(), n, pred);
    check_selected(d_keys_out.download(stream), selected, reference_compact(keys, flags_of_pred),
                   "compact_pairs_if keys");
    check_selected(d_values_out.download(stream), selected, reference_compact(values, flags_of_pred),
                   "compact_pairs_if values");
  }
}

TEST_CASE("compact_pairs moves the values of the selected keys", "[gpu][select]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(1), std::size_t(33), select_tile<double> + 1, std::size_t(100003)})
    for (int rate : {0, 50, 100}) {
      pairs_case<std::int32_t, double>(ctx, stream, n, rate);
      pairs_case<std::uint64_t, float>(ctx, stream, n, rate);
      pairs_case<float, std::uint32_t>(ctx, stream, n, rate);
      pairs_case<double, std::int64_t>(ctx, stream, n, rate);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 6. in place, misaligned, n == 0, graph capture ---------------------------------------

TEST_CASE("compact, unique and run_length_encode work in place", "[gpu][select][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(5), select_tile<std::uint32_t> + 3, 7 * select_tile<std::uint32_t> + 1}) {
    const std::uint64_t seed = case_seed("select/in_place/" + std::to_string(n));
    CAPTURE(n, seed);
    rng r(seed);
    const std::vector<std::uint32_t> in = make_runs<std::uint32_t>(n, 3.0, r);
    const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 60, r);
    device_buffer<std::uint32_t> d_data(n), d_lengths(n);
    device_buffer<std::uint8_t> d_flags(n);
    d_flags.upload(flags, stream);

    d_data.upload(in, stream);
    const std::size_t kept = scankit::compact(ctx, d_data.data(), d_flags.data(), d_data.data(), n);
    const std::vector<std::uint32_t> expected = reference_compact(in, flags);
    REQUIRE(kept == expected.size());
    CHECK(d_data.download(stream, 0, kept) == expected);

    d_data.upload(in, stream);
    const std::size_t uniques = scankit::unique(ctx, d_data.data(), d_data.data(), n);
    const std::vector<std::uint32_t> expected_unique = reference_compact(in, reference_heads(in));
    REQUIRE(uniques == expected_unique.size());
    CHECK(d_data.download(stream, 0, uniques) == expected_unique);

    d_data.upload(in, stream);
    const std::size_t runs = scankit::run_length_encode(ctx, d_data.data(), d_data.data(), d_lengths.data(), n);
    REQUIRE(runs == expected_unique.size());
    CHECK(d_data.download(stream, 0, runs) == expected_unique);
    const std::vector<std::uint64_t> lengths = reference_run_lengths(in);
    CHECK(d_lengths.download(stream, 0, runs) == std::vector<std::uint32_t>(lengths.begin(), lengths.end()));
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

/// Lets a programmatic dependent of it launch at once, then, about 100 µs
/// later, copies src to dst: a selection launched right after it that read
/// its input before this kernel finished would see dst still poisoned. (A
/// few blocks, so the dependent's blocks find room beside them.)
template <class T>
__global__ void late_copy_kernel(const T* src, T* dst, std::size_t n) {
  scankit::detail::allow_dependent_launch();
  for (int k = 0; k < 100; ++k) __nanosleep(1000);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

TEST_CASE("selection waits for the kernel before it in the stream, which lets its dependents start early",
          "[gpu][select]") {
  // Every selection launch is the programmatic dependent of the kernel
  // before it; its input is written by that kernel after it lets dependents
  // start. Sizes: small-call tiles, and either side of the small-call limit.
  // Partition counts in its own (cooperative) launch, and also runs with the
  // pre-pass forced (not a dependent: it starts once that kernel has ended),
  // where the selection kernel, the pre-pass's dependent, reads its input
  // before the count is in.
  cuda_stream stream;
  scankit::context ctx(stream);
  constexpr std::size_t limit = scankit::detail::select_small_call_items;
  for (std::size_t n : {3 * small_call_tile<std::uint64_t> + 5, limit - 3, limit + 5}) {
    const std::uint64_t seed = case_seed("select/late_input/" + std::to_string(n));
    CAPTURE(n, seed);
    rng r(seed);
    const std::vector<std::uint64_t> in = make_runs<std::uint64_t>(n, 3.0, r);
    const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 50, r);
    device_buffer<std::uint64_t> d_src(n), d_in(n), d_out(n);
    device_buffer<std::uint32_t> d_lengths(n);
    device_buffer<std::uint8_t> d_flags(n);
    d_src.upload(in, stream);
    d_flags.upload(flags, stream);
    auto write_input_late = [&] {
      d_in.poison(stream);
      d_out.poison(stream);
      late_copy_kernel<<<8, 256, 0, stream>>>(d_src.data(), d_in.data(), n);
      REQUIRE(cudaGetLastError() == cudaSuccess);
    };
    const std::vector<std::uint64_t> uniques = reference_compact(in, reference_heads(in));

    write_input_late();
    std::size_t count = scankit::compact(ctx, d_in.data(), d_flags.data(), d_out.data(), n);
    check_selected(d_out.download(stream), count, reference_compact(in, flags), "compact");

    write_input_late();
    const auto pred = scankit::less(in[n / 2]);
    count = scankit::compact_if(ctx, d_in.data(), d_out.data(), n, pred);
    check_selected(d_out.download(stream), count, reference_compact(in, host_flags<std::uint64_t>(pred, in)),
                   "compact_if");

    write_input_late();
    count = scankit::partition(ctx, d_in.data(), d_flags.data(), d_out.data(), n);
    CHECK(count == reference_compact(in, flags).size());
    CHECK(d_out.download(stream) == reference_partition(in, flags));

    write_input_late();
    device_buffer<std::size_t> d_count(1);
    partition_with_pre_pass(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data());
    CHECK(d_count.download(stream)[0] == reference_compact(in, flags).size());
    CHECK(d_out.download(stream) == reference_partition(in, flags));

    write_input_late();
    count = scankit::unique(ctx, d_in.data(), d_out.data(), n);
    check_selected(d_out.download(stream), count, uniques, "unique");

    write_input_late();
    count = scankit::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n);
    check_selected(d_out.download(stream), count, uniques, "run_length_encode");
    const std::vector<std::uint64_t> lengths = reference_run_lengths(in);
    CHECK(d_lengths.download(stream, 0, count) == std::vector<std::uint32_t>(lengths.begin(), lengths.end()));
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("selection with misaligned pointers, n == 0, and under graph capture", "[gpu][select]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = 5 * select_tile<std::uint32_t> + 17;
  rng r(case_seed("select/contract"));
  const std::vector<std::uint32_t> in = make_input<std::uint32_t>(n, value_kind::full_range, r);
  const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 30, r);
  device_buffer<std::uint32_t> d_in(n + 4), d_out(n + 4);
  device_buffer<std::uint8_t> d_flags(n + 4);
  device_buffer<std::uint64_t> d_lengths(n);
  device_buffer<std::size_t> d_count(1);

  // Misaligned items and flags: the thread-load paths.
  for (std::size_t shift : {std::size_t(1), std::size_t(3)}) {
    CAPTURE(shift);
    d_in.upload(in, stream, shift);
    d_flags.upload(flags, stream, shift);
    d_out.poison(stream);
    const std::size_t count = scankit::compact(ctx, d_in.data() + shift, d_flags.data() + shift, d_out.data() + 1, n);
    const std::vector<std::uint32_t> expected = reference_compact(in, flags);
    REQUIRE(count == expected.size());
    CHECK(d_out.download(stream, 1, count) == expected);
    CHECK(is_poison(d_out.download(stream, 0, 1)[0]));
    // Partition counts first, reading the flags (or items) one at a time here.
    d_out.poison(stream);
    CHECK(scankit::partition(ctx, d_in.data() + shift, d_flags.data() + shift, d_out.data() + 1, n) == count);
    CHECK(d_out.download(stream, 1, n) == reference_partition(in, flags));
    std::vector<std::uint8_t> low(n);
    for (std::size_t i = 0; i < n; ++i) low[i] = in[i] < (1u << 31);
    d_out.poison(stream);
    const std::size_t low_count = scankit::partition_if(ctx, d_in.data() + shift, d_out.data() + 1, n,
                                                        scankit::less(std::uint32_t(1) << 31));
    CHECK(low_count == reference_compact(in, low).size());
    CHECK(d_out.download(stream, 1, n) == reference_partition(in, low));
    // Run-length encoding of runs of one to a few items, its heads to a
    // misaligned output (16-byte stores after the first items).
    std::vector<std::uint32_t> runs_in(n);
    for (std::size_t i = 0; i < n; ++i) runs_in[i] = in[i] % 3;
    d_in.upload(runs_in, stream, shift);
    d_out.poison(stream);
    d_lengths.poison(stream);
    const std::size_t runs =
        scankit::run_length_encode(ctx, d_in.data() + shift, d_out.data() + 1, d_lengths.data(), n);
    const std::vector<std::uint32_t> heads = reference_compact(runs_in, reference_heads(runs_in));
    REQUIRE(runs == heads.size());
    CHECK(d_out.download(stream, 1, runs) == heads);
    CHECK(is_poison(d_out.download(stream, 0, 1)[0]));
    CHECK(is_poison(d_out.download(stream, 1 + runs, 1)[0]));
    CHECK(d_lengths.download(stream, 0, runs) == reference_run_lengths(runs_in));
  }

  // n == 0: count 0, async count written, nothing else touched.
  d_count.poison(stream);
  CHECK(scankit::compact(ctx, d_in.data(), d_flags.data(), d_out.data(), 0) == 0);
  scankit::compact_async(ctx, d_in.data(), d_flags.data(), d_out.data(), 0, d_count.data());
  CHECK(read_device_count(d_count, stream) == 0);

  // Graph capture of the async twin, replayed on fresh flags.
  d_in.upload(in, stream);
  replay_on_fresh_flags(
      stream, n, d_flags, d_out, d_count, r,
      [&] { scankit::compact_async(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data()); },
      [&](const std::vector<std::uint8_t>& fresh, std::size_t count) {
        const std::vector<std::uint32_t> expected = reference_compact(in, fresh);
        REQUIRE(count == expected.size());
        CHECK(d_out.download(stream, 0, count) == expected);
      });

  // Partition under capture: its count runs in the selection launch
  // itself, a cooperative kernel node (the pre-pass under capture:
  // the test case on partition's count).
  replay_on_fresh_flags(
      stream, n, d_flags, d_out, d_count, r,
      [&] { scankit::partition_async(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data()); },
      [&](const std::vector<std::uint8_t>& fresh, std::size_t count) {
        REQUIRE(count == reference_compact(in, fresh).size());
        CHECK(d_out.download(stream, 0, n) == reference_partition(in, fresh));
      });
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 7. template API: custom types and functors ------------------------------------------

struct particle {
  float x, y;
  std::int32_t cell;
  std::uint32_t id;
};
// 24 bytes: more than the 16 of a vector, so the item before a tile takes
// two 16-byte lines of its buffer.
struct weighted_particle {
  float x, y;
  std::int32_t cell;
  std::uint32_t id;
  double weight;
};

struct alive {
  template <class P>
  __device__ bool operator()(const P& p) const { return p.x * p.x + p.y * p.y < 1.0f; }
};
struct odd_id {
  template <class P>
  __device__ bool operator()(const P& p) const { return p.id % 2 == 1; }
};
struct same_cell {
  template <class P>
  __device__ bool operator()(const P& a, const P& b) const { return a.cell == b.cell; }
};

/// The template API on custom items: compact_if, unique, partition_if and
/// run_length_encode with user functors, against the host reference. Cells
/// change at random, and at every tile boundary B the last item before it
/// starts a cell of its own that item B continues, so a tile that compared
/// its first item with anything but item B - 1 would make B a head.
template <class P>
void template_api_case(scankit::context& ctx, cuda_stream& stream, std::size_t n) {
  const std::uint64_t seed = case_seed("select/template/" + std::to_string(sizeof(P)) + "/" + std::to_string(n));
  CAPTURE(sizeof(P), n, seed);
  rng r(seed);
  std::vector<P> in(n);
  std::int32_t cell = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t in_tile = i % select_tile<P>;
    if (in_tile == select_tile<P> - 1 || (in_tile != 0 && r.below(4) == 0)) ++cell;
    // Multiples of 2^-10: x·x + y·y is exact in float, so the device (which
    // may fuse it into an FMA) and the host agree on every comparison.
    in[i] = P{float(r.below(2048)) / 1024.f - 1.f, float(r.below(2048)) / 1024.f - 1.f, cell, std::uint32_t(i)};
    if constexpr (std::is_same_v<P, weighted_particle>) in[i].weight = double(r.below(1000));
  }
  device_buffer<P> d_in(n), d_out(n);
  device_buffer<std::size_t> d_count(1);
  d_in.upload(in, stream);

  std::vector<std::uint8_t> live(n), heads(n);
  for (std::size_t i = 0; i < n; ++i) {
    live[i] = in[i].x * in[i].x + in[i].y * in[i].y < 1.0f;
    heads[i] = i == 0 || in[i - 1].cell != in[i].cell;
  }
  d_out.poison(stream);
  const std::size_t kept = scankit::device::compact_if(ctx, d_in.data(), d_out.data(), n, alive{});
  check_selected(d_out.download(stream), kept, reference_compact(in, live), "compact_if(alive)");

  d_out.poison(stream);
  scankit::device::unique_async(ctx, d_in.data(), d_out.data(), n, d_count.data(), same_cell{});
  const std::size_t cells = read_device_count(d_count, stream);
  check_selected(d_out.download(stream), cells, reference_compact(in, heads), "unique(same_cell)");

  // A stable partition (odd ids in order, then even ids in order), and a
  // run_length_encode with a custom equality.
  d_out.poison(stream);
  const std::size_t odd = scankit::device::partition_if(ctx, d_in.data(), d_out.data(), n, odd_id{});
  CHECK(odd == n / 2);
  std::vector<std::uint8_t> odd_ids(n);
  for (std::size_t i = 0; i < n; ++i) odd_ids[i] = in[i].id % 2 == 1;
  check_selected(d_out.download(stream), n, reference_partition(in, odd_ids), "partition_if(odd_id)");
  device_buffer<std::uint32_t> d_lengths(n);
  d_out.poison(stream);
  const std::size_t runs =
      scankit::device::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n, same_cell{});
  CHECK(runs == cells);
  check_selected(d_out.download(stream), runs, reference_compact(in, heads), "run_length_encode(same_cell)");
  std::vector<std::uint32_t> lengths;
  for (std::size_t i = 0; i < n; ++i) {
    if (heads[i]) lengths.push_back(0);
    ++lengths.back();
  }
  CHECK(d_lengths.download(stream, 0, runs) == lengths);
}

TEMPLATE_TEST_CASE("template API: custom item types, predicates and equality", "[gpu][select][sanitize]", particle,
                   weighted_particle) {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(20011)}) template_api_case<TestType>(ctx, stream, n);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEMPLATE_TEST_CASE("template API: custom items over several tiles per block", "[gpu][select]", particle,
                   weighted_particle) {
  // 1024 tiles: several per block of the persistent grid (two blocks per SM),
  // so every tile buffer and the pipeline between them carry these items.
  cuda_stream stream;
  scankit::context ctx(stream);
  template_api_case<TestType>(ctx, stream, 1024 * select_tile<TestType> + 5);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

/// run_length_encode of small items (template API) against the host
/// reference: with every item a head, a tile's head positions (4 bytes each)
/// do not fit its buffer of 1- or 2-byte items at once and go out in pieces.
template <class T, class Length>
void small_item_rle_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, unsigned head_percent) {
  const std::uint64_t seed = case_seed("select/small-rle/" + std::to_string(sizeof(T)) + "/" +
                                       std::to_string(sizeof(Length)) + "/" + std::to_string(n) + "/" +
                                       std::to_string(head_percent));
  CAPTURE(sizeof(T), sizeof(Length), n, head_percent, seed);
  rng r(seed);
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i)
    in[i] = i == 0 ? T(r.below(100)) : r.below(100) < head_percent ? T(in[i - 1] + 1 + r.below(7)) : in[i - 1];
  const std::vector<std::uint8_t> heads = reference_heads(in);
  const std::vector<std::uint64_t> lengths = reference_run_lengths(in);
  device_buffer<T> d_in(n), d_out(n);
  device_buffer<Length> d_lengths(n);
  d_in.upload(in, stream);
  d_out.poison(stream);
  d_lengths.poison(stream);
  const std::size_t runs = scankit::device::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n);
  check_selected(d_out.download(stream), runs, reference_compact(in, heads), "run heads");
  const std::vector<Length> got = d_lengths.download(stream, 0, runs);
  REQUIRE(got.size() == lengths.size());
  std::size_t mismatches = 0, first = 0;
  for (std::size_t k = 0; k < runs; ++k)
    if (std::uint64_t(got[k]) != lengths[k] && mismatches++ == 0) first = k;
  INFO("first mismatch at run " << first);
  CHECK(mismatches == 0);
}

TEST_CASE("run_length_encode of 1- and 2-byte items writes its lengths in pieces", "[gpu][select][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (unsigned percent : {100u, 97u, 50u}) {
    small_item_rle_case<std::uint8_t, std::uint32_t>(ctx, stream, 3 * select_tile<std::uint8_t> + 11, percent);
    small_item_rle_case<std::uint8_t, std::uint64_t>(ctx, stream, 2 * select_tile<std::uint8_t> - 1, percent);
    small_item_rle_case<std::uint16_t, std::uint32_t>(ctx, stream, 3 * select_tile<std::uint16_t> + 5, percent);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 8. every scan policy ----------------------------------------------------------------

TEST_CASE("every scan policy gives the same compaction, partition, unique and run lengths", "[gpu][select][policy]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (const scan_policy& policy : scankit::all_scan_policies()) {
    const std::string policy_name = std::string(scankit::to_string(policy.grid)) + "/" + scankit::to_string(policy.block);
    for (std::size_t n : {std::size_t(1), std::size_t(1000), 3 * select_tile<std::uint32_t> + 5, std::size_t(200003)}) {
      if (policy.grid == grid_strategy::chained && n > 100000) continue;  // serial by design; small sizes suffice
      const std::uint64_t seed = case_seed("select/policy/" + policy_name + "/" + std::to_string(n));
      CAPTURE(policy_name, n, seed);
      rng r(seed);
      const std::vector<std::int64_t> in = make_runs<std::int64_t>(n, 2.5, r);
      const std::vector<std::uint8_t> flags = make_flags<std::uint8_t>(n, 50, r);
      device_buffer<std::int64_t> d_in(n), d_out(n);
      device_buffer<std::uint8_t> d_flags(n);
      device_buffer<std::uint64_t> d_lengths(n);
      device_buffer<std::size_t> d_count(1);
      d_in.upload(in, stream);
      d_flags.upload(flags, stream);

      d_out.poison(stream);
      const std::size_t kept = scankit::compact(ctx, d_in.data(), d_flags.data(), d_out.data(), n, policy);
      check_selected(d_out.download(stream), kept, reference_compact(in, flags), "compact");

      d_out.poison(stream);
      scankit::partition_async(ctx, d_in.data(), d_flags.data(), d_out.data(), n, d_count.data(), policy);
      CHECK(read_device_count(d_count, stream) == kept);
      check_selected(d_out.download(stream), n, reference_partition(in, flags), "partition");

      d_out.poison(stream);
      d_lengths.poison(stream);
      const std::size_t runs = scankit::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n, policy);
      check_selected(d_out.download(stream), runs, reference_compact(in, reference_heads(in)), "run heads");
      check_selected(d_lengths.download(stream), runs, reference_run_lengths(in), "run lengths");

      // In place under the textbook path too.
      const std::size_t uniques = scankit::unique(ctx, d_in.data(), d_in.data(), n, policy);
      check_selected(d_in.download(stream, 0, uniques), uniques, reference_compact(in, reference_heads(in)),
                     "unique in place");
    }
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("partition takes the smaller of two tilings only where the busiest block gains 5 %", "[select]") {
  namespace sd = scankit::detail;
  // Tiles of 4-byte items by byte flags (512 × 2, 448 × 3 and 448 × 4) on 132 SMs.
  constexpr std::size_t shorter = partition_short_tile<std::uint32_t>;
  constexpr std::size_t small = small_call_flagged_tile<std::uint32_t>, tile = flagged_tile<std::uint32_t>;
  STATIC_REQUIRE(shorter == 4096);
  STATIC_REQUIRE(small == 5376);
  STATIC_REQUIRE(tile == 7168);
  STATIC_REQUIRE(sd::has_partition_short_tiles<std::uint32_t, 1>);
  STATIC_REQUIRE_FALSE(sd::has_partition_short_tiles<std::uint64_t, 1>);
  STATIC_REQUIRE_FALSE(sd::has_partition_short_tiles<std::uint32_t, 0>);
  constexpr std::size_t blocks = 132 * sd::select_blocks_per_sm;
  // 1 171 tiles of 7 168: ranges of 4 and 5 tiles; 1 561 of 5 376: of 5 and 6.
  STATIC_REQUIRE(sd::busiest_block_items(std::size_t(1) << 23, tile, blocks) == 5 * tile);
  STATIC_REQUIRE(sd::busiest_block_items(std::size_t(1) << 23, small, blocks) == 6 * small);
  STATIC_REQUIRE(sd::busiest_block_items(blocks * tile, tile, blocks) == tile);  // one tile each
  STATIC_REQUIRE(sd::busiest_block_items(blocks * tile + 1, tile, blocks) == 2 * tile);
  CHECK(sd::partition_takes_smaller_tiles(std::size_t(1) << 23, small, blocks, tile, blocks));  // 10 % fewer
  for (std::size_t n : {std::size_t(3) << 22, std::size_t(3) << 23, std::size_t(1) << 24, std::size_t(1) << 30}) {
    CAPTURE(n);  // 3.6 %, 3.6 %, none, 0.04 % fewer: below the margin
    CHECK_FALSE(sd::partition_takes_smaller_tiles(n, small, blocks, tile, blocks));
  }
  CHECK_FALSE(sd::partition_takes_smaller_tiles(std::size_t(1) << 23, tile, blocks, tile, blocks));  // same tiles
  // Below select_small_call_items: the short tiles where a block has one
  // (24 % fewer) and at 2^21 (two of 4 096 instead of two of 5 376, 24 %
  // fewer); not at 2^22 (4 of 4 096 against 3 of 5 376: more) nor just below 2^23.
  for (std::size_t n : {std::size_t(1), std::size_t(1) << 16, std::size_t(1) << 20, std::size_t(1) << 21}) {
    CAPTURE(n);
    CHECK(sd::partition_takes_smaller_tiles(n, shorter, blocks, small, blocks));
  }
  for (std::size_t n : {std::size_t(1) << 22, sd::select_small_call_items - 1}) {
    CAPTURE(n);
    CHECK_FALSE(sd::partition_takes_smaller_tiles(n, shorter, blocks, small, blocks));
  }
}

// ---- 9. bad arguments (host: nothing is launched) -------------------------------------------

TEST_CASE("selection rejects bad arguments before any launch", "[select]") {
  scankit::context ctx;
  // Fake device addresses, far apart; never dereferenced (every call throws first).
  auto* a = reinterpret_cast<std::uint32_t*>(std::uintptr_t(1) << 40);
  auto* b = reinterpret_cast<std::uint32_t*>(std::uintptr_t(2) << 40);
  auto* flags = reinterpret_cast<std::uint8_t*>(std::uintptr_t(3) << 40);
  auto* values = reinterpret_cast<double*>(std::uintptr_t(4) << 40);
  auto* lengths = reinterpret_cast<std::uint32_t*>(std::uintptr_t(6) << 40);
  std::uint32_t* null = nullptr;
  const std::size_t n = 1000;
  using std::invalid_argument;

  CHECK_THROWS_AS(scankit::compact(ctx, null, flags, b, n), invalid_argument);
  CHECK_THROWS_AS(scankit::compact(ctx, a, static_cast<std::uint8_t*>(nullptr), b, n), invalid_argument);
  CHECK_THROWS_AS(scankit::compact(ctx, a, flags, null, n), invalid_argument);
  CHECK_THROWS_AS(scankit::compact(ctx, a, flags, a + 1, n), invalid_argument);  // partial overlap
  CHECK_THROWS_AS(scankit::compact(ctx, a, reinterpret_cast<std::uint8_t*>(b), b, n), invalid_argument);  // flags under output
  CHECK_THROWS_AS(scankit::compact_async(ctx, a, flags, b, n, nullptr), invalid_argument);
  CHECK_THROWS_AS(scankit::partition(ctx, a, flags, a, n), invalid_argument);  // no in-place partition
  CHECK_THROWS_AS(scankit::partition_if(ctx, a, a + 10, n, scankit::greater(1)), invalid_argument);
  CHECK_THROWS_AS(scankit::compact_pairs(ctx, a, values, flags, b, values, n), invalid_argument);  // values in place
  CHECK_THROWS_AS(scankit::compact_pairs(ctx, a, values, flags, b, static_cast<double*>(nullptr), n), invalid_argument);
  CHECK_THROWS_AS(scankit::compact_pairs(ctx, a, values, flags, b, reinterpret_cast<double*>(b), n), invalid_argument);
  CHECK_THROWS_AS(scankit::run_length_encode(ctx, a, b, reinterpret_cast<std::uint32_t*>(b), n), invalid_argument);
  CHECK_THROWS_AS(scankit::run_length_encode(ctx, a, b, static_cast<std::uint32_t*>(nullptr), n), invalid_argument);
  CHECK_THROWS_AS(scankit::unique_async(ctx, a, b, n, nullptr), invalid_argument);
  // A predicate of an unknown kind: the error names the call.
  const scankit::predicate<std::uint32_t> unknown{static_cast<scankit::compare>(99), 0, 0};
  const auto unknown_kind_in = [](const char* call) {
    return Catch::Contains(std::string("scankit::") + call + ": predicate of an unknown compare kind");
  };
  CHECK_THROWS_AS(scankit::compact_if(ctx, a, b, n, unknown), invalid_argument);
  CHECK_THROWS_WITH(scankit::compact_if(ctx, a, b, n, unknown), unknown_kind_in("compact_if"));
  CHECK_THROWS_WITH(scankit::partition_if(ctx, a, b, n, unknown), unknown_kind_in("partition_if"));
  CHECK_THROWS_WITH(scankit::compact_if_async(ctx, a, b, n, unknown, reinterpret_cast<std::size_t*>(lengths)),
                    unknown_kind_in("compact_if_async"));
  CHECK_THROWS_WITH(scankit::compact_pairs_if(ctx, a, values, b, reinterpret_cast<double*>(b + n), n, unknown),
                    unknown_kind_in("compact_pairs_if"));
  // uint32 run lengths cannot hold a run of 2^32 items.
  CHECK_THROWS_AS(scankit::run_length_encode(ctx, a, reinterpret_cast<std::uint32_t*>(std::uintptr_t(1) << 46), lengths,
                                             std::size_t(1) << 32),
                  invalid_argument);
  // A policy with bad sizes is rejected even for n == 0.
  const scan_policy bad{grid_strategy::reduce_then_scan, block_algorithm::kogge_stone, 2000, 0};
  CHECK_THROWS_AS(scankit::compact(ctx, a, flags, b, 0, bad), invalid_argument);
  CHECK_THROWS_AS(scankit::unique(ctx, a, b, n, bad), invalid_argument);
  // Error messages name the call.
  try {
    scankit::partition(ctx, a, flags, a, n);
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("scankit::partition") != std::string::npos);
  }
}

// ---- 10. [large]: several launches ----------------------------------------------------------

__host__ __device__ inline std::uint32_t large_item(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + i * 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return std::uint32_t(z ^ (z >> 31));
}
/// Runs of 1..16 equal items: item i's value is the hash of its run number.
__host__ __device__ inline std::uint32_t large_run_item(std::uint64_t seed, std::uint64_t i) {
  return large_item(seed, i / 16 * 2 + (large_item(seed ^ 1, i / 16) % 16 <= i % 16 ? 1 : 0));
}

__global__ void fill_large(std::uint32_t* d, std::size_t n, std::uint64_t seed, bool runs) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = runs ? large_run_item(seed, i) : large_item(seed, i);
}

/// Byte flags, about a third set.
__host__ __device__ inline std::uint8_t large_flag(std::uint64_t seed, std::uint64_t i) {
  return large_item(seed ^ 2, i) % 3 == 0;
}
__global__ void fill_large_flags(std::uint8_t* d, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    d[i] = large_flag(seed, i);
}

TEST_CASE("compact_if, compact, partition_if and run_length_encode past 2^31 items (several launches)",
          "[gpu][large][select]") {
  const std::size_t n = (std::size_t(1) << 31) + 3 * select_tile<std::uint32_t> + 12345;
  REQUIRE(n > scankit::detail::select_chunk_items(select_tile<std::uint32_t>));
  REQUIRE(n > scankit::detail::select_chunk_items(wide_flagged_tile<std::uint32_t>));
  const std::uint64_t seed = case_seed("select/large");
  CAPTURE(n, seed);
  cuda_stream stream;
  scankit::context ctx(stream);
  device_buffer<std::uint32_t> d_in(n), d_out(n);
  device_buffer<std::uint64_t> d_lengths(n);  // room for n runs, as the contract asks
  device_buffer<std::size_t> d_count(1);

  // compact_if: keep items below 2^31 (about half), checked in full.
  fill_large<<<4096, 256, 0, stream>>>(d_in.data(), n, seed, false);
  SKTEST_CUDA(cudaGetLastError());
  scankit::compact_if_async(ctx, d_in.data(), d_out.data(), n, scankit::less(std::uint32_t(1) << 31), d_count.data());
  const std::size_t kept = read_device_count(d_count, stream);
  {
    const std::vector<std::uint32_t> got = d_out.download(stream, 0, kept);
    std::size_t k = 0, bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t x = large_item(seed, i);
      if (x < (std::uint32_t(1) << 31)) bad += k >= kept || got[k++] != x;
    }
    CHECK(k == kept);
    CHECK(bad == 0);
  }

  // compact by byte flags (the tiles of one block per SM), checked in full.
  {
    device_buffer<std::uint8_t> d_flags(n);
    fill_large_flags<<<4096, 256, 0, stream>>>(d_flags.data(), n, seed);
    SKTEST_CUDA(cudaGetLastError());
    d_out.poison(stream);
    const std::size_t flagged = scankit::compact(ctx, d_in.data(), d_flags.data(), d_out.data(), n);
    const std::vector<std::uint32_t> got = d_out.download(stream, 0, flagged);
    std::size_t k = 0, bad = 0;
    for (std::size_t i = 0; i < n; ++i)
      if (large_flag(seed, i)) bad += k >= flagged || got[k++] != large_item(seed, i);
    CHECK(k == flagged);
    CHECK(bad == 0);
  }

  // partition_if, same predicate: every launch places its rejected items
  // after the count of the whole input. Checked in full.
  const std::size_t front =
      scankit::partition_if(ctx, d_in.data(), d_out.data(), n, scankit::less(std::uint32_t(1) << 31));
  CHECK(front == kept);
  {
    const std::vector<std::uint32_t> got = d_out.download(stream);
    std::size_t selected = 0, rejected = front, bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t x = large_item(seed, i);
      if (x < (std::uint32_t(1) << 31)) bad += selected >= front || got[selected++] != x;
      else bad += rejected >= n || got[rejected++] != x;
    }
    CHECK(selected == front);
    CHECK(rejected == n);
    CHECK(bad == 0);
  }

  // Run-length encoding with runs crossing the launch boundary, checked in full.
  fill_large<<<4096, 256, 0, stream>>>(d_in.data(), n, seed, true);
  SKTEST_CUDA(cudaGetLastError());
  const std::size_t runs = scankit::run_length_encode(ctx, d_in.data(), d_out.data(), d_lengths.data(), n);
  const std::vector<std::uint32_t> heads = d_out.download(stream, 0, runs);
  const std::vector<std::uint64_t> lengths = d_lengths.download(stream, 0, runs);
  std::size_t r = 0, bad = 0;
  for (std::size_t i = 0; i < n;) {
    const std::uint32_t x = large_run_item(seed, i);
    std::size_t j = i + 1;
    while (j < n && large_run_item(seed, j) == x) ++j;
    bad += r >= runs || heads[r] != x || lengths[r] != j - i;
    ++r;
    i = j;
  }
  CHECK(r == runs);
  CHECK(bad == 0);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

}  // namespace select_tests
