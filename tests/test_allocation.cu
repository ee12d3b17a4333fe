// tests/test_allocation.cu — allocation offsets (scankit::allocation_offsets
// and allocation_offsets_async): n + 1 offsets, the total in d_offsets[n].
//
//   * every host size → offset pair (uint32→uint32, uint32→uint64,
//     uint64→uint64, int32→int32, int32→int64, int64→int64), random sizes
//     with about a quarter zeros, at n = 1, 31, 32, 33, tile−1, tile, tile+1,
//     2·tile±1, 33·tile+1, 100·tile+1 (look-back past 32 tiles), a prime,
//     random sizes, 2^20 and 2^24 (tile = the default scan tile of the OFFSET
//     type, read from the tuning: now 384·8·4 = 12288 items for 4-byte and
//     256·12·2 = 6144 for 8-byte offsets);
//   * the three ways to call: synchronous (returns the total), async with
//     total_timing::with_offsets and total_timing::first, both with the total
//     in pinned host memory and a total_ready event: after
//     cudaEventSynchronize the pinned total must already be right, and a
//     second stream that waits for the event reads the total in d_offsets[n];
//   * oracles: a host reference with an explicit uint64 accumulator, and
//     thrust::exclusive_scan + thrust::reduce (widening through a transform
//     iterator) on the same device sizes; outputs poisoned, with poisoned
//     guard bands around d_offsets that must stay untouched;
//   * n == 0 writes offsets[0] = 0 (also with null sizes); totals past 2^32
//     with widening pairs (exact) and wrapping same-width pairs; in place
//     (d_offsets == d_sizes with room for n + 1); misaligned pointers; CUDA
//     graph capture;
//   * bad arguments (host test, no GPU needed): null pointers, overlapping
//     sizes/offsets (including the same pointer with different widths), n too
//     large — std::invalid_argument naming the call, before any device access.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include "support/rejection.hpp"
#include "support/segments.hpp"

#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/scankit.hpp>

#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace allocation_tests {

using namespace sktest;
using scankit::total_timing;

/// Items per tile of the allocation scan: the default scan tile of the offset type.
template <class O>
constexpr std::size_t alloc_tile = scankit::detail::tile_items<O, scankit::detail::default_scan_tuning<O>>;


enum class call_kind { sync, async_with_offsets, async_first };

inline const char* to_string(call_kind k) {
  switch (k) {
    case call_kind::sync: return "sync";
    case call_kind::async_with_offsets: return "async/with_offsets";
    case call_kind::async_first: return "async/first";
  }
  return "?";
}

constexpr call_kind all_calls[] = {call_kind::sync, call_kind::async_with_offsets, call_kind::async_first};

// ---- plumbing: pinned host value, event -------------------------------------------

/// One T in pinned host memory (the device writes the total there).
template <class T>
class pinned_value {
 public:
  pinned_value() { SKTEST_CUDA(cudaMallocHost(reinterpret_cast<void**>(&p_), sizeof(T))); }
  ~pinned_value() {
    if (p_ != nullptr) CHECK(cudaFreeHost(p_) == cudaSuccess);
  }
  pinned_value(const pinned_value&) = delete;
  pinned_value& operator=(const pinned_value&) = delete;
  T* get() const noexcept { return p_; }
  void poison() { std::memset(static_cast<void*>(p_), poison_byte, sizeof(T)); }
  /// Reads the value as the device left it (volatile: no cached copy).
  T read() const {
    T v;
    const volatile unsigned char* src = reinterpret_cast<const volatile unsigned char*>(p_);
    unsigned char bytes[sizeof(T)];
    for (std::size_t i = 0; i < sizeof(T); ++i) bytes[i] = src[i];
    std::memcpy(&v, bytes, sizeof(T));
    return v;
  }

 private:
  T* p_ = nullptr;
};

