// detail/block/block_scan_three_phase.cuh — coarsened three-phase block scan
// (PMPP 11.5): each thread scans its own run of consecutive items
// sequentially, the run totals are scanned by an inner one-item-per-thread
// block scan, and each run adds its predecessor's total.
//
//   three_phase:  inner = Kogge-Stone over the run totals
//   warp_shuffle: inner = warp-shuffle scans (the textbook form used by the
//                 non-default grid strategies)
//
// work for T threads × I items: T(I−1) + inner(T) + (T−1)·I; with one thread
// it is the sequential scan, N − 1.
#pragma once

#include <scankit/detail/block/block_scan_kogge_stone.cuh>
#include <scankit/detail/warp/shuffle.cuh>

namespace scankit::detail {

/// One item per thread: warp-shuffle scans, then a scan of the warp totals
/// by warp 0. Inclusive scan of values[0, m) in place, m <= blockDim.x;
/// `scratch` holds 32 items. Ends with a barrier.
struct block_scan_warp_shuffle_items {
  template <class T, class Op>
  __device__ static void scan(T* values, unsigned m, T* scratch, Op op) {
    const unsigned i = threadIdx.x, warp = i / warp_threads, lane = i % warp_threads;
    const unsigned warps = (m + warp_threads - 1) / warp_threads;
    __syncthreads();  // values are staged
    T x{};
    if (i < m) x = values[i];
    const int in_warp = int(m > warp * warp_threads ? (m - warp * warp_threads < 32 ? m - warp * warp_threads : 32) : 0);
    x = warp_inclusive_scan(x, op, in_warp);
    if (in_warp > 0 && lane == unsigned(in_warp) - 1) scratch[warp] = x;
    __syncthreads();
    if (warp == 0) {
      T total{};
      if (lane < warps) total = scratch[lane];
      total = warp_inclusive_scan(total, op, int(warps));
      if (lane < warps) scratch[lane] = total;
    }
    __syncthreads();
    if (i < m) values[i] = warp > 0 ? op(scratch[warp - 1], x) : x;
    __syncthreads();
  }
};

template <class Inner>
struct block_scan_three_phase {
  /// Inclusive scan of tile[0, m) in place with runs of `items` per thread,
  /// m <= blockDim.x · items; `scratch` holds blockDim.x + 32 items. Ends with
  /// a barrier. (A padded smem_tile keeps the runs free of bank conflicts.)
  template <class Tile, class T, class Op>
  __device__ static void scan(Tile tile, unsigned m, unsigned items, T* scratch, Op op) {
    const unsigned t = threadIdx.x;
    const unsigned begin = t * items;
    const unsigned end = begin + items < m ? begin + items : m;
    const unsigned runs = (m + items - 1) / items;
    __syncthreads();  // the tile is staged
    // Phase 1: each thread scans its own run.
    if (begin < end) {
      T running = tile[begin];
      for (unsigned k = begin + 1; k < end; ++k) tile[k] = running = op(running, tile[k]);
      scratch[t] = running;
    }
    // Phase 2: scan of the run totals.
    Inner::scan(scratch, runs, scratch + blockDim.x, op);
    // Phase 3: each run adds the total of the runs before it.
    if (t > 0 && begin < end) {
      const T carry = scratch[t - 1];
      for (unsigned k = begin; k < end; ++k) tile[k] = op(carry, tile[k]);
    }
    __syncthreads();
  }
};

}  // namespace scankit::detail
