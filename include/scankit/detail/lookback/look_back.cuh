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

/// The order in which a look-back combines its predecessors' values.
enum class look_back_order {
  any,    ///< whatever was ready: windows of 32 reduced as a tree, stop at the first inclusive prefix met
  fixed,  ///< run to run reproducible: always a strict left fold from an inclusive prefix (see below)
};

/// Warp-wide: returns (in every lane) the exclusive prefix of `tile` (> 0),
/// i.e. the combination of all tiles before it, in order. Lane l inspects tile
/// (window_end - l), so lane 0 holds the nearest predecessor. The operator is
/// applied only to published values of tiles in [found inclusive, tile).
/// While a predecessor is unpublished the warp sleeps 8, 16, ... 256 ns
/// between polls (caps of 32 and 1024 ns measured the same on the H200).
///
/// look_back_order::fixed makes the result the same bits on every run even
/// for operators that are not exactly associative (floating-point sums): the
/// warp waits until one of its 32 nearest predecessors p has published its
/// inclusive prefix I(p), then folds strictly left to right,
/// ((I(p) ⊕ A(p+1)) ⊕ A(p+2)) ⊕ ... ⊕ A(tile-1). Every tile publishes
/// I(t) = exclusive ⊕ A(t), so by induction every published I(t) is the same
/// left fold from tile 0, whichever p a tile happened to start from.
template <class T, look_back_order Order = look_back_order::any, class Op, class Status>
__device__ T warp_look_back(const Status& status, std::uint32_t tile, std::uint32_t tag, Op op) {
  const int lane = lane_id();
  T prefix{};
  bool have_prefix = false;
  std::int64_t window_end = std::int64_t(tile) - 1;
  while (true) {
    const std::int64_t pred = window_end - lane;
    tile_reading<T> r;
    r.state = tile_state::inclusive;  // lanes before tile 0 never take part
    // Wait until every predecessor in the window has published something
    // (fixed order: until one of them has published its inclusive prefix).
    // (Waiting only for the lanes nearer than the nearest inclusive prefix
    // took the int32 kernel from 40 to 55 registers: 3 blocks per SM instead
    // of 4, 6 % slower at 2^28.)
    unsigned backoff_ns = 8;
    while (true) {
      if (pred >= 0) r = status.read(std::uint32_t(pred), tag);
      const bool waiting = Order == look_back_order::fixed
                               ? !__any_sync(full_warp_mask, r.state == tile_state::inclusive) ||
                                     __any_sync(full_warp_mask, r.state == tile_state::invalid)
                               : __any_sync(full_warp_mask, r.state == tile_state::invalid);
      if (!waiting) break;
      __nanosleep(backoff_ns);
      if (backoff_ns < 256) backoff_ns *= 2;
    }
    // Combine lanes up to and including the nearest inclusive prefix.
    const unsigned inclusive_lanes = __ballot_sync(full_warp_mask, pred >= 0 && r.state == tile_state::inclusive);
    const int count = inclusive_lanes ? __ffs(inclusive_lanes) : warp_threads;
    if constexpr (Order == look_back_order::fixed) {
      // Strict left fold from the inclusive prefix (lane count - 1) down to
      // lane 0. The shuffles do not depend on the fold, so they are issued a
      // batch ahead of the combines: one shuffle latency per batch, not per
      // step. (Lanes count - 1 - j < 0 wrap around and are not combined.)
      constexpr int batch_size = 8;
      T folded = shfl_idx(r.value, count - 1);
      for (int next = count - 2; next >= 0; next -= batch_size) {
        T batch[batch_size];
#pragma unroll
        for (int j = 0; j < batch_size; ++j) batch[j] = shfl_idx(r.value, next - j);
#pragma unroll
        for (int j = 0; j < batch_size; ++j)
          if (next - j >= 0) folded = op(folded, batch[j]);
      }
      return folded;
    } else {
      T window = warp_reverse_reduce(r.value, count, op);
      window = shfl_idx(window, 0);
      prefix = have_prefix ? op(window, prefix) : window;
      have_prefix = true;
      if (inclusive_lanes) return prefix;
      window_end -= warp_threads;
    }
  }
}

/// The first half of tile_exclusive_prefix, for callers with other work to do
/// before they look back: publishes the tile's aggregate (tile 0: its
/// inclusive prefix initial ⊕ total). Called by lane 0 of one warp, or by
/// all of its lanes. With `single_tile` nothing is published.
template <class T, class Op, class Status>
__device__ void publish_tile_aggregate(const Status& status, launch_ticket my, bool single_tile, const T& tile_total,
                                       const T& initial, Op op) {
  if (lane_id() != 0 || single_tile) return;
  if (my.tile == 0)
    status.publish(0, tile_state::inclusive, op(initial, tile_total), my.tag);
  else
    status.publish(my.tile, tile_state::aggregate, tile_total, my.tag);
}

/// The second half: called by all lanes of one warp after
/// publish_tile_aggregate, looks back, publishes the tile's inclusive prefix
/// and returns its exclusive prefix (tile 0: `initial`, at once). A nonzero
/// `first_poll_delay_ns` makes the warp sleep that long before its first
/// poll, so that the nearest predecessors have likely published their
/// inclusive prefixes by then.
template <class T, class Op, class Status>
__device__ T look_back_and_publish(const Status& status, launch_ticket my, const T& tile_total, const T& initial, Op op,
                                   unsigned first_poll_delay_ns = 0) {
  if (my.tile == 0) return initial;
  if (first_poll_delay_ns > 0) __nanosleep(first_poll_delay_ns);
  const T exclusive = warp_look_back<T>(status, my.tile, my.tag, op);
  if (lane_id() == 0) status.publish(my.tile, tile_state::inclusive, op(exclusive, tile_total), my.tag);
  return exclusive;
}

/// Called by all lanes of one warp of tile `my.tile`: publishes the tile's
/// aggregate, looks back, publishes its inclusive prefix and returns the
/// tile's exclusive prefix. Tile 0 publishes initial ⊕ total and returns
/// `initial`. With `single_tile` nothing is published.
template <class T, class Op, class Status>
__device__ T tile_exclusive_prefix(const Status& status, launch_ticket my, bool single_tile, const T& tile_total,
                                   const T& initial, Op op) {
  publish_tile_aggregate(status, my, single_tile, tile_total, initial, op);
  return look_back_and_publish(status, my, tile_total, initial, op);
}

}  // namespace scankit::detail
