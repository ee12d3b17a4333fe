// detail/kernels/radix_histogram_kernel.cuh — the digit counts of every pass
// of a radix sort in one read of the keys, and where each pass's digits start.
//
// A pass only reorders the keys, so the count of each digit in the whole
// array is the same before every pass: one histogram kernel counts all
// passes' digits at once (per block in shared memory, then one 64-bit atomic
// per block and digit), and one block per pass turns its counts into the
// digits' first output positions.
#pragma once

#include <scankit/detail/block/block_sum.cuh>
#include <scankit/detail/sort/radix_key.cuh>

#include <cstddef>
#include <cstdint>

namespace scankit::detail {

/// At most this many passes: 64-bit keys in 8-bit digits.
inline constexpr int radix_max_passes = 64 / radix_digit_bits;

/// The passes of one sort: every pass's digit, from the same key kind and order.
struct radix_passes {
  radix_key_kind kind;
  bool descending;
  int begin_bit;
  int end_bit;
  int count;  // (end_bit - begin_bit) / 8, rounded up

  __host__ __device__ radix_digit pass(int p) const {
    return radix_digit::of_pass(kind, descending, begin_bit, end_bit, p);
  }
};

inline constexpr int radix_histogram_threads = 512;

/// d_counts[p * 256 + d] += how many keys have digit d in pass p (d_counts
/// zeroed before). Grid-stride over the keys; each block counts in shared
/// memory (a block must see fewer than 2^32 keys), then adds its counts.
template <class Bits>
__global__ void __launch_bounds__(radix_histogram_threads)
    radix_histogram_kernel(const Bits* d_keys, std::size_t n, radix_passes passes, unsigned long long* d_counts) {
  __shared__ std::uint32_t counts[radix_max_passes * radix_digits];
  const int slots = passes.count * radix_digits;
  for (int i = threadIdx.x; i < slots; i += radix_histogram_threads) counts[i] = 0;
  __syncthreads();

  // Count: the ordered word once per key, then each pass's digit of it.
  const radix_digit first = passes.pass(0);
  const std::size_t stride = std::size_t(gridDim.x) * radix_histogram_threads;
  for (std::size_t i = std::size_t(blockIdx.x) * radix_histogram_threads + threadIdx.x; i < n; i += stride) {
    const Bits ordered = first.ordered(d_keys[i]);
    for (int p = 0; p < passes.count; ++p) {
      const radix_digit digit = passes.pass(p);
      atomicAdd(&counts[p * radix_digits + (std::uint32_t(ordered >> digit.shift) & digit.mask)], 1u);
    }
  }
  __syncthreads();

  // Add the block's counts to the totals.
  for (int i = threadIdx.x; i < slots; i += radix_histogram_threads)
    if (counts[i] != 0) atomicAdd(d_counts + i, (unsigned long long)counts[i]);
}

/// Block p (256 threads, one per digit): d_starts[p * 256 + d] = how many
/// keys have a digit below d in pass p, i.e. where digit d's keys start.
/// (A template only so that every translation unit may include it.)
template <class Count>
__global__ void __launch_bounds__(radix_digits) radix_digit_starts_kernel(const Count* d_counts, Count* d_starts) {
  const std::size_t slot = std::size_t(blockIdx.x) * radix_digits + threadIdx.x;
  d_starts[slot] = block_exclusive_sum<radix_digits>(d_counts[slot]);
}

}  // namespace scankit::detail
