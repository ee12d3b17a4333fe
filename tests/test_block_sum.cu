// tests/test_block_sum.cu — the block-wide sums of detail/block/block_sum.cuh
// (used by the radix sort, the counting kernels and partition's in-launch
// count) on their own, against a host reference: block_sum to thread 0,
// block_exclusive_sum in thread order with the block's total in every thread,
// called twice in a row (its shared memory reused), for blocks of one warp to
// 32 warps, 32-bit words that wrap and 64-bit words past 2^32.
#include "support/cuda_check.hpp"
#include "support/random.hpp"
#include <scankit/detail/block/block_sum.cuh>

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace sktest;

namespace {

/// Per block b and thread t (i = b * Threads + t, v = d_in[i]): d_first[i]
/// the exclusive sum of v, d_second[i] that of a second call on ~v;
/// thread 0's totals of the two calls in d_totals[2b] and d_totals[2b + 1]
/// and its block_sum of v in d_sums[b]; every thread whose totals differ
/// from thread 0's counts itself in *d_total_mismatches.
template <int Threads, class Word>
__global__ void block_sums_kernel(const Word* d_in, Word* d_first, Word* d_second, Word* d_totals, Word* d_sums,
                                  unsigned* d_total_mismatches) {
  const std::size_t i = std::size_t(blockIdx.x) * Threads + threadIdx.x;
  const Word v = d_in[i];
  Word first_total = 0, second_total = 0;
  d_first[i] = scankit::detail::block_exclusive_sum<Threads>(v, &first_total);
  d_second[i] = scankit::detail::block_exclusive_sum<Threads>(Word(~v), &second_total);
  const Word sum = scankit::detail::block_sum<Threads>(v);
  if (threadIdx.x == 0) {
    d_sums[blockIdx.x] = sum;
    d_totals[2 * blockIdx.x] = first_total;
    d_totals[2 * blockIdx.x + 1] = second_total;
  }
  __shared__ Word thread0_totals[2];
  if (threadIdx.x == 0) thread0_totals[0] = first_total, thread0_totals[1] = second_total;
  __syncthreads();
  if (first_total != thread0_totals[0] || second_total != thread0_totals[1]) atomicAdd(d_total_mismatches, 1u);
}

template <int Threads, class Word>
void block_sums_case(unsigned blocks, bool large_values) {
  const std::string label = "block_sum/" + std::to_string(Threads) + "/" + std::to_string(sizeof(Word)) + "/" +
                            std::to_string(int(large_values));
  const std::uint64_t seed = case_seed(label);
  CAPTURE(Threads, sizeof(Word), large_values, seed);
  rng r(seed);
  const std::size_t n = std::size_t(blocks) * Threads;
  std::vector<Word> in(n);
  // Large values make 32-bit sums wrap and 64-bit sums pass 2^32.
  for (auto& x : in) x = Word(large_values ? r.next() : r.below(1000));
  cuda_stream stream;
  device_buffer<Word> d_in(n), d_first(n), d_second(n), d_totals(2 * blocks), d_sums(blocks);
  device_buffer<unsigned> d_mismatches(1);
  d_in.upload(in, stream);
  d_first.poison(stream);
  d_second.poison(stream);
  SKTEST_CUDA(cudaMemsetAsync(d_mismatches.data(), 0, sizeof(unsigned), stream));
  block_sums_kernel<Threads, Word><<<blocks, Threads, 0, stream>>>(d_in.data(), d_first.data(), d_second.data(),
                                                                   d_totals.data(), d_sums.data(), d_mismatches.data());
  SKTEST_CUDA(cudaGetLastError());
  const std::vector<Word> first = d_first.download(stream), second = d_second.download(stream);
  const std::vector<Word> totals = d_totals.download(stream), sums = d_sums.download(stream);
  CHECK(d_mismatches.download(stream).at(0) == 0u);  // every thread got its block's totals
  std::size_t bad_first = 0, bad_second = 0, bad_totals = 0;
  for (unsigned b = 0; b < blocks; ++b) {
    Word running = 0, running_not = 0;
    for (int t = 0; t < Threads; ++t) {
      const std::size_t i = std::size_t(b) * Threads + t;
      bad_first += first[i] != running;
      bad_second += second[i] != running_not;
      running = Word(running + in[i]);
      running_not = Word(running_not + Word(~in[i]));
    }
    bad_totals += totals[2 * b] != running || totals[2 * b + 1] != running_not || sums[b] != running;
  }
  CHECK(bad_first == 0);
  CHECK(bad_second == 0);
  CHECK(bad_totals == 0);
}

}  // namespace

TEST_CASE("block_sum and block_exclusive_sum equal the host's sums in thread order", "[gpu][block]") {
  for (bool large : {false, true}) {
    block_sums_case<32, std::uint32_t>(7, large);
    block_sums_case<256, std::uint32_t>(13, large);
    block_sums_case<1024, std::uint32_t>(5, large);
    block_sums_case<32, std::uint64_t>(7, large);
    block_sums_case<256, std::uint64_t>(13, large);
    block_sums_case<1024, std::uint64_t>(5, large);
  }
  SKTEST_REQUIRE_DEVICE_CLEAN();
}
