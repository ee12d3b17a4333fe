// detail/block/block_sum.cuh — the sum of a block's per-thread values, for
// grid-stride counting and summing kernels: to thread 0, or added to a device
// counter with one atomic per block; and their exclusive prefix sums.
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

/// The exclusive prefix sum of `value` over the block's Threads threads in
/// thread order (thread 0 gets 0), in every thread; `*total` (if given) gets
/// the whole sum in every thread. Warp scans, then the warps' totals from
/// shared memory. Every thread of the block calls it (it holds barriers, and
/// may be called again after it returns).
template <int Threads, class Word>
__device__ __forceinline__ Word block_exclusive_sum(Word value, Word* total = nullptr) {
  static_assert(Threads % warp_threads == 0 && Threads / warp_threads <= warp_threads, "whole warps, at most 32");
  constexpr int warps = Threads / warp_threads;
  __shared__ Word warp_totals[warps];
  const Word inclusive = warp_inclusive_scan(value, [](Word a, Word b) { return Word(a + b); });
  const int warp = int(threadIdx.x) / warp_threads;
  if (lane_id() == warp_threads - 1) warp_totals[warp] = inclusive;
  __syncthreads();
  Word before = 0, all = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    if (w < warp) before += warp_totals[w];
    all += warp_totals[w];
  }
  if (total != nullptr) *total = all;
  __syncthreads();  // warp_totals may be written again by the next call
  return Word(before + inclusive - value);
}

}  // namespace scankit::detail
