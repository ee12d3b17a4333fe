// detail/lookback/launch_ticket.cuh — tile ids in launch order, and the
// launch's tag, from one self-resetting 64-bit counter.
//
// counter = (epoch << 32) | tickets_taken. Blocks take tickets with atomicAdd;
// the low half is the tile id, so a tile only ever waits on tiles whose
// tickets were taken earlier (no reliance on blockIdx scheduling order). Each
// block keeps taking tickets until it draws one past the last tile, so a
// launch of G blocks over N tiles takes exactly N + G tickets. The block that
// draws ticket N + G - 1 knows every ticket is taken, and in one atomic resets
// the low half to 0 and advances the epoch for the next launch on this
// counter. Stream order then gives the next launch a fresh counter with no
// init kernel, also when the launch is replayed from a CUDA graph.
#pragma once

#include <cstdint>

namespace scankit::detail {

/// Largest tag; tags are 1 .. tag_modulus, never 0 (zeroed memory).
constexpr std::uint32_t tag_modulus = 0x7fffffffu;

struct launch_ticket {
  std::uint32_t tile;  // the tile this ticket grants (>= num_tiles: none left)
  std::uint32_t tag;   // this launch's status tag
};

/// Issues the atomic for a ticket; the result may be consumed later, so the
/// atomic's latency can hide behind other work.
__device__ __forceinline__ std::uint64_t draw_ticket(std::uint64_t* d_counter) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), 1ull);
}

/// Decodes a drawn ticket; the last ticket of the launch resets the counter.
__device__ __forceinline__ launch_ticket redeem_ticket(std::uint64_t* d_counter, std::uint64_t drawn,
                                                      std::uint32_t num_tiles, std::uint32_t num_blocks) {
  launch_ticket t;
  t.tile = std::uint32_t(drawn);
  t.tag = std::uint32_t((drawn >> 32) % tag_modulus) + 1u;
  const std::uint64_t total = std::uint64_t(num_tiles) + num_blocks;
  if (t.tile == total - 1) {
    // Every ticket is taken: reset the count, advance the epoch.
    atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), (1ull << 32) - total);
  }
  return t;
}

}  // namespace scankit::detail
