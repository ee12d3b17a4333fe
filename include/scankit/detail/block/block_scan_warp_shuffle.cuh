// detail/block/block_scan_warp_shuffle.cuh — block-wide scan built from warp
// shuffles (the default block algorithm).
//
// Arrangement ("warp-striped vectors"): each warp owns a contiguous run of
// 32·ROUNDS·VEC items; in round r, lane l holds the VEC consecutive items at
// r·32·VEC + l·VEC. Every round is one fully coalesced (and, from shared
// memory, conflict-free) 16-byte-per-lane access.
//
// The tile stays where the caller staged it (shared memory): the scan reads
// each round twice and keeps only one prefix per round in registers, so a
// block's registers do not grow with its tile.
//
//   pass 1   per round: thread-local scan of VEC items, warp scan of the
//            lanes' totals (shuffles); keep this lane's prefix in the warp;
//            carry the round totals across rounds
//   pass 2   warp 0 scans the warp totals and calls prefix_op(block total),
//            which returns the tile's exclusive prefix (the look-back)
//   pass 3   per round: reload, rescan locally, fold in tile, warp, round and
//            lane prefixes (inclusive) or shift by one (exclusive), emit
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

  /// Scans the tile. `load_round(r, v)` fills this thread's VEC items of round
  /// r (called twice per round); `emit_round(r, v)` receives the scanned
  /// items. `prefix_op(block_total)` is called by all lanes of warp 0 and
  /// returns maybe<T>: the prefix of the whole block (absent only for
  /// inclusive scans of the first tile without an initial value). Exclusive
  /// scans require a prefix.
  template <bool Exclusive, class Op, class LoadRound, class EmitRound, class PrefixOp>
  __device__ static void scan(storage& smem, LoadRound load_round, EmitRound emit_round, Op op, PrefixOp prefix_op) {
    const int lane = lane_id();
    const int warp = int(threadIdx.x) / warp_threads;

    // Pass 1: thread-local and warp-level scans, round by round.
    T lane_prefix[Rounds];  // prefix of this lane's vector within the warp (absent for r = 0, lane 0)
    T carry{};              // warp total of the rounds before r
#pragma unroll
    for (int r = 0; r < Rounds; ++r) {
      T v[Vec];
      load_round(r, v);
#pragma unroll
      for (int j = 1; j < Vec; ++j) v[j] = op(v[j - 1], v[j]);
      const T inclusive = warp_inclusive_scan(v[Vec - 1], op);
      const T lanes_before = shfl_up(inclusive, 1);
      const T round_total = shfl_idx(inclusive, warp_threads - 1);
      if (r == 0) {
        lane_prefix[r] = lanes_before;
        carry = round_total;
      } else {
        lane_prefix[r] = lane > 0 ? op(carry, lanes_before) : carry;
        carry = op(carry, round_total);
      }
    }
    if (lane == warp_threads - 1) smem.warp_totals()[warp] = carry;
    __syncthreads();

    // Pass 2: warp 0 scans warp totals and gets the tile prefix.
    if (warp == 0) {
      const T total = lane < warps ? smem.warp_totals()[lane] : T{};
      const T inclusive = warp_inclusive_scan(total, op, warps);
      const T block_total = shfl_idx(inclusive, warps - 1);
      const maybe<T> tile_prefix = prefix_op(block_total);
      const T warps_before = shfl_up(inclusive, 1);
      const maybe<T> prefix = combine(tile_prefix, maybe<T>{warps_before, lane > 0 && lane < warps}, op);
      if (lane < warps) smem.warp_prefixes()[lane] = prefix.value;
      if (lane == 0) smem.first_warp_has_prefix = prefix.has;
    }
    __syncthreads();

    // Pass 3: rescan each round locally and fold the prefixes in.
    const maybe<T> warp_prefix{smem.warp_prefixes()[warp], warp > 0 || smem.first_warp_has_prefix};
#pragma unroll
    for (int r = 0; r < Rounds; ++r) {
      T v[Vec];
      load_round(r, v);
      const maybe<T> prefix = combine(warp_prefix, maybe<T>{lane_prefix[r], r > 0 || lane > 0}, op);
      if constexpr (Exclusive) {
        T running = prefix.value;
#pragma unroll
        for (int j = 0; j < Vec; ++j) {
          const T x = v[j];
          v[j] = running;
          running = op(running, x);
        }
      } else {
        v[0] = apply_prefix(prefix, v[0], op);
#pragma unroll
        for (int j = 1; j < Vec; ++j) v[j] = op(v[j - 1], v[j]);
      }
      emit_round(r, v);
    }
  }
};

}  // namespace scankit::detail
