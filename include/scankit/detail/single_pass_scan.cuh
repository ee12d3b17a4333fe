// detail/single_pass_scan.cuh — launching the tuned single-pass scan kernel
// (detail/kernels/scan_kernel.cuh): on storage the caller provides
// (launch_single_pass_scan, also used by segmented reduction's carry scan),
// or checked and on the context's workspace (dispatch_scan: the scans,
// allocation offsets and the compensated scan).
#pragma once

#include <scankit/context.hpp>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/kernel_settings.hpp>
#include <scankit/detail/kernels/scan_kernel.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/memory_ranges.hpp>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace scankit::detail {

/// Tiles a scan of n items of T needs with tuning `Tuning`.
template <class T, class Tuning>
std::size_t scan_num_tiles(std::size_t n) {
  return (n + tile_items<T, Tuning> - 1) / tile_items<T, Tuning>;
}

/// Launches the single-pass scan on `stream` with the given look-back
/// storage (d_status: 1 + tile_status<T>::words(tiles) words, d_scratch:
/// tile_status<T>::scratch_bytes(tiles) bytes; unused for one tile). Reads In,
/// scans T, writes Out (see scan_kernel). `dependent`: launched as the
/// programmatic dependent of the stream's previous kernel.
template <bool Exclusive, class Tuning, look_back_order Order = look_back_order::any, class In, class Out, class T,
          class Op>
void launch_single_pass_scan(cudaStream_t stream, const In* d_in, Out* d_out, std::size_t n, Op op, maybe<T> initial,
                             std::uint64_t* d_status, void* d_scratch, T* d_total, const char* name,
                             bool dependent = false) {
  scan_launch<T> launch{};
  launch.n = n;
  launch.num_tiles = std::uint32_t(scan_num_tiles<T, Tuning>(n));
  launch.bulk_loads = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && staged_tile_bytes<T, Tuning, In> % 16 == 0;
  constexpr std::size_t vector_bytes = output_vector_bytes<T, Tuning, Out>;
  constexpr std::size_t alignment = vector_bytes != 0 ? vector_bytes : 1;  // (no "% 0" when not vectorized)
  launch.vector_stores = vector_bytes != 0 && reinterpret_cast<std::uintptr_t>(d_out) % alignment == 0;
  launch.initial = initial;
  launch.d_total = d_total;
  launch.d_status = d_status;
  launch.d_scratch = d_scratch;
  const auto kernel = scan_kernel<In, T, Out, Op, Tuning, Exclusive, Order>;
  constexpr std::size_t smem_bytes = staged_tile_bytes<T, Tuning, In>;
  static_assert(smem_bytes <= 200 * 1024, "tile too large for shared memory: use a tuning with fewer rounds/threads");
  prepare_kernel(kernel, Tuning::threads, smem_bytes);  // allows > 48 KB of staged tile
  launch_maybe_dependent(kernel, dependent, launch.num_tiles, Tuning::threads, smem_bytes, stream, name, d_in, d_out, op,
                         launch);
}

/// Throws std::invalid_argument for a null pointer with n > 0, n items whose
/// bytes overflow std::size_t, or input and output ranges that overlap other
/// than exactly in place (same pointer, same item size).
inline void check_scan_arguments(const void* d_in, const void* d_out, std::size_t n, std::size_t size,
                                 const char* name, std::size_t in_size = 0) {
  const std::string where = std::string("scankit::") + name + ": ";
  if (n == 0) return;
  if (in_size == 0) in_size = size;
  if (d_in == nullptr || d_out == nullptr) throw std::invalid_argument(where + "null device pointer with n > 0");
  if (n > std::numeric_limits<std::size_t>::max() / size) throw std::invalid_argument(where + "n * sizeof(T) overflows");
  const bool in_place = d_in == d_out && in_size == size;
  if (!in_place && ranges_overlap(d_in, n * in_size, d_out, n * size))
    throw std::invalid_argument(where + "input and output overlap (only d_out == d_in is allowed)");
}

/// Validates, acquires the look-back storage from `ctx`, then launches the
/// single-pass scan on ctx.stream(). In items are converted to T as they are
/// loaded and results to Out as they are stored; `d_total`, if given,
/// receives the scan of all n items (initial included).
template <bool Exclusive, class Tuning, look_back_order Order = look_back_order::any, class In, class Out, class T,
          class Op>
void dispatch_scan(context& ctx, const In* d_in, Out* d_out, std::size_t n, Op op, maybe<T> initial,
                   const char* name, T* d_total = nullptr) {
  check_scan_arguments(d_in, d_out, n, sizeof(Out), name, sizeof(In));
  if (n == 0) return;
  const std::size_t num_tiles = scan_num_tiles<T, Tuning>(n);
  if (num_tiles > std::size_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(std::string("scankit::") + name + ": n too large (more than 2^31 - 1 tiles)");

  if (num_tiles > 1) {
    const workspace_view ws = ctx.acquire(1 + tile_status<T>::words(num_tiles), tile_status<T>::scratch_bytes(num_tiles));
    launch_single_pass_scan<Exclusive, Tuning, Order>(ctx.stream(), d_in, d_out, n, op, initial, ws.d_status,
                                                      ws.d_scratch, d_total, name);
  } else {
    ctx.acquire(0, 0);  // checks that a device is there
    launch_single_pass_scan<Exclusive, Tuning, Order>(ctx.stream(), d_in, d_out, n, op, initial, nullptr, nullptr,
                                                      d_total, name);
  }
}

}  // namespace scankit::detail
