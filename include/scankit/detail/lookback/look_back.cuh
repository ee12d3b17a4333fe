// detail/lookback/look_back.cuh — the decoupled look-back (Merrill & Garland):
// a tile publishes its aggregate, then one warp walks back over its
// predecessors' status words 32 at a time until it meets an inclusive prefix,
// combining the aggregates it passed; then the tile publishes its own
// inclusive prefix. Shared by every single-pass primitive.
#pragma once

#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstdint>

namespace scankit::detail {

/// Warp-wide: returns (in every lane) the exclusive prefix of `tile` (> 0),
/// i.e. the combination of all tiles before it, in order. Lane l inspects tile
/// (window_end - l), so lane 0 holds the nearest predecessor. The operator is
/// applied only to published values of tiles in [found inclusive, tile).
/// While a predecessor is unpublished the warp sleeps 8, 16, ... 256 ns
/// between polls (caps of 32 and 1024 ns measured the same on the H200).
template <class T, class Op, class Status>
__device__ T warp_look_back(const Status& status, std::uint32_t tile, std::uint32_t tag, Op op) {
  const int lane = lane_id();
  T prefix{};
  bool have_prefix = false;
  std::int64_t window_end = std::int64_t(tile) - 1;
  while (true) {
    const std::int64_t pred = window_end - lane;
    tile_reading<T> r;
    r.state = tile_state::inclusive;  // lanes before tile 0 never take part
    // Wait until every predecessor in the window has published something.
    unsigned backoff_ns = 8;
    while (true) {
      if (pred >= 0) r = status.read(std::uint32_t(pred), tag);
      if (!__any_sync(full_warp_mask, r.state == tile_state::invalid)) break;
      __nanosleep(backoff_ns);
      if (backoff_ns < 256) backoff_ns *= 2;
    }
    // Combine lanes up to and including the nearest inclusive prefix.
    const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, pred >= 0 && r.state == tile_state::inclusive);
    const int count = inclusive_lanes ? __ffs(inclusive_lanes) : warp_threads;
    T window = warp_reverse_reduce(r.value, count, op);
    window = shfl_idx(window, 0);
    prefix = have_prefix ? op(window, prefix) : window;
    have_prefix = true;
    if (inclusive_lanes) return prefix;
    window_end -= warp_threads;
  }
}

/// Called by all lanes of one warp of tile `my.tile`: publishes the tile's
/// aggregate, looks back, publishes its inclusive prefix and returns the
/// tile's exclusive prefix. Tile 0 publishes initial ⊕ total and returns
/// `initial`. With `single_tile` nothing is published.
template <class T, class Op, class Status>
__device__ T tile_exclusive_prefix(const Status& status, launch_ticket my, bool single_tile, const T& tile_total,
                                   const T& initial, Op op) {
  const bool leader = lane_id() == 0;
  if (my.tile == 0) {
    if (!single_tile && leader) status.publish(0, tile_state::inclusive, op(initial, tile_total), my.tag);
    return initial;
  }
  if (leader) status.publish(my.tile, tile_state::aggregate, tile_total, my.tag);
  const T exclusive = warp_look_back<T>(status, my.tile, my.tag, op);
  if (leader) status.publish(my.tile, tile_state::inclusive, op(exclusive, tile_total), my.tag);
  return exclusive;
}

}  // namespace scankit::detail
