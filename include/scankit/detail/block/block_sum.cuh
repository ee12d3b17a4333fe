// detail/block/block_sum.cuh — the sum of a block's per-thread values, for
// grid-stride counting and summing kernels: to thread 0, or added to a device
// counter with one atomic per block.
#pragma once

#include <scankit/detail/warp/shuffle.cuh>

namespace scankit::detail {

/// The sum of `value` over the block's Threads threads (wrapping in Word),
/// returned to thread 0 (other threads get a partial sum): a warp
/// reduction, the warps' sums in shared memory, then warp 0's reduction.
/// Every thread of the block calls it (it holds a barrier).
template <int Threads, class Word>
__device__ __forceinline__ Word block_sum(Word value) {
  static_assert(Threads % warp_threads == 0 && Threads / warp_threads <= warp_threads, "whole warps, at most 32");
  auto add = [](Word a, Word b) { return Word(a + b); };
  __shared__ Word warp_sums[Threads / warp_threads];
  value = warp_reduce(value, warp_threads, add);
  if (lane_id() == 0) warp_sums[threadIdx.x / warp_threads] = value;
  __syncthreads();
  if (threadIdx.x < warp_threads) {
    value = threadIdx.x < Threads / warp_threads ? warp_sums[threadIdx.x] : Word(0);
    value = warp_reduce(value, warp_threads, add);
  }
  return value;
}

/// *d_total += the sum of `value` over the block's Threads threads (Word:
/// unsigned int or unsigned long long): block_sum, then thread 0's atomic.
/// Every thread of the block calls it.
template <int Threads, class Word>
__device__ __forceinline__ void block_add_to(Word value, Word* d_total) {
  value = block_sum<Threads>(value);
  if (threadIdx.x == 0 && value != 0) atomicAdd(d_total, value);
}

}  // namespace scankit::detail
