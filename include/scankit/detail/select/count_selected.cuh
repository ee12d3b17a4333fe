// detail/select/count_selected.cuh — how many items a selector selects, for
// partition, which must know the total before it places a rejected item:
// each thread counts its share of a range (grid-stride over the input in the
// pre-pass, block-stride over a block's tiles in a launch that counts
// itself), reading only what the selector needs (for flags, the flags alone)
// in 16-byte packs.
#pragma once

#include <scankit/detail/block/block_sum.cuh>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/select/selectors.cuh>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace scankit::detail {

/// Selected bits of the items in one 16-byte pack of the array the selector
/// reads: the flags (flag selectors) or the items (predicates).
template <int Vec, class Item, class Selector>
__device__ __forceinline__ unsigned pack_bits(const uint4& pack, const Selector& select) {
  if constexpr (side_bytes_of<Selector> != 0) {
    return select.template bits_staged<Vec>(reinterpret_cast<const typename Selector::flag_type*>(&pack));
  } else {
    Item items[Vec];
    memcpy(items, &pack, sizeof(items));
    return select.template bits<Vec>(items, static_cast<const Item*>(nullptr), 0, Vec);
  }
}

/// The items selected among this thread's share of items [begin, end):
/// thread `thread` of `stride` threads takes every stride-th 16-byte pack,
/// four packs in flight (byte flags loaded one per thread would keep too few
/// bytes in flight to reach the memory's bandwidth), and every stride-th
/// item of what is left after the whole packs (or of everything, when the
/// array is misaligned or `begin` does not start a pack).
template <class Item, class Selector>
__device__ __forceinline__ unsigned count_selected_share(const Item* d_in, const Selector& select, std::size_t begin,
                                                         std::size_t end, std::size_t thread, std::size_t stride) {
  constexpr std::size_t read_bytes = side_bytes_of<Selector> != 0 ? side_bytes_of<Selector> : sizeof(Item);
  constexpr int vec = read_bytes < 16 && 16 % read_bytes == 0 ? int(16 / read_bytes) : 0;  // 0: no packs
  constexpr int pack_items = vec != 0 ? vec : 1;
  constexpr int unroll = 4;
  const void* read_base = d_in;
  if constexpr (side_bytes_of<Selector> != 0) read_base = select.d_flags;
  const bool packed = vec != 0 && reinterpret_cast<std::uintptr_t>(read_base) % 16 == 0 && begin % pack_items == 0;
  const std::size_t first_pack = packed ? begin / pack_items : 0, end_pack = packed ? end / pack_items : 0;
  unsigned count = 0;
  // Whole packs, `unroll` loads issued before any is used.
  if constexpr (vec != 0) {
    const uint4* const pack_ptr = static_cast<const uint4*>(read_base);
    for (std::size_t base = first_pack + thread; base < end_pack; base += unroll * stride) {
      uint4 pack[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (base + u * stride < end_pack) pack[u] = pack_ptr[base + u * stride];
#pragma unroll
      for (int u = 0; u < unroll; ++u)
        if (base + u * stride < end_pack) count += __popc(pack_bits<vec, Item>(pack[u], select));
    }
  }
  // The rest (or everything, unpacked): one item at a time.
  for (std::size_t i = (packed ? end_pack * pack_items : begin) + thread; i < end; i += stride) {
    const Item one[1] = {d_in[i]};
    count += select.template bits<1>(one, d_in + i, i, 1) & 1u;
  }
  return count;
}

/// Threads per block of the counting pre-pass.
inline constexpr int count_threads = 256;

/// The counting pre-pass of partition on larger calls: block b writes its
/// count to d_block_counts[b] (every block writes, so nothing is zeroed
/// first). The selection kernel after it is its programmatic dependent: it
/// stages, selects and looks back its first tiles while the count runs, and
/// waits for the count only before its first scatter.
template <class Item, class Selector>
__global__ void __launch_bounds__(count_threads) count_selected_kernel(const Item* d_in, Selector select,
                                                                       std::size_t n, std::uint64_t* d_block_counts) {
  allow_dependent_launch();
  const std::size_t thread = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const unsigned count = count_selected_share(d_in, select, 0, n, thread, std::size_t(gridDim.x) * blockDim.x);
  const auto block_count = block_sum<count_threads>(static_cast<unsigned long long>(count));
  if (threadIdx.x == 0) d_block_counts[blockIdx.x] = block_count;
}

}  // namespace scankit::detail
