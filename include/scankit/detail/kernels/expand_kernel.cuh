// detail/kernels/expand_kernel.cuh — load-balancing search: every output j
// of a CSR segmentation learns its segment and its rank inside it. Merge-path
// tiles (detail/ragged/merge_path.cuh) give every block the same work; no
// carries cross tiles, so there is no look-back.
#pragma once

#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/ragged/merge_path.cuh>

#include <cstdint>

namespace scankit::detail {

/// Threads and merge steps per thread of expand.
struct expand_shape {
  static constexpr int threads = 256;
  static constexpr int steps = 16;
  static constexpr std::uint32_t tile_diagonals = std::uint32_t(threads) * steps;
};

struct expand_launch {
  std::uint64_t num_segments;  // boundaries: num_segments + 1 offsets
  std::uint64_t total;         // outputs
  std::uint64_t num_tiles;
  const std::uint64_t* d_splits;  // merge-path partition, num_tiles + 1 entries
};

/// Dynamic shared memory: the tile's boundaries (tile-relative) and each
/// output's boundary count.
constexpr std::size_t expand_smem_bytes() {
  return padded_slots<std::uint32_t>(expand_shape::tile_diagonals + 1) * 2 * sizeof(std::uint32_t) + 16;
}

/// Calls f(j, segment, rank) once for every output j of the tile, with
/// consecutive threads on consecutive j (coalesced when f writes out[j]).
/// Invalid offsets give clamped segments (always < num_segments).
template <class Offset, class F>
__global__ void __launch_bounds__(expand_shape::threads)
    expand_kernel(const Offset* d_offsets, F f, expand_launch L) {
  constexpr int threads = expand_shape::threads, steps = expand_shape::steps;
  constexpr std::uint32_t slots = padded_slots<std::uint32_t>(expand_shape::tile_diagonals + 1);
  extern __shared__ uint4 smem_words[];
  std::uint32_t* const bounds_s = reinterpret_cast<std::uint32_t*>(smem_words);  // boundary a_begin + k
  std::uint32_t* const consumed_s = bounds_s + slots;  // per output: the tile's boundaries before it
  __shared__ std::uint64_t open_begin;                 // offsets[a_begin - 1]: start of the segment open at the tile's start
  wait_for_earlier_grid();  // the partition's splits

  const merge_tile m = merge_tile_bounds(L.d_splits, blockIdx.x, expand_shape::tile_diagonals, L.num_segments + 1 + L.total);
  const std::uint32_t na = m.boundaries(), nb = m.items();

  // Phase 1: stage the tile's boundaries (and the start of the open segment).
  stage_tile_boundaries<threads, steps>(d_offsets, m, bounds_s);
  if (threadIdx.x == 0) open_begin = m.a_begin > 0 ? offset_index(d_offsets[m.a_begin - 1]) : 0;
  __syncthreads();

  // Phase 2: each thread walks `steps` of the merge from its own diagonal and
  // records, per output, how many of the tile's boundaries come before it.
  const std::uint32_t diagonal = min(std::uint32_t(threadIdx.x) * steps, na + nb);
  merge_walk<steps>(
      bounds_s, tile_merge_start(bounds_s, na, nb, diagonal), na + nb - diagonal, [](std::uint32_t, std::uint32_t) {},
      [&](std::uint32_t b, std::uint32_t a) { consumed_s[padded_slot<std::uint32_t>(b)] = a; });
  __syncthreads();

  // Phase 3: one output per thread, consecutive j.
  for (std::uint32_t k = threadIdx.x; k < nb; k += threads) {
    const std::uint64_t j = m.b_begin + k;
    std::uint32_t local = consumed_s[padded_slot<std::uint32_t>(k)];
    if (local > na) local = na;  // only invalid offsets leave an output unwalked
    const std::uint64_t boundaries = m.a_begin + local;  // boundaries before j: its segment + 1
    if (boundaries == 0) {  // j before offsets[0]: invalid offsets
      f(j, std::uint64_t(0), j);
      continue;
    }
    const std::uint64_t segment = boundaries - 1 < L.num_segments ? boundaries - 1 : L.num_segments - 1;
    const std::uint64_t begin = local > 0 ? m.b_begin + bounds_s[padded_slot<std::uint32_t>(local - 1)] : open_begin;
    f(j, segment, j - begin);
  }
}

}  // namespace scankit::detail
