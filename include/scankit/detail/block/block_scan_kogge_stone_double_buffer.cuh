// detail/block/block_scan_kogge_stone_double_buffer.cuh — Kogge-Stone with
// two buffers: each step reads one buffer and writes the other, so a single
// barrier per step suffices (PMPP 11.3, exercise). Same work as Kogge-Stone.
//
//   steps: ceil(log2 N)          work: N·log2(N) − (N − 1) for N a power of two
#pragma once

namespace scankit::detail {

struct block_scan_kogge_stone_double_buffer {
  static constexpr unsigned items_per_thread = 1;

  /// Inclusive scan of tile[0, m) in place, m <= blockDim.x; `scratch` holds
  /// blockDim.x items (the second buffer). Ends with a barrier.
  template <class T, class Op>
  __device__ static void scan(T* tile, unsigned m, T* scratch, Op op) {
    const unsigned i = threadIdx.x;
    T* source = tile;
    T* target = scratch;
    __syncthreads();  // the tile is fully staged
    for (unsigned stride = 1; stride < m; stride *= 2) {
      if (i < m) target[i] = i >= stride ? op(source[i - stride], source[i]) : source[i];
      __syncthreads();  // the only barrier of the step
      T* const swap = source;
      source = target;
      target = swap;
    }
    if (source != tile) {  // the result ended in the scratch buffer
      if (i < m) tile[i] = source[i];
      __syncthreads();
    }
  }
};

}  // namespace scankit::detail
