// detail/ragged/run_tile.cuh — what both reduce-by-key kernels share, however
// they hold their tile: the launch's arguments, the scan of the threads' run
// carries with the tile's look-back, and the tile's coalesced stores of the
// runs it starts and closes.
#pragma once

#include <scankit/detail/block/block_scan_warp_shuffle.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/ragged/segment_carry.cuh>

#include <cstddef>
#include <cstdint>

namespace scankit::detail {

/// Threads, items per thread and blocks per SM of reduce-by-key, and where
/// the tile is held. Pairs of up to 8 bytes: each thread's 16 consecutive
/// pairs in registers, 256 threads, 5 blocks per SM (48 registers). Wider
/// pairs: the tile staged in shared memory, odd items per thread so that
/// threads reading their consecutive items hit different banks, min_blocks
/// keeping 5 blocks per SM for pairs of up to 16 bytes. Measured at 2^28 on
/// the H200: for 4-byte keys and values the register tile is 6 to 14 %
/// faster than the staged kernel's best shape (384 x 9), for 8-byte ones 7
/// to 13 % slower (2026-12-02); for those 256 x 9 is within 2 % of the best
/// staged shape and 5 blocks per SM are 7 % faster than 4 (2026-12-01).
template <class K, class V>
struct reduce_by_key_shape {
  static constexpr std::size_t pair_bytes = sizeof(K) + sizeof(V);
  static constexpr bool in_registers = pair_bytes <= 8;
  static constexpr int threads = 256;
  static constexpr int items = in_registers ? 16 : pair_bytes <= 16 ? 9 : 7;
  static constexpr int min_blocks = pair_bytes <= 16 ? 5 : 1;
  static constexpr std::uint32_t tile_items = std::uint32_t(threads) * items;
};

struct reduce_by_key_launch {
  std::uint64_t n;
  std::uint32_t num_tiles;
  bool vector_loads;        // keys and values 16-byte aligned: full tiles arrive in 16-byte vectors
  std::uint64_t* d_status;  // [0] launch counter, [1 + t] tile t's word
  void* d_scratch;          // split-layout tile values
  std::size_t* d_count;     // receives the number of runs
};

/// The threads' run carries (heads, partial of the last run) in two steps, so
/// that a tile's look-back overlaps its walks: scan_tile, the exclusive scan
/// within the tile (warp 0 publishes the tile's aggregate), and then, once
/// the tile's runs are laid out by tile-local index, look_back by warp 0 for
/// the runs before the tile and the partial of the run open at its start.
template <class V, int Threads>
struct run_carry_scan {
  using carry_t = segment_carry<V>;
  using block_scan = block_scan_warp_shuffle<carry_t, Threads, 1, 1>;

  // Raw bytes: V may have default member initializers, which shared memory
  // variables cannot run.
  struct storage {
    typename block_scan::storage scan;
    alignas(carry_t) unsigned char tile_total_bytes[sizeof(carry_t)];
    alignas(V) unsigned char open_run_prefix_bytes[sizeof(V)];
    std::uint32_t runs_before_tile, heads_in_tile;
    __device__ carry_t& tile_total() { return *reinterpret_cast<carry_t*>(tile_total_bytes); }
    /// After look_back, in tiles after the first: the reduction of the
    /// values before the tile in the run open at its start.
    __device__ V& open_run_prefix() { return *reinterpret_cast<V*>(open_run_prefix_bytes); }
  };

  /// This thread's carry in within the tile: the heads before its items in
  /// the tile and the partial of the run its first item continues from
  /// earlier items of the tile; thread 0 gets none (boundaries 0, partial
  /// not meaningful). Warp 0 publishes the tile's aggregate; heads_in_tile is
  /// valid in `smem` once scan_tile returns.
  template <class Op>
  __device__ static carry_t scan_tile(storage& smem, const carry_t& mine, const reduce_by_key_launch& L,
                                      launch_ticket my, Op op) {
    const segment_carry_op<V, Op, true> carry_op{op};
    const tile_status<carry_t> status(L.d_status + 1, L.d_scratch, L.num_tiles);
    carry_t carry_in;
    block_scan::template scan<true>(
        smem.scan, [&](int, carry_t(&c)[1]) { c[0] = mine; }, [&](int, const carry_t(&c)[1]) { carry_in = c[0]; },
        carry_op, [&](const carry_t& tile_total) {
          publish_tile_aggregate(status, my, L.num_tiles == 1, tile_total, carry_t{0, V{}}, carry_op);
          if (lane_id() == 0) {
            smem.tile_total() = tile_total;
            smem.heads_in_tile = tile_total.boundaries;
          }
          return maybe<carry_t>{tile_total, false};
        });
    if (threadIdx.x == 0) carry_in.boundaries = 0;
    return carry_in;
  }

  /// Called by all lanes of warp 0 after scan_tile: the look-back, its first
  /// poll after `first_poll_delay_ns`. After a barrier, runs_before_tile and
  /// (tiles after the first) open_run_prefix are valid in `smem`. The input
  /// starts with a head, so the initial partial is never combined.
  template <class Op>
  __device__ static void look_back(storage& smem, const reduce_by_key_launch& L, launch_ticket my, Op op,
                                   unsigned first_poll_delay_ns) {
    const segment_carry_op<V, Op, true> carry_op{op};
    const tile_status<carry_t> status(L.d_status + 1, L.d_scratch, L.num_tiles);
    const carry_t prefix =
        look_back_and_publish(status, my, smem.tile_total(), carry_t{0, V{}}, carry_op, first_poll_delay_ns);
    if (lane_id() == 0) {
      smem.runs_before_tile = prefix.boundaries;
      smem.open_run_prefix() = prefix.partial;
    }
  }
};

/// The tile's coalesced stores: the keys of the runs starting in it (run
/// base + k in unique_s at key_slot(k)) and the values of the runs it closes
/// (run base - 1 + k in reduced_s at value_slot(k); the last tile also closes
/// the last run), and the run count from the last tile. Slot 0 of reduced_s
/// holds only the tile's own part of the run open at its start (nothing when
/// `first_item_is_head`, which only thread 0 needs to know), so the run's
/// value is open_run_prefix ⊕ that part. Call after a barrier that follows
/// the writes to the slots and the look-back.
template <int Threads, class K, class V, class KeySlot, class ValueSlot, class Op>
__device__ __forceinline__ void store_tile_runs(const K* unique_s, KeySlot key_slot, const V* reduced_s,
                                                ValueSlot value_slot, std::uint32_t base, std::uint32_t tile_heads,
                                                const V& open_run_prefix, bool first_item_is_head, Op op,
                                                launch_ticket my, bool last_tile, K* d_unique_keys, V* d_reduced,
                                                std::size_t* d_count) {
  for (std::uint32_t k = threadIdx.x; k < tile_heads; k += Threads)
    d_unique_keys[std::uint64_t(base) + k] = unique_s[key_slot(k)];
  const std::uint32_t closed_end = tile_heads + (last_tile ? 1 : 0);
  for (std::uint32_t k = threadIdx.x; k < closed_end; k += Threads) {
    if (k > 0)
      d_reduced[std::uint64_t(base) + k - 1] = reduced_s[value_slot(k)];
    else if (my.tile > 0)  // tile 0 closes no run -1
      d_reduced[std::uint64_t(base) - 1] =
          first_item_is_head ? open_run_prefix : op(open_run_prefix, reduced_s[value_slot(0)]);
  }
  if (last_tile && threadIdx.x == 0 && d_count != nullptr) *d_count = std::size_t(base) + tile_heads;
}

}  // namespace scankit::detail
