// detail/lookback/launch_ticket.cuh — tile ids in launch order, and the
// launch's tag, from one self-resetting 64-bit counter.
//
// counter = (epoch << 32) | tickets_taken. Each block takes one ticket with an
// atomicAdd: its tile id is the low half (blocks that start first get the
// lowest ids, so a tile only ever waits on tiles that are already running — no
// reliance on blockIdx scheduling order). The block that takes the last ticket
// knows every ticket is taken, and in the same atomic resets the low half to 0
// and advances the epoch for the next launch on this counter. Stream order
// then guarantees the next launch sees a fresh counter, with no init kernel —
// also when the launch is replayed from a CUDA graph.
#pragma once

#include <cstdint>

namespace scankit::detail {

/// Largest tag + 1; tags are 1 .. tag_modulus, never 0 (zeroed memory).
constexpr std::uint32_t tag_modulus = 0x7fffffffu;

struct launch_ticket {
  std::uint32_t tile;  // this block's tile id
  std::uint32_t tag;   // this launch's status tag
};

/// Called by one thread of the block; num_tiles == gridDim.x.
__device__ __forceinline__ launch_ticket take_launch_ticket(std::uint64_t* d_counter, std::uint32_t num_tiles) {
  const std::uint64_t old = atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), 1ull);
  launch_ticket t;
  t.tile = std::uint32_t(old);
  t.tag = std::uint32_t((old >> 32) % tag_modulus) + 1u;
  if (t.tile == num_tiles - 1) {
    // Every ticket is taken: reset the count, advance the epoch.
    atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), (1ull << 32) - num_tiles);
  }
  return t;
}

}  // namespace scankit::detail
