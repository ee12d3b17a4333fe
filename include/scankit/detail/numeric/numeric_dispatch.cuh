// detail/numeric/numeric_dispatch.cuh — launching the scans of the numeric
// modes other than fast (scankit/policy.hpp, numeric_mode) for float and
// double sums: compensated (the tuned scan over value + error pairs) and exact
// (the exact-accumulator kernel). run_to_run is the tuned scan with a
// fixed-order look-back (device/scan.cuh). Both are run to run reproducible.
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/kernels/exact_scan_kernel.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/numeric/compensated.cuh>
#include <scankit/detail/single_pass_scan.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace scankit::detail {

/// Tile shapes measured on the H200 (2^24 and 2^28, 2026-12-01): the
/// fixed-order look-back prefers larger 8-byte tiles (256 x 16 double: 0.99x
/// and 1.04x of fast mode's time; the default 256 x 12: 0.90x and 0.92x).
/// Compensated pairs run faster with more pairs per lane and round than the
/// 16-byte default (fewer warp scans per item): float 512 threads x 12 rounds
/// x 4 pairs (2^28: 0.66 ms; 384 x 16 x 2: 1.04 ms), double 512 x 16 x 2
/// (2.12 ms; 512 x 8 x 1: 5.06 ms).
template <class T>
using run_to_run_scan_tuning =
    std::conditional_t<sizeof(T) == 8, scan_tuning<256, 16>, default_scan_tuning<T>>;
template <class F>
using compensated_scan_tuning = std::conditional_t<sizeof(F) == 4, scan_tuning<512, 12, 4>, scan_tuning<512, 16, 2>>;

/// Exact accumulators hold any sum of fewer than 2^42 values.
inline constexpr std::size_t exact_scan_max_items = std::size_t(1) << 42;

/// Look-back storage of the exact scan of n items of F: {status words, scratch bytes}.
template <class F, class Tuning = exact_scan_tuning<F>>
std::pair<std::size_t, std::size_t> exact_scan_storage(std::size_t n) {
  const std::size_t tiles = (n + exact_tile_items<F, Tuning> - 1) / exact_tile_items<F, Tuning>;
  if (tiles <= 1) return {0, 0};
  using status_t = tile_status<exact_accumulator<F>>;
  return {1 + status_t::words(tiles), status_t::scratch_bytes(tiles)};
}

/// The exact scan (checks its arguments). Every Tuning gives the same bits;
/// the tests vary it.
template <bool Exclusive, class F, class Tuning = exact_scan_tuning<F>>
void launch_exact_scan(context& ctx, const F* d_in, F* d_out, std::size_t n, maybe<F> initial, const char* name) {
  check_scan_arguments(d_in, d_out, n, sizeof(F), name);
  if (n == 0) return;
  if (n >= exact_scan_max_items)
    throw std::invalid_argument(std::string("scankit::") + name + ": numeric_mode::exact takes fewer than 2^42 items");
  constexpr std::size_t tile = exact_tile_items<F, Tuning>;
  if ((n + tile - 1) / tile > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(std::string("scankit::") + name + ": n too large (more than 2^31 - 1 tiles)");
  exact_scan_launch<F> launch{};
  launch.n = n;
  launch.num_tiles = std::uint32_t((n + tile - 1) / tile);
  launch.bulk_loads = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  launch.vector_stores = reinterpret_cast<std::uintptr_t>(d_out) % 16 == 0;
  launch.has_initial = initial.has;
  launch.initial = initial.value;
  const auto [words, scratch] = exact_scan_storage<F, Tuning>(n);
  const workspace_view ws = ctx.acquire(words, scratch);
  launch.d_status = ws.d_status;
  launch.d_scratch = ws.d_scratch;
  exact_scan_kernel<F, Tuning, Exclusive><<<launch.num_tiles, Tuning::threads, 0, ctx.stream()>>>(d_in, d_out, launch);
  throw_on_cuda_error(cudaGetLastError(), name);
}

/// The compensated scan: the tuned kernel over compensated<F> pairs, reading
/// and writing F, with the fixed-order look-back so that it is run to run
/// reproducible too (dispatch_scan checks the arguments).
template <bool Exclusive, class F>
void launch_compensated_scan(context& ctx, const F* d_in, F* d_out, std::size_t n, maybe<F> initial,
                             const char* name) {
  using pair_t = compensated<F>;
  dispatch_scan<Exclusive, compensated_scan_tuning<F>, look_back_order::fixed>(
      ctx, d_in, d_out, n, compensated_plus{}, maybe<pair_t>{pair_t(initial.value), initial.has}, name);
}

}  // namespace scankit::detail
