// detail/block/block_scan_brent_kung.cuh — Brent-Kung block scan, two items
// per thread (PMPP 11.4): an up-sweep builds partial sums in a reduction tree
// (positions 2s−1, 4s−1, ...), a down-sweep distributes them to the positions
// in between. Works for any section length, not only powers of two.
//
//   steps: 2·log2(N) − 1         work: 2N − 2 − log2(N) for N a power of two
#pragma once

namespace scankit::detail {

struct block_scan_brent_kung {
  static constexpr unsigned items_per_thread = 2;

  /// Inclusive scan of tile[0, m) in place, m <= 2·blockDim.x; `scratch` is
  /// unused. Ends with a barrier.
  template <class Tile, class T, class Op>
  __device__ static void scan(Tile tile, unsigned m, T* /*scratch*/, Op op) {
    const unsigned t = threadIdx.x;
    // Up-sweep (reduction tree).
    unsigned top = 1;  // largest power of two below m, for the down-sweep
    for (unsigned stride = 1; stride < m; stride *= 2) {
      __syncthreads();
      const unsigned long long i = (t + 1ull) * 2 * stride - 1;
      if (i < m) tile[i] = op(tile[i - stride], tile[i]);
      top = stride;
    }
    // Down-sweep (distribution tree).
    for (unsigned stride = top / 2; stride > 0; stride /= 2) {
      __syncthreads();
      const unsigned long long i = (t + 1ull) * 2 * stride - 1;
      if (i + stride < m) tile[i + stride] = op(tile[i], tile[i + stride]);
    }
    __syncthreads();
  }
};

}  // namespace scankit::detail
