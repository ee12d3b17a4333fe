// detail/ragged/merge_path_dispatch.cuh — host side of merge-path tiling:
// how many tiles, and the partition launch that fills d_splits.
#pragma once

#include <scankit/detail/launch_shape.cuh>
#include <scankit/detail/ragged/merge_path.cuh>
#include <scankit/error.hpp>

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace scankit::detail {

/// Tiles of `tile_diagonals` over the merge of num_boundaries boundaries and
/// num_items items (at most 2^31 - 1: tile ids are 32-bit).
inline std::uint64_t merge_path_tiles(std::uint64_t num_boundaries, std::uint64_t num_items,
                                      std::uint32_t tile_diagonals, const char* call) {
  const std::uint64_t tiles = (num_boundaries + num_items + tile_diagonals - 1) / tile_diagonals;
  if (tiles > std::uint64_t(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument(std::string("scankit::") + call + ": too many items (more than 2^31 - 1 tiles)");
  return tiles;
}

/// Bytes of the partition: num_tiles + 1 splits, rounded up to 256.
inline std::size_t merge_path_split_bytes(std::uint64_t num_tiles) {
  return std::size_t((num_tiles + 1) * sizeof(std::uint64_t) + 255) / 256 * 256;
}

/// Launches the partition search on `stream`. A warp per split while the
/// splits fill at most half the GPU's warp slots: there the search is bound
/// by its chain of dependent reads, which the warp's 32-way steps shorten
/// (measured at 2^24 on the H200: segmented sums 4-11 % faster); beyond, a
/// thread per split, as the warp's 32 reads per step cost more than the
/// latency they save (61 000 splits, 2^28 segments of 1: 11 % slower).
template <class Offset>
void partition_merge_path(const Offset* d_boundaries, std::uint64_t num_boundaries, std::uint64_t num_items,
                          std::uint32_t tile_diagonals, std::uint64_t num_tiles, std::uint64_t* d_splits,
                          cudaStream_t stream) {
  constexpr unsigned threads = 256;
  const std::uint64_t splits = num_tiles + 1;
  if (splits <= std::uint64_t(current_sm_count()) * 32) {
    constexpr unsigned splits_per_block = threads / warp_threads;
    merge_path_partition_kernel<true><<<unsigned((splits + splits_per_block - 1) / splits_per_block), threads, 0,
                                        stream>>>(d_boundaries, num_boundaries, num_items, tile_diagonals, num_tiles,
                                                  d_splits);
  } else {
    merge_path_partition_kernel<false><<<unsigned((splits + threads - 1) / threads), threads, 0, stream>>>(
        d_boundaries, num_boundaries, num_items, tile_diagonals, num_tiles, d_splits);
  }
  throw_on_cuda_error(cudaGetLastError(), "merge-path partition kernel launch");
}

/// Allows `bytes` of dynamic shared memory for `kernel` (once per kernel).
template <class Kernel>
void allow_dynamic_smem(Kernel kernel, std::size_t bytes) {
  throw_on_cuda_error(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                      "cudaFuncSetAttribute");
}

}  // namespace scankit::detail