class cuda_event {
 public:
  cuda_event() { SKTEST_CUDA(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming)); }
  ~cuda_event() {
    if (e_ != nullptr) CHECK(cudaEventDestroy(e_) == cudaSuccess);
  }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  operator cudaEvent_t() const noexcept { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

// ---- data and references ------------------------------------------------------------

template <class T>
constexpr const char* int_name() {
  return type_name<T>();
}

/// n sizes: zero with probability 1/4, else 1 .. max_size; never all zero.
template <class S>
std::vector<S> make_sizes(std::size_t n, std::uint64_t max_size, rng& r) {
  std::vector<S> sizes(n);
  bool any = false;
  for (auto& s : sizes) {
    s = r.below(4) == 0 ? S(0) : S(1 + r.below(max_size));
    any |= s != S(0);
  }
  if (n > 0 && !any) sizes[r.below(n)] = S(1);
  return sizes;
}

/// Largest size such that n of them keep the total within O (no wrap): at
/// most 1000 (many distinct small values).
template <class O>
std::uint64_t max_size_for(std::size_t n) {
  const std::uint64_t limit = std::uint64_t(std::numeric_limits<O>::max()) / std::max<std::size_t>(n, 1);
  return std::max<std::uint64_t>(1, std::min<std::uint64_t>(1000, limit));
}

/// The host reference: offsets[i] = sizes[0] + ... + sizes[i-1], i = 0 .. n,
/// summed in an explicit uint64 accumulator (exact: sizes are non-negative and
/// every test total is below 2^63) and then taken mod 2^bits(O) — the wrap
/// allocation.hpp documents for sums that overflow the offset type.
template <class S, class O>
std::vector<O> reference_offsets(const std::vector<S>& sizes, std::uint64_t* exact_total = nullptr) {
  std::vector<O> out(sizes.size() + 1);
  std::uint64_t acc = 0;
  std::size_t negative = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out[i] = O(std::make_unsigned_t<O>(acc));
    if constexpr (std::is_signed_v<S>) negative += sizes[i] < S(0);
    acc += std::uint64_t(sizes[i]);
  }
  REQUIRE(negative == 0);  // the test data has no negative sizes
  out[sizes.size()] = O(std::make_unsigned_t<O>(acc));
  if (exact_total != nullptr) *exact_total = acc;
  return out;
}

template <class O>
struct widen {
  template <class S>
  __host__ __device__ O operator()(const S& s) const {
    return O(s);
  }
};

/// Thrust oracle on the same device sizes: offsets[0, n) by exclusive_scan
/// and the total by reduce, both in O (sizes widened by a transform iterator).
/// Only for sums that do not overflow O.
template <class S, class O>
std::pair<std::vector<O>, O> thrust_offsets(cudaStream_t stream, const S* d_sizes, std::size_t n) {
  device_buffer<O> d_out(n);
  d_out.poison(stream);
  const auto first = thrust::make_transform_iterator(d_sizes, widen<O>{});
  thrust::exclusive_scan(thrust::cuda::par.on(stream), first, first + n, d_out.data(), O(0), thrust::plus<O>{});
  const O total = thrust::reduce(thrust::cuda::par.on(stream), first, first + n, O(0), thrust::plus<O>{});
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  return {d_out.download(stream), total};
}

// ---- one call, checked ------------------------------------------------------------------

/// Runs allocation offsets of `sizes` (already in d_sizes) into d_offsets the
/// way `kind` says, returning the total as the call reports it: the return
/// value (sync) or the pinned total read right after cudaEventSynchronize of
/// total_ready (async). For async calls a second stream that waits for the
/// event also reads d_offsets[n] (into *total_after_event).
template <class S, class O>
O run_allocation(scankit::context& ctx, cudaStream_t stream, call_kind kind, const S* d_sizes, std::size_t n,
                 O* d_offsets, O* total_after_event = nullptr) {
  if (kind == call_kind::sync) {
    const O total = scankit::allocation_offsets(ctx, d_sizes, n, d_offsets);
    SKTEST_CUDA(cudaGetLastError());
    return total;
  }
  pinned_value<O> h_total;
  h_total.poison();
  cuda_event ready;
  cuda_stream other;
  const total_timing timing = kind == call_kind::async_first ? total_timing::first : total_timing::with_offsets;
  scankit::allocation_offsets_async(ctx, d_sizes, n, d_offsets, h_total.get(), ready, timing);
  SKTEST_CUDA(cudaGetLastError());
  SKTEST_CUDA(cudaEventSynchronize(ready));
  const O total = h_total.read();  // must be there now, before the stream is synchronized
  if (total_after_event != nullptr) {
    // A consumer on another stream: waits for the event, then reads the total
    // in device memory.
    pinned_value<O> h_seen;
    h_seen.poison();
    SKTEST_CUDA(cudaStreamWaitEvent(other, ready, 0));
    SKTEST_CUDA(cudaMemcpyAsync(h_seen.get(), d_offsets + n, sizeof(O), cudaMemcpyDeviceToHost, other));
    other.synchronize();
    *total_after_event = h_seen.read();
  }
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  return total;
}

