// detail/block/block_scan_kogge_stone.cuh — Kogge-Stone block scan, one item
// per thread, in place (PMPP 11.2): in step s every item i >= s becomes
// x[i-s] ⊕ x[i]. Each thread reads into a temporary register, a barrier
// separates all reads from all writes, and a second barrier ends the step.
//
//   steps: ceil(log2 N)          work: N·log2(N) − (N − 1) for N a power of two
#pragma once

namespace scankit::detail {

struct block_scan_kogge_stone {
  static constexpr unsigned items_per_thread = 1;

  /// Inclusive scan of tile[0, m) in place, m <= blockDim.x; all threads of
  /// the block call it. `scratch` is unused. Ends with a barrier.
  template <class Tile, class T, class Op>
  __device__ static void scan(Tile tile, unsigned m, T* /*scratch*/, Op op) {
    const unsigned i = threadIdx.x;
    __syncthreads();  // the tile is fully staged
    for (unsigned stride = 1; stride < m; stride *= 2) {
      const bool active = i >= stride && i < m;
      T combined;
      if (active) combined = op(tile[i - stride], tile[i]);
      __syncthreads();  // every read of this step before any write
      if (active) tile[i] = combined;
      __syncthreads();  // every write before the next step's reads
    }
  }
};

}  // namespace scankit::detail
