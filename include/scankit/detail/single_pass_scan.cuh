// detail/single_pass_scan.cuh — launching the tuned single-pass scan kernel
// (detail/kernels/scan_kernel.cuh) on storage the caller provides; shared by
// the scans, allocation offsets, the compensated scan and segmented
// reduction's carry scan.
#pragma once

#include <scankit/detail/kernels/scan_kernel.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>

namespace scankit::detail {

/// Tiles a scan of n items of T needs with tuning `Tuning`.
template <class T, class Tuning>
std::size_t scan_num_tiles(std::size_t n) {
  return (n + tile_items<T, Tuning> - 1) / tile_items<T, Tuning>;
}

/// Launches the single-pass scan on `stream` with the given look-back
/// storage (d_status: 1 + tile_status<T>::words(tiles) words, d_scratch:
/// tile_status<T>::scratch_bytes(tiles) bytes; unused for one tile). Reads In,
/// scans T, writes Out (see scan_kernel).
template <bool Exclusive, class Tuning, look_back_order Order = look_back_order::any, class In, class Out, class T,
          class Op>
void launch_single_pass_scan(cudaStream_t stream, const In* d_in, Out* d_out, std::size_t n, Op op, maybe<T> initial,
                             std::uint64_t* d_status, void* d_scratch, T* d_total, const char* name) {
  scan_launch<T> launch{};
  launch.n = n;
  launch.num_tiles = std::uint32_t(scan_num_tiles<T, Tuning>(n));
  launch.bulk_loads = reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0 && staged_tile_bytes<T, Tuning, In> % 16 == 0;
  constexpr std::size_t vector_bytes = output_vector_bytes<T, Out>;
  constexpr std::size_t alignment = vector_bytes != 0 ? vector_bytes : 1;  // (no "% 0" when not vectorized)
  launch.vector_stores = vector_bytes != 0 && reinterpret_cast<std::uintptr_t>(d_out) % alignment == 0;
  launch.initial = initial;
  launch.d_total = d_total;
  launch.d_status = d_status;
  launch.d_scratch = d_scratch;
  const auto kernel = scan_kernel<In, T, Out, Op, Tuning, Exclusive, Order>;
  constexpr std::size_t smem_bytes = staged_tile_bytes<T, Tuning, In>;
  static_assert(smem_bytes <= 200 * 1024, "tile too large for shared memory: use a tuning with fewer rounds/threads");
  static const bool smem_configured = [&] {  // once per kernel: allow > 48 KB of staged tile
    throw_on_cuda_error(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)),
                        "cudaFuncSetAttribute");
    return true;
  }();
  (void)smem_configured;
  kernel<<<launch.num_tiles, Tuning::threads, smem_bytes, stream>>>(d_in, d_out, op, launch);
  throw_on_cuda_error(cudaGetLastError(), name);
}

}  // namespace scankit::detail
