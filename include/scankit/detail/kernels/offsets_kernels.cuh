// detail/kernels/offsets_kernels.cuh — small kernels on CSR offsets and
// sizes: the total of the sizes (allocation offsets' early total) and the
// validity check of offsets.
#pragma once

#include <scankit/detail/block/block_sum.cuh>

#include <cstdint>
#include <type_traits>

namespace scankit::detail {

inline constexpr int sum_sizes_threads = 256;

/// *d_total += sizes[0] + ... + sizes[n-1] (wrapping in Offset's unsigned
/// type); *d_total must be zeroed first. Grid-stride, sum_sizes_threads per
/// block; one atomic per block.
template <class Size, class Offset>
__global__ void __launch_bounds__(sum_sizes_threads)
    sum_sizes_kernel(const Size* d_sizes, std::size_t n, Offset* d_total) {
  using word = std::conditional_t<sizeof(Offset) == 8, unsigned long long, unsigned int>;
  static_assert(sizeof(word) == sizeof(Offset), "4- or 8-byte offsets");
  word sum = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride)  // four independent loads in flight
    sum += word(Offset(d_sizes[i])) + word(Offset(d_sizes[i + stride])) + word(Offset(d_sizes[i + 2 * stride])) +
           word(Offset(d_sizes[i + 3 * stride]));
  for (; i < n; i += stride) sum += word(Offset(d_sizes[i]));
  block_add_to<sum_sizes_threads>(sum, reinterpret_cast<word*>(d_total));
}

/// *d_first_bad = min over bad i of i, for the boundaries offsets[0 ..
/// num_boundaries): negative, greater than the next one, or (the last one)
/// greater than `limit`. *d_first_bad must start at UINT64_MAX.
template <class Offset>
__global__ void validate_offsets_kernel(const Offset* d_offsets, std::uint64_t num_boundaries, std::uint64_t limit,
                                        unsigned long long* d_first_bad) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < num_boundaries; i += stride) {
    const Offset o = d_offsets[i];
    bool bad = false;
    if constexpr (std::is_signed_v<Offset>) bad = o < 0;
    if (i + 1 < num_boundaries) bad = bad || d_offsets[i + 1] < o;
    else bad = bad || std::uint64_t(o) > limit;
    if (bad) atomicMin(d_first_bad, static_cast<unsigned long long>(i));
  }
}

}  // namespace scankit::detail
