// detail/lookback/launch_ticket.cuh — tile ids in launch order, and the
// launch's tag, from one self-resetting 64-bit counter.
//
// counter = (epoch << 32) | tickets_taken. Each block draws one ticket with an
// atomicAdd: its tile id is the low half (blocks that start first get the
// lowest ids, so a tile only ever waits on tiles that are already running — no
// reliance on blockIdx scheduling order). The block that draws the last ticket
// knows every ticket is taken, and in the same atomic resets the low half to 0
// and advances the epoch for the next launch on this counter. Stream order
// then gives the next launch a fresh counter with no init kernel — also when
// the launch is replayed from a CUDA graph.
#pragma once

#include <cstdint>

namespace scankit::detail {

/// Largest tag; tags are 1 .. tag_modulus, never 0 (zeroed memory).
constexpr std::uint32_t tag_modulus = 0x7fffffffu;

struct launch_ticket {
  std::uint32_t tile;  // this block's tile id
  std::uint32_t tag;   // this launch's status tag
};

/// Issues the ticket atomic; its result may be consumed later (redeem_ticket),
/// so the atomic's latency can hide behind other work.
__device__ __forceinline__ std::uint64_t draw_ticket(std::uint64_t* d_counter) {
  return atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), 1ull);
}

/// Decodes a drawn ticket; the launch's last ticket (num_tiles == gridDim.x)
/// resets the counter.
__device__ __forceinline__ launch_ticket redeem_ticket(std::uint64_t* d_counter, std::uint64_t drawn,
                                                      std::uint32_t num_tiles) {
  launch_ticket t;
  t.tile = std::uint32_t(drawn);
  t.tag = std::uint32_t((drawn >> 32) % tag_modulus) + 1u;
  if (t.tile == num_tiles - 1) {
    // Every ticket is taken: reset the count, advance the epoch.
    atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), (1ull << 32) - num_tiles);
  }
  return t;
}

/// Persistent grids, where each block draws tickets until it gets one past
/// the last tile: a launch's draws total num_tiles + gridDim.x (one past-the-
/// end draw per block), and the last of them resets the counter. Tiles at or
/// past num_tiles mean "no more work".
__device__ __forceinline__ launch_ticket redeem_persistent_ticket(std::uint64_t* d_counter, std::uint64_t drawn,
                                                                 std::uint32_t total_draws) {
  launch_ticket t;
  t.tile = std::uint32_t(drawn);
  t.tag = std::uint32_t((drawn >> 32) % tag_modulus) + 1u;
  if (t.tile == total_draws - 1) atomicAdd(reinterpret_cast<unsigned long long*>(d_counter), (1ull << 32) - total_draws);
  return t;
}

}  // namespace scankit::detail