/// One case: n fresh sizes, one call of `kind`, checked against the host
/// reference (offsets, total, untouched guards) and, if with_thrust, Thrust.
template <class S, class O>
void allocation_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, call_kind kind, bool with_thrust,
                     std::uint64_t max_size = 0) {
  if (max_size == 0) max_size = max_size_for<O>(n);
  const std::uint64_t seed = case_seed(std::string("allocation/") + int_name<S>() + "->" + int_name<O>() + "/" +
                                       std::to_string(n) + "/" + std::to_string(max_size));
  const char* call = to_string(kind);
  CAPTURE(int_name<S>(), int_name<O>(), n, call, max_size, seed);
  rng r(seed);
  const std::vector<S> sizes = make_sizes<S>(n, max_size, r);
  std::uint64_t exact_total = 0;
  const std::vector<O> expected = reference_offsets<S, O>(sizes, &exact_total);
  CAPTURE(exact_total);

  device_buffer<S> d_sizes(n);
  d_sizes.upload(sizes, stream);
  guarded_buffer<O> d_offsets(n + 1);
  d_offsets.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));

  O seen_by_other = O(0);
  const O total = run_allocation(ctx, stream, kind, d_sizes.data(), n, d_offsets.data(),
                                 kind == call_kind::sync ? nullptr : &seen_by_other);
  CHECK(total == expected[n]);
  if (kind != call_kind::sync) CHECK(seen_by_other == expected[n]);
  const std::vector<O> got = d_offsets.download(stream);
  SKTEST_CHECK_EXACT(got, expected, same_bits_fn{}, "scankit offsets vs host reference");
  CHECK(d_offsets.guards_touched(stream) == 0);

  if (with_thrust) {
    const auto [thrust_scan, thrust_total] = thrust_offsets<S, O>(stream, d_sizes.data(), n);
    CHECK(thrust_total == total);
    const std::vector<O> got_n(got.begin(), got.end() - 1);
    SKTEST_CHECK_EXACT(got_n, thrust_scan, same_bits_fn{}, "scankit offsets vs thrust::exclusive_scan");
    const std::vector<O> expected_n(expected.begin(), expected.end() - 1);
    SKTEST_CHECK_EXACT(thrust_scan, expected_n, same_bits_fn{}, "thrust::exclusive_scan vs host reference (the oracle)");
  }
}

/// The sizes of the brief around the scan tile of O; the two random ones come
/// from the run seed.
template <class S, class O>
std::vector<std::size_t> allocation_sizes() {
  const std::size_t t = alloc_tile<O>;
  std::vector<std::size_t> sizes{1,         31,        32,          33,         t - 1,  t,
                                 t + 1,     2 * t - 1, 2 * t + 1,   33 * t + 1, 100 * t + 1, 1000003,
                                 std::size_t(1) << 20};
  rng r(case_seed(std::string("allocation/sizes/") + int_name<S>() + "->" + int_name<O>()));
  for (int i = 0; i < 2; ++i) sizes.push_back(1 + r.below(2'000'000));
  return sizes;
}

// The six host pairs.
using u32_u32 = std::pair<std::uint32_t, std::uint32_t>;
using u32_u64 = std::pair<std::uint32_t, std::uint64_t>;
using u64_u64 = std::pair<std::uint64_t, std::uint64_t>;
using i32_i32 = std::pair<std::int32_t, std::int32_t>;
using i32_i64 = std::pair<std::int32_t, std::int64_t>;
using i64_i64 = std::pair<std::int64_t, std::int64_t>;

// ---- 1. every pair, every call kind, every size ---------------------------------------------

