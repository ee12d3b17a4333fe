// detail/block/block_scan_warp_shuffle.cuh — block-wide scan built from warp
// shuffles (the default block algorithm).
//
// Arrangement ("warp-striped vectors"): each warp owns a contiguous run of
// 32·ROUNDS·VEC items; in round r, lane l holds the VEC consecutive items at
// r·32·VEC + l·VEC. So every round is one fully coalesced 16-byte-per-lane
// load, and no shared-memory transpose is needed.
//
//   phase 1  per round: thread-local scan of VEC items, warp scan of the
//            lanes' totals (shuffles); carry the round totals across rounds
//   phase 2  warp 0 scans the warp totals and calls prefix_op(block total),
//            which returns the tile's exclusive prefix (the look-back)
//   phase 3  every thread folds tile, warp, round and lane prefixes into its
//            items (inclusive), or shifts them by one (exclusive)
#pragma once

#include <scankit/detail/maybe.cuh>
#include <scankit/detail/warp/shuffle.cuh>

namespace scankit::detail {

template <class T, int Threads, int Rounds, int Vec>
struct block_scan_warp_shuffle {
  static_assert(Threads % warp_threads == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  static constexpr int warps = Threads / warp_threads;

  // Raw bytes: T may have default member initializers, which shared memory
  // variables cannot run.
  struct storage {
    alignas(T) unsigned char warp_totals_bytes[warps * sizeof(T)];
    alignas(T) unsigned char warp_prefixes_bytes[warps * sizeof(T)];  // tile prefix ⊕ earlier warps' totals
    bool first_warp_has_prefix;
    __device__ T* warp_totals() { return reinterpret_cast<T*>(warp_totals_bytes); }
    __device__ T* warp_prefixes() { return reinterpret_cast<T*>(warp_prefixes_bytes); }
  };

  /// Scans `items` in place across the block. `prefix_op(block_total)` is
  /// called by all lanes of warp 0 and returns maybe<T>: the prefix to put in
  /// front of the whole block (absent only for inclusive scans of the first
  /// tile without an initial value). Exclusive scans require a prefix.
  template <bool Exclusive, class Op, class PrefixOp>
  __device__ static void scan(storage& smem, T (&items)[Rounds][Vec], Op op, PrefixOp prefix_op) {
    const int lane = lane_id();
    const int warp = int(threadIdx.x) / warp_threads;

    // Phase 1: thread-local and warp-level scans, round by round.
    maybe<T> lane_prefix[Rounds];  // within-warp prefix of this lane's vector in round r
    T carry{};                     // warp total of rounds before r
#pragma unroll
    for (int r = 0; r < Rounds; ++r) {
#pragma unroll
      for (int j = 1; j < Vec; ++j) items[r][j] = op(items[r][j - 1], items[r][j]);
      const T inclusive = warp_inclusive_scan(items[r][Vec - 1], op);
      const T lanes_before = shfl_up(inclusive, 1);
      const T round_total = shfl_idx(inclusive, warp_threads - 1);
      const maybe<T> carried{carry, r > 0};
      lane_prefix[r] = combine(carried, maybe<T>{lanes_before, lane > 0}, op);
      carry = r == 0 ? round_total : op(carry, round_total);
    }
    if (lane == warp_threads - 1) smem.warp_totals()[warp] = carry;
    __syncthreads();

    // Phase 2: warp 0 scans warp totals and gets the tile prefix.
    if (warp == 0) {
      T total = lane < warps ? smem.warp_totals()[lane] : T{};
      const T inclusive = warp_inclusive_scan(total, op, warps);
      const T block_total = shfl_idx(inclusive, warps - 1);
      const maybe<T> tile_prefix = prefix_op(block_total);
      const T warps_before = shfl_up(inclusive, 1);
      const maybe<T> prefix = combine(tile_prefix, maybe<T>{warps_before, lane > 0 && lane < warps}, op);
      if (lane < warps) smem.warp_prefixes()[lane] = prefix.value;
      if (lane == 0) smem.first_warp_has_prefix = prefix.has;
    }
    __syncthreads();

    // Phase 3: fold the prefixes into the items.
    const maybe<T> warp_prefix{smem.warp_prefixes()[warp], warp > 0 || smem.first_warp_has_prefix};
#pragma unroll
    for (int r = 0; r < Rounds; ++r) {
      const maybe<T> prefix = combine(warp_prefix, lane_prefix[r], op);
      if constexpr (Exclusive) {
#pragma unroll
        for (int j = Vec - 1; j > 0; --j) items[r][j] = op(prefix.value, items[r][j - 1]);
        items[r][0] = prefix.value;
      } else {
#pragma unroll
        for (int j = 0; j < Vec; ++j) items[r][j] = apply_prefix(prefix, items[r][j], op);
      }
    }
  }
};

}  // namespace scankit::detail
