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
#include <type_traits>

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

/// Launches the partition search with `Lanes` lanes per split (1: a
/// thread's binary search) on `stream`.
template <unsigned Lanes, class Offset>
void launch_merge_path_partition(const Offset* d_boundaries, std::uint64_t num_boundaries, std::uint64_t num_items,
                                 std::uint32_t tile_diagonals, std::uint64_t num_tiles, std::uint64_t* d_splits,
                                 cudaStream_t stream) {
  constexpr unsigned threads = 256;
  const std::uint64_t lanes = (num_tiles + 1) * Lanes;
  merge_path_partition_kernel<Lanes><<<unsigned((lanes + threads - 1) / threads), threads, 0, stream>>>(
      d_boundaries, num_boundaries, num_items, tile_diagonals, num_tiles, d_splits);
  throw_on_cuda_error(cudaGetLastError(), "merge-path partition kernel launch");
}

/// Launches the partition search on `stream`: 32, 16 or 8 lanes per split,
/// the most that keep the search within 32 warps per SM (half of sm_90's
/// warp slots); a thread per split where even 8 lanes would not fit. The
/// search is bound by its chain of dependent reads, which a group's
/// `Lanes`-way steps shorten, but each step costs the group `Lanes` reads,
/// most of them to sectors of their own. Measured on the H200 (segmented
/// int32 sums, the six distributions of the benchmark; before, a warp per
/// split up to 4 224 splits and a thread per split beyond): at 2^26 values
/// (7 600 - 15 200 splits) the power law, segments of 4 and 256 and the
/// giant 3-4.5 % faster, segments of 1 and 65536 within 1 % (16 lanes for
/// segments of 1, past 32 warps per SM: 3 % slower); at 2^28 (30 400 -
/// 60 800 splits) 4 lanes per split no faster than a thread and 2 lanes up
/// to 3.4 % slower (segments of 4), so a thread per split stays there.
template <class Offset>
void partition_merge_path(const Offset* d_boundaries, std::uint64_t num_boundaries, std::uint64_t num_items,
                          std::uint32_t tile_diagonals, std::uint64_t num_tiles, std::uint64_t* d_splits,
                          cudaStream_t stream) {
  auto launch = [&](auto lanes) {
    launch_merge_path_partition<decltype(lanes)::value>(d_boundaries, num_boundaries, num_items, tile_diagonals,
                                                        num_tiles, d_splits, stream);
  };
  const std::uint64_t splits = num_tiles + 1;
  const std::uint64_t lane_slots = std::uint64_t(current_sm_count()) * 32 * warp_threads;
  if (splits * 32 <= lane_slots) launch(std::integral_constant<unsigned, 32>{});
  else if (splits * 16 <= lane_slots) launch(std::integral_constant<unsigned, 16>{});
  else if (splits * 8 <= lane_slots) launch(std::integral_constant<unsigned, 8>{});
  else launch(std::integral_constant<unsigned, 1>{});
}

}  // namespace scankit::detail