TEMPLATE_TEST_CASE("allocation offsets equal the host reference and thrust::exclusive_scan", "[gpu][allocation]",
                   u32_u32, u32_u64, u64_u64, i32_i32, i32_i64, i64_i64) {
  using S = typename TestType::first_type;
  using O = typename TestType::second_type;
  cuda_stream stream;
  scankit::context ctx(stream);
  for (std::size_t n : allocation_sizes<S, O>())
    for (call_kind kind : all_calls) allocation_case<S, O>(ctx, stream, n, kind, /*with_thrust=*/true);
  // 2^24: every call kind, Thrust once.
  const std::size_t big = std::size_t(1) << 24;
  for (call_kind kind : all_calls) allocation_case<S, O>(ctx, stream, big, kind, kind == call_kind::sync);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 2. n == 0 -------------------------------------------------------------------------------

template <class S, class O>
void zero_case(scankit::context& ctx, cuda_stream& stream) {
  CAPTURE(int_name<S>(), int_name<O>());
  guarded_buffer<O> d_offsets(1);
  device_buffer<S> d_sizes(4);
  for (call_kind kind : all_calls) {
    for (const S* sizes : {static_cast<const S*>(nullptr), static_cast<const S*>(d_sizes.data())}) {
      CAPTURE(to_string(kind), sizes == nullptr);
      d_offsets.poison(stream);
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      O seen = O(1);
      const O total = run_allocation(ctx, stream, kind, sizes, 0, d_offsets.data(), kind == call_kind::sync ? nullptr : &seen);
      CHECK(total == O(0));
      if (kind != call_kind::sync) CHECK(seen == O(0));
      CHECK(d_offsets.download(stream) == std::vector<O>{O(0)});
      CHECK(d_offsets.guards_touched(stream) == 0);
    }
  }
  // The async call with neither h_total nor event.
  d_offsets.poison(stream);
  scankit::allocation_offsets_async(ctx, static_cast<const S*>(nullptr), 0, d_offsets.data());
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(d_offsets.download(stream) == std::vector<O>{O(0)});
}

TEST_CASE("allocation offsets of n == 0 write offsets[0] = 0 and a zero total", "[gpu][allocation][sanitize]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  zero_case<std::uint32_t, std::uint32_t>(ctx, stream);
  zero_case<std::uint32_t, std::uint64_t>(ctx, stream);
  zero_case<std::uint64_t, std::uint64_t>(ctx, stream);
  zero_case<std::int32_t, std::int32_t>(ctx, stream);
  zero_case<std::int32_t, std::int64_t>(ctx, stream);
  zero_case<std::int64_t, std::int64_t>(ctx, stream);
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("allocation offsets of n == 0 still need d_offsets (one entry)", "[allocation]") {
  // allocation.hpp: d_offsets always has n + 1 >= 1 entries, so a null one is
  // rejected before any launch even for n == 0 (no device needed).
  scankit::context ctx;
  CHECK_THROWS_AS(scankit::allocation_offsets(ctx, static_cast<const std::uint32_t*>(nullptr), 0,
                                              static_cast<std::uint64_t*>(nullptr)),
                  std::invalid_argument);
  CHECK_THROWS_AS(scankit::allocation_offsets_async(ctx, static_cast<const std::int32_t*>(nullptr), 0,
                                                    static_cast<std::int32_t*>(nullptr)),
                  std::invalid_argument);
}

// ---- 3. totals past 2^32 ------------------------------------------------------------------

TEST_CASE("allocation totals past 2^32: exact with 64-bit offsets, wrapping with 32-bit ones", "[gpu][allocation]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = std::size_t(1) << 20;
  for (call_kind kind : all_calls) {
    // 2^20 sizes of 2^13 .. 2^14: a total near 1.5·2^33.
    const std::uint64_t seed = case_seed(std::string("allocation/past2^32/") + to_string(kind));
    CAPTURE(to_string(kind), seed);
    rng r(seed);
    std::vector<std::uint32_t> sizes(n);
    for (auto& s : sizes) s = std::uint32_t((1u << 13) + r.below(1u << 13));
    sizes[r.below(n)] = 0;
    std::vector<std::int32_t> signed_sizes(sizes.begin(), sizes.end());
    std::uint64_t exact = 0;
    const std::vector<std::uint64_t> expected64 = reference_offsets<std::uint32_t, std::uint64_t>(sizes, &exact);
    REQUIRE(exact > (std::uint64_t(1) << 32));
    const std::vector<std::uint32_t> expected32 = reference_offsets<std::uint32_t, std::uint32_t>(sizes);
    const std::vector<std::int64_t> expected_i64 = reference_offsets<std::int32_t, std::int64_t>(signed_sizes);
    const std::vector<std::int32_t> expected_i32 = reference_offsets<std::int32_t, std::int32_t>(signed_sizes);

    device_buffer<std::uint32_t> d_sizes(n);
    device_buffer<std::int32_t> d_signed(n);
    d_sizes.upload(sizes, stream);
    d_signed.upload(signed_sizes, stream);
    guarded_buffer<std::uint64_t> d_u64(n + 1);
    guarded_buffer<std::uint32_t> d_u32(n + 1);
    guarded_buffer<std::int64_t> d_i64(n + 1);
    guarded_buffer<std::int32_t> d_i32(n + 1);
    d_u64.poison(stream);
    d_u32.poison(stream);
    d_i64.poison(stream);
    d_i32.poison(stream);

    CHECK(run_allocation(ctx, stream, kind, d_sizes.data(), n, d_u64.data()) == exact);
    SKTEST_CHECK_EXACT(d_u64.download(stream), expected64, same_bits_fn{}, "uint32 -> uint64 (exact)");
    CHECK(run_allocation(ctx, stream, kind, d_signed.data(), n, d_i64.data()) == std::int64_t(exact));
    SKTEST_CHECK_EXACT(d_i64.download(stream), expected_i64, same_bits_fn{}, "int32 -> int64 (exact)");
    CHECK(run_allocation(ctx, stream, kind, d_sizes.data(), n, d_u32.data()) == std::uint32_t(exact));
    SKTEST_CHECK_EXACT(d_u32.download(stream), expected32, same_bits_fn{}, "uint32 -> uint32 (mod 2^32)");
    CHECK(run_allocation(ctx, stream, kind, d_signed.data(), n, d_i32.data()) == expected_i32[n]);
    SKTEST_CHECK_EXACT(d_i32.download(stream), expected_i32, same_bits_fn{}, "int32 -> int32 (mod 2^32)");
    CHECK(d_u64.guards_touched(stream) + d_u32.guards_touched(stream) + d_i64.guards_touched(stream) +
              d_i32.guards_touched(stream) ==
          0);

    // Thrust (uint64 accumulator) agrees on the widening pair.
    const auto [thrust_scan, thrust_total] = thrust_offsets<std::uint32_t, std::uint64_t>(stream, d_sizes.data(), n);
    CHECK(thrust_total == exact);
    SKTEST_CHECK_EXACT(thrust_scan, std::vector<std::uint64_t>(expected64.begin(), expected64.end() - 1),
                       same_bits_fn{}, "thrust::exclusive_scan (uint64) vs host reference");
  }
  // 64-bit sizes: totals far past 2^32 (sizes up to 2^40).
  for (call_kind kind : all_calls) {
    allocation_case<std::uint64_t, std::uint64_t>(ctx, stream, 3 * alloc_tile<std::uint64_t> + 7, kind, true,
                                                  std::uint64_t(1) << 40);
    allocation_case<std::int64_t, std::int64_t>(ctx, stream, 3 * alloc_tile<std::int64_t> + 7, kind, true,
                                                std::uint64_t(1) << 40);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 4. in place, misaligned, graph capture ------------------------------------------------

template <class T>
void in_place_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, call_kind kind) {
  const std::uint64_t seed = case_seed(std::string("allocation/in_place/") + int_name<T>() + "/" + std::to_string(n));
  CAPTURE(int_name<T>(), n, to_string(kind), seed);
  rng r(seed);
  const std::vector<T> sizes = make_sizes<T>(n, max_size_for<T>(n), r);
  const std::vector<T> expected = reference_offsets<T, T>(sizes);
  guarded_buffer<T> d_buf(n + 1);  // sizes in [0, n), room for the total at n
  d_buf.poison(stream);
  SKTEST_CUDA(cudaMemcpyAsync(d_buf.data(), sizes.data(), n * sizeof(T), cudaMemcpyHostToDevice, stream));
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  const T total = run_allocation(ctx, stream, kind, static_cast<const T*>(d_buf.data()), n, d_buf.data());
  CHECK(total == expected[n]);
  SKTEST_CHECK_EXACT(d_buf.download(stream), expected, same_bits_fn{}, "in-place offsets vs host reference");
  CHECK(d_buf.guards_touched(stream) == 0);
}

TEST_CASE("allocation offsets in place (d_offsets == d_sizes with room for n + 1)", "[gpu][allocation]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  for (call_kind kind : all_calls) {
    for (std::size_t k : {std::size_t(0), std::size_t(1), std::size_t(5), std::size_t(100)}) {
      in_place_case<std::uint32_t>(ctx, stream, k * alloc_tile<std::uint32_t> + 3, kind);
      in_place_case<std::int32_t>(ctx, stream, k * alloc_tile<std::int32_t> + 1, kind);
      in_place_case<std::uint64_t>(ctx, stream, k * alloc_tile<std::uint64_t> + 5, kind);
      in_place_case<std::int64_t>(ctx, stream, k * alloc_tile<std::int64_t> + 7, kind);
    }
    in_place_case<std::uint32_t>(ctx, stream, 4 * alloc_tile<std::uint32_t>, kind);
    in_place_case<std::int64_t>(ctx, stream, 4 * alloc_tile<std::int64_t>, kind);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

template <class S, class O>
void misaligned_case(scankit::context& ctx, cuda_stream& stream, std::size_t n, std::size_t in_shift,
                     std::size_t out_shift, call_kind kind) {
  const std::uint64_t seed = case_seed(std::string("allocation/misaligned/") + int_name<S>() + "->" + int_name<O>() +
                                       "/" + std::to_string(n));
  CAPTURE(int_name<S>(), int_name<O>(), n, in_shift, out_shift, to_string(kind), seed);
  rng r(seed);
  const std::vector<S> sizes = make_sizes<S>(n, max_size_for<O>(n), r);
  const std::vector<O> expected = reference_offsets<S, O>(sizes);
  device_buffer<S> d_sizes(n + 4);
  guarded_buffer<O> d_offsets(n + 1 + 4);
  d_sizes.upload(sizes, stream, in_shift);
  d_offsets.poison(stream);
  SKTEST_CUDA(cudaStreamSynchronize(stream));
  CHECK(run_allocation(ctx, stream, kind, d_sizes.data() + in_shift, n, d_offsets.data() + out_shift) == expected[n]);
  const std::vector<O> all = d_offsets.download(stream);
  const std::vector<O> got(all.begin() + out_shift, all.begin() + out_shift + n + 1);
  SKTEST_CHECK_EXACT(got, expected, same_bits_fn{}, "misaligned offsets vs host reference");
  for (std::size_t i = 0; i < all.size(); ++i)
    if (i < out_shift || i > out_shift + n) CHECK(is_poison(all[i]));
  CHECK(d_offsets.guards_touched(stream) == 0);
}

TEST_CASE("allocation offsets with misaligned sizes and offsets", "[gpu][allocation]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::vector<std::pair<std::size_t, std::size_t>> shifts{{1, 3}, {0, 1}, {3, 0}, {0, 0}};
  for (const auto& [in_shift, out_shift] : shifts)
    for (call_kind kind : all_calls) {
      misaligned_case<std::uint32_t, std::uint64_t>(ctx, stream, 4 * alloc_tile<std::uint64_t>, in_shift, out_shift, kind);
      misaligned_case<std::uint32_t, std::uint64_t>(ctx, stream, 4 * alloc_tile<std::uint64_t> + 5, in_shift, out_shift,
                                                    kind);
      misaligned_case<std::int32_t, std::int32_t>(ctx, stream, 4 * alloc_tile<std::int32_t> + 1, in_shift, out_shift, kind);
      misaligned_case<std::int64_t, std::int64_t>(ctx, stream, 33, in_shift, out_shift, kind);
    }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

TEST_CASE("allocation_offsets_async under CUDA graph capture", "[gpu][allocation]") {
  cuda_stream stream;
  scankit::context ctx(stream);
  const std::size_t n = 7 * alloc_tile<std::uint64_t> + 11;
  device_buffer<std::uint32_t> d_sizes(n);
  device_buffer<std::uint64_t> d_offsets(n + 1);
  pinned_value<std::uint64_t> h_total;
  rng r(case_seed("allocation/graph"));
  for (total_timing timing : {total_timing::with_offsets, total_timing::first}) {
    CAPTURE(timing == total_timing::first);
    // Warm-up outside capture: the context's storage is grown before capture.
    d_sizes.upload(make_sizes<std::uint32_t>(n, 1000, r), stream);
    scankit::allocation_offsets_async(ctx, d_sizes.data(), n, d_offsets.data(), h_total.get(), nullptr, timing);
    SKTEST_CUDA(cudaStreamSynchronize(stream));

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    SKTEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    scankit::allocation_offsets_async(ctx, d_sizes.data(), n, d_offsets.data(), h_total.get(), nullptr, timing);
    SKTEST_CUDA(cudaStreamEndCapture(stream, &graph));
    SKTEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 3; ++replay) {
      CAPTURE(replay);
      const std::vector<std::uint32_t> sizes = make_sizes<std::uint32_t>(n, 1 + 500 * replay, r);
      const std::vector<std::uint64_t> expected = reference_offsets<std::uint32_t, std::uint64_t>(sizes);
      d_sizes.upload(sizes, stream);
      d_offsets.poison(stream);
      h_total.poison();
      SKTEST_CUDA(cudaGraphLaunch(exec, stream));
      SKTEST_CUDA(cudaStreamSynchronize(stream));
      CHECK(h_total.read() == expected[n]);
      SKTEST_CHECK_EXACT(d_offsets.download(stream), expected, same_bits_fn{}, "graph replay vs host reference");
    }
    SKTEST_CUDA(cudaGraphExecDestroy(exec));
    SKTEST_CUDA(cudaGraphDestroy(graph));
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}

// ---- 5. bad arguments (host: nothing is launched) ----------------------------------------------

/// f() must throw std::invalid_argument naming scankit::allocation_offsets.
template <class F>
void expect_rejected(F&& f) {
  expect_invalid_argument(f, "allocation_offsets");
}

template <class S, class O>
void rejections(scankit::context& ctx) {
  CAPTURE(int_name<S>(), int_name<O>());
  // Fake device addresses, never dereferenced: every call throws first.
  auto* sizes = reinterpret_cast<S*>(std::uintptr_t(1) << 40);
  auto* offsets = reinterpret_cast<O*>(std::uintptr_t(2) << 40);
  const std::size_t n = 1000;
  const S* null_sizes = nullptr;
  O* null_offsets = nullptr;
  auto both = [&](const S* s, std::size_t m, O* o) {
    expect_rejected([&] { scankit::allocation_offsets(ctx, s, m, o); });
    expect_rejected([&] { scankit::allocation_offsets_async(ctx, s, m, o); });
    expect_rejected([&] { scankit::allocation_offsets_async(ctx, s, m, o, nullptr, nullptr, total_timing::first); });
  };
  both(null_sizes, n, offsets);            // null sizes, n > 0
  both(sizes, n, null_offsets);            // null offsets, n > 0
  both(null_sizes, 1, null_offsets);
  // Overlaps: offsets (n + 1 entries) and sizes (n entries) share bytes.
  auto* sizes_as_o = reinterpret_cast<O*>(sizes);
  both(sizes, n, sizes_as_o + 1);           // offsets shifted into the sizes
  both(reinterpret_cast<const S*>(offsets + 1), n, offsets);  // sizes shifted into the offsets
  both(reinterpret_cast<const S*>(offsets + n), n, offsets);  // only the total's slot overlaps the sizes
  if constexpr (sizeof(S) != sizeof(O)) both(sizes, n, sizes_as_o);  // "in place" needs the same width
  // n * sizeof overflows.
  both(sizes, std::numeric_limits<std::size_t>::max() / 2, offsets);
  both(sizes, std::numeric_limits<std::size_t>::max(), offsets);
}

TEST_CASE("allocation offsets reject bad arguments before touching a device", "[allocation]") {
  scankit::context ctx;  // no device needed: every call throws before its first device access
  rejections<std::uint32_t, std::uint32_t>(ctx);
  rejections<std::uint32_t, std::uint64_t>(ctx);
  rejections<std::uint64_t, std::uint64_t>(ctx);
  rejections<std::int32_t, std::int32_t>(ctx);
  rejections<std::int32_t, std::int64_t>(ctx);
  rejections<std::int64_t, std::int64_t>(ctx);
}

}  // namespace allocation_tests
