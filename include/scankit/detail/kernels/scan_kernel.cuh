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

template <class T, class Op, class Tuning, bool Exclusive>
__global__ void __launch_bounds__(Tuning::threads)
    scan_kernel(const T* d_in, T* d_out, Op op, scan_launch<T> launch) {
  constexpr int threads = Tuning::threads, rounds = Tuning::rounds, vec = vector_items<T>;
  constexpr std::size_t tile_size = tile_items<T, Tuning>;
  using block_scan = block_scan_warp_shuffle<T, threads, rounds, vec>;
  using status_t = tile_status<T>;

  __shared__ typename block_scan::storage scan_storage;
  __shared__ launch_ticket ticket;

  // Phase 0: this block's tile, in launch order (a lone tile needs no ticket).
  if (threadIdx.x == 0)
    ticket = launch.num_tiles > 1 ? take_launch_ticket(launch.d_status, launch.num_tiles) : launch_ticket{0, 0};
  __syncthreads();
  const launch_ticket my = ticket;

  // Phase 1: load the tile (before any waiting, so memory stays busy). The
  // last tile's missing slots get copies of the last input item: the operator
  // only ever sees input values, and those slots are never stored.
  const int lane = lane_id(), warp = int(threadIdx.x) / warp_threads;
  const std::size_t tile_begin = std::size_t(my.tile) * tile_size;
  const std::size_t thread_begin = tile_begin + std::size_t(warp) * warp_threads * rounds * vec + lane * vec;
  const bool full_tile = tile_begin + tile_size <= launch.n;
  T items[rounds][vec];
  if (full_tile) {
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

  // Phase 2: block scan; warp 0 publishes the tile total and looks back.
  const status_t status(launch.d_status + 1, launch.d_scratch, launch.num_tiles);
  auto tile_prefix = [&](const T& tile_total) -> maybe<T> {
    const bool publish = launch.num_tiles > 1;
    if (my.tile == 0) {
      if (publish && lane == 0)
        status.publish(0, tile_state::inclusive, apply_prefix(launch.initial, tile_total, op), my.tag);
      return launch.initial;
    }
    if (lane == 0) status.publish(my.tile, tile_state::aggregate, tile_total, my.tag);
    const T exclusive = warp_look_back<T>(status, my.tile, my.tag, op);
    if (lane == 0) status.publish(my.tile, tile_state::inclusive, op(exclusive, tile_total), my.tag);
    return maybe<T>{exclusive, true};
  };
  block_scan::template scan<Exclusive>(scan_storage, items, op, tile_prefix);

  // Phase 3: store (streaming stores keep the status words in L2).
  if (full_tile) {
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

}  // namespace scankit::detail
