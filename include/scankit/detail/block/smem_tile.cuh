// detail/block/smem_tile.cuh — a tile of items in shared memory, indexed
// either plainly or with one padding slot after every 128 bytes of items.
//
// Padding is the textbook cure for bank conflicts (GPU Gems 3, ch. 39,
// CONFLICT_FREE_OFFSET): when each thread walks its own run of `items`
// consecutive items (three-phase) or a tree level touches every 2s-th item
// (Brent-Kung), the threads of a warp hit the same few banks; one extra slot
// every 128 bytes shifts each 128-byte row by one item, spreading them.
#pragma once

#include <cstddef>

namespace scankit::detail {

/// Whether items of `item_bytes` are padded when padding is asked for: items
/// over 16 bytes are not (each access already spans several wavefronts).
constexpr bool pads_items(std::size_t item_bytes) { return item_bytes <= 16; }

/// Shared-memory slots a tile of m items of `item_bytes` occupies (host and
/// device agree through this one function).
constexpr std::size_t smem_tile_slots(std::size_t m, std::size_t item_bytes, bool padded) {
  return padded && pads_items(item_bytes) ? m + m / (128 / item_bytes) : m;
}

template <class T, bool Padded>
struct smem_tile {
  static constexpr bool padded = Padded && pads_items(sizeof(T));
  static constexpr unsigned pad_every = unsigned(128 / sizeof(T));  // items per padding slot

  T* base;

  __device__ __forceinline__ T& operator[](unsigned k) const { return base[padded ? k + k / pad_every : k]; }
};

}  // namespace scankit::detail
