// detail/kernels/scan_kernel.cuh — the single-pass scan kernel: one block per
// tile, tiles ordered by launch ticket, prefixes by decoupled look-back.
#pragma once

#include <scankit/detail/block/block_scan_warp_shuffle.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>

#include <cstdint>
#include <cstring>

namespace scankit::detail {

/// Everything the kernel needs besides the data pointers.
template <class T>
struct scan_launch {
  std::size_t n;
  std::uint32_t num_tiles;
  bool vector_loads;        // d_in is 16-byte aligned: 16-byte loads
  bool vector_stores;       // d_out is 16-byte aligned: 16-byte stores
  maybe<T> initial;         // initial value (exclusive scans always have one)
  std::uint64_t* d_status;  // [0] launch counter, [1 + t] tile t's word; unused for one tile
  void* d_scratch;          // split-layout tile values
};

// Loads VEC consecutive items starting at `p`, as one 16-byte load when allowed.
template <class T, int Vec>
__device__ __forceinline__ void load_vector(const T* p, bool vectorized, T (&v)[Vec]) {
  if constexpr (Vec > 1) {
    if (vectorized) {
      const uint4 raw = __ldcs(reinterpret_cast<const uint4*>(p));
      memcpy(v, &raw, sizeof(raw));
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < Vec; ++j) v[j] = p[j];
}

template <class T, int Vec>
__device__ __forceinline__ void store_vector(T* p, bool vectorized, const T (&v)[Vec]) {
  if constexpr (Vec > 1) {
    if (vectorized) {
      uint4 raw;
      memcpy(&raw, v, sizeof(raw));
      __stcs(reinterpret_cast<uint4*>(p), raw);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < Vec; ++j) p[j] = v[j];
}

// Loads one tile into registers in the warp-striped arrangement. The last
// tile's missing slots get copies of the last input item: the operator only
// ever sees input values, and those slots are never stored.
template <class T, class Tuning>
__device__ __forceinline__ void load_tile(const T* d_in, const scan_launch<T>& launch, std::uint32_t tile,
                                          T (&items)[Tuning::rounds][vector_items<T>]) {
  constexpr int rounds = Tuning::rounds, vec = vector_items<T>;
  constexpr std::size_t tile_size = tile_items<T, Tuning>;
  const std::size_t tile_begin = std::size_t(tile) * tile_size;
  const std::size_t thread_begin =
      tile_begin + std::size_t(threadIdx.x / warp_threads) * warp_threads * rounds * vec + lane_id() * vec;
  if (tile_begin + tile_size <= launch.n) {
#pragma unroll
    for (int r = 0; r < rounds; ++r) load_vector(d_in + thread_begin + r * warp_threads * vec, launch.vector_loads, items[r]);
  } else {
    const T last = d_in[launch.n - 1];
#pragma unroll
    for (int r = 0; r < rounds; ++r)
#pragma unroll
      for (int j = 0; j < vec; ++j) {
        const std::size_t i = thread_begin + r * warp_threads * vec + j;
        items[r][j] = i < launch.n ? d_in[i] : last;
      }
  }
}

// Stores one scanned tile (streaming stores keep the status words in L2).
template <class T, class Tuning>
__device__ __forceinline__ void store_tile(T* d_out, const scan_launch<T>& launch, std::uint32_t tile,
                                           const T (&items)[Tuning::rounds][vector_items<T>]) {
  constexpr int rounds = Tuning::rounds, vec = vector_items<T>;
  constexpr std::size_t tile_size = tile_items<T, Tuning>;
  const std::size_t tile_begin = std::size_t(tile) * tile_size;
  const std::size_t thread_begin =
      tile_begin + std::size_t(threadIdx.x / warp_threads) * warp_threads * rounds * vec + lane_id() * vec;
  if (tile_begin + tile_size <= launch.n) {
#pragma unroll
    for (int r = 0; r < rounds; ++r) store_vector(d_out + thread_begin + r * warp_threads * vec, launch.vector_stores, items[r]);
  } else {
#pragma unroll
    for (int r = 0; r < rounds; ++r)
#pragma unroll
      for (int j = 0; j < vec; ++j) {
        const std::size_t i = thread_begin + r * warp_threads * vec + j;
        if (i < launch.n) d_out[i] = items[r][j];
      }
  }
}

// Persistent: gridDim.x blocks (at most one wave) each scan tiles in ticket
// order until the tickets run out. A block always holds its current tile and
// already knows its next ticket, so with Tuning::prefetch it loads the next
// tile while the current one is scanned, looked back and stored — memory
// stays busy through the look-back's waiting. Deadlock-free: the lowest
// unfinished ticket is always some block's current tile, whose predecessors
// are all done.
template <class T, class Op, class Tuning, bool Exclusive>
__global__ void __launch_bounds__(Tuning::threads)
    scan_kernel(const T* d_in, T* d_out, Op op, scan_launch<T> launch) {
  constexpr int rounds = Tuning::rounds, vec = vector_items<T>;
  using block_scan = block_scan_warp_shuffle<T, Tuning::threads, rounds, vec>;
  using status_t = tile_status<T>;

  __shared__ typename block_scan::storage scan_storage;
  __shared__ launch_ticket next_ticket;

  const std::uint32_t num_tiles = launch.num_tiles;
  const bool single_tile = num_tiles == 1;  // one block, no tickets, no look-back
  std::uint64_t* const d_counter = launch.d_status;
  const status_t status(launch.d_status + 1, launch.d_scratch, num_tiles);
  const int lane = lane_id();

  // Prologue: the first tile, its loads, and the next ticket.
  if (threadIdx.x == 0)
    next_ticket = single_tile ? launch_ticket{0, 0} : redeem_ticket(d_counter, draw_ticket(d_counter), num_tiles, gridDim.x);
  __syncthreads();
  launch_ticket current = next_ticket;
  T items[rounds][vec];
  if (current.tile < num_tiles) load_tile<T, Tuning>(d_in, launch, current.tile, items);
  __syncthreads();  // everyone has read next_ticket
  if (threadIdx.x == 0 && current.tile < num_tiles)
    next_ticket = single_tile ? launch_ticket{1, 0} : redeem_ticket(d_counter, draw_ticket(d_counter), num_tiles, gridDim.x);
  __syncthreads();

  while (current.tile < num_tiles) {
    const launch_ticket next = next_ticket;

    // Phase 1: start loading the next tile; draw the ticket after it (its
    // result is only consumed at the end of this iteration).
    T next_items[rounds][vec];
    if constexpr (Tuning::prefetch)
      if (next.tile < num_tiles) load_tile<T, Tuning>(d_in, launch, next.tile, next_items);
    std::uint64_t drawn = 0;
    const bool draw = threadIdx.x == 0 && !single_tile && next.tile < num_tiles;
    if (draw) drawn = draw_ticket(d_counter);

    // Phase 2: block scan of the current tile; warp 0 publishes the tile
    // total, looks back for the exclusive prefix, publishes the inclusive one.
    auto tile_prefix = [&](const T& tile_total) -> maybe<T> {
      if (current.tile == 0) {
        if (!single_tile && lane == 0)
          status.publish(0, tile_state::inclusive, apply_prefix(launch.initial, tile_total, op), current.tag);
        return launch.initial;
      }
      if (lane == 0) status.publish(current.tile, tile_state::aggregate, tile_total, current.tag);
      const T exclusive = warp_look_back<T>(status, current.tile, current.tag, op);
      if (lane == 0) status.publish(current.tile, tile_state::inclusive, op(exclusive, tile_total), current.tag);
      return maybe<T>{exclusive, true};
    };
    block_scan::template scan<Exclusive>(scan_storage, items, op, tile_prefix);

    // Phase 3: store the current tile; hand over the next one.
    store_tile<T, Tuning>(d_out, launch, current.tile, items);
    if constexpr (!Tuning::prefetch)
      if (next.tile < num_tiles) load_tile<T, Tuning>(d_in, launch, next.tile, next_items);
    if (draw) next_ticket = redeem_ticket(d_counter, drawn, num_tiles, gridDim.x);
    __syncthreads();
    current = next;
#pragma unroll
    for (int r = 0; r < rounds; ++r)
#pragma unroll
      for (int j = 0; j < vec; ++j) items[r][j] = next_items[r][j];
  }
}

}  // namespace scankit::detail
