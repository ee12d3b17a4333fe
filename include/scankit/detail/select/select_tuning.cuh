// detail/select/select_tuning.cuh — the selection kernel's shapes: what a
// call's items become (select_mode), its tiles (threads × rounds × 16-byte
// vectors) for each item size, selector and call size, the tile buffers'
// shared memory, and which kernels get a resolver warp; with the measurements
// behind each choice (docs/select.md has the runs).
#pragma once

#include <scankit/detail/no_values.hpp>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace scankit::detail {

/// What the selected items become.
enum class select_mode {
  compact,            // selected items (and their values) in order
  partition,          // selected items in order, then the rejected ones in order
  run_length_encode,  // the selector marks run heads: head values, and run lengths
};

/// Items per launch: the largest multiple of `tile` not above 2^31.
constexpr std::size_t select_chunk_items(std::size_t tile) { return (std::size_t(1) << 31) / tile * tile; }

/// Tiles a block holds at once: one being scattered, one selected (its
/// aggregate published), one arriving by bulk copy.
constexpr int select_stages = 3;

/// Whether the block has a resolver warp (see select_kernel.cuh):
/// compaction without values (and unique), and run-length encoding. Run-length
/// encoding with it, against warp 0's look-back (H100, three interleaved
/// rounds, medians of 25 calls, 10 / 50 / 90 % heads): uint32 −9.5 / +0.1 /
/// +1.2 % at 2^28, −4.7 / −0.4 / −0.1 % at 2^24, −0.8 / −1.0 / −0.7 % at
/// 2^20; uint64 −5.9 / −3.2 / −1.8 % at 2^28, −7.6 / −4.6 / −3.3 % at 2^24,
/// +1.0 / +3.2 / +3.5 % at 2^20 (docs/select.md, "Run-length encoding on the
/// resolver warp").
template <select_mode Mode, class Value>
inline constexpr bool select_resolver_warp =
    (Mode == select_mode::compact && std::is_same_v<Value, no_values>) || Mode == select_mode::run_length_encode;

/// How long the resolver warp sleeps before its first poll for a tile's
/// prefix, in calls of more than select_stages tiles per block (in smaller
/// ones it polls at once). Measured on the H100 against polling at once
/// (three interleaved rounds, medians of 25 calls, 10 / 50 / 90 %
/// selected): compaction by flags, compact_if and unique 0.4–5.5 % faster
/// at 2^24–2^28 (the most at 10 %), run-length encoding −1.0 to +1.3 %,
/// partition (no resolver) unchanged; sleeping in every call, the host-API
/// compact_if up to 3.1 % slower at 2^20. For that kernel 350 ns between
/// polls instead of 8, 16, … 256, or CUB's sm_90 1 140 ns first and 380 ns
/// between, gained nothing (docs/select.md, "How often the resolver
/// polls"), nor did the delay only above four tiles per block (its Next
/// steps).
inline constexpr unsigned select_first_poll_delay_ns = 1000;

/// Threads per block: the tuning's selecting threads, and the resolver warp.
template <select_mode Mode, class Value, class Tuning>
inline constexpr int select_block_threads = Tuning::threads + (select_resolver_warp<Mode, Value> ? warp_threads : 0);

/// Resident blocks per SM the tiles are sized for, unless a tuning says
/// otherwise (registers are capped to match: at most 65 536 / (blocks ×
/// block threads) per thread).
constexpr int select_blocks_per_sm = 2;

/// Tile shape of the selection kernel: at most 32 items per thread (one bit
/// each in a register) and at most 36 KB of items and staged flags
/// (`SideBytes` per item) per tile: three tiles per block and two blocks per
/// SM fill the SM's 227 KB of shared memory. The kernel waits on latency,
/// so the bytes staged per SM set most of its pace (and with the same bytes,
/// fewer and larger tiles win): 512 threads and as many rounds
/// as fit, and with staged flags one round more on fewer threads (at least
/// 448) when that holds more items; 8-byte items without flags fill the
/// budget with threads instead (576). 4-byte items: 512 threads × 4 rounds × 4
/// (32 KB; with byte flags 448 × 4 × 4, 35 KB); 8-byte: 576 × 4 × 2 (36 KB;
/// with byte flags 512 × 4 × 2, 36 KB). Measured against CUB in the same runs
/// (compact_bench, 10 / 50 / 90 % selected): uint64 by byte flags at 2^28,
/// 512 × 3 (27 KB) 0.85 / 0.93 / 0.98× CUB, 512 × 4 1.03 / 1.07 / 1.08×;
/// uint32 by byte flags at 2^28, 512 × 3 (30 KB) 1.10 / 1.15 / 1.13×, 448 × 4
/// 1.17 / 1.21 / 1.18× (at 2^20–2^22 1–3 % slower: fewer, larger tiles).
/// 8-byte items alone on 576 × 4 instead of 512 × 4 (2^28, medians of 15,
/// CUB in the same runs): compact_if and unique 4.7–4.8 / 2.5–2.6 % faster
/// at 10 / 50 % selected, run-length encoding within 1 %; at 2^20–2^22 up
/// to 6 % slower (fewer, larger tiles). 448 × 5 gained at most 1.7 %, and
/// when the tile's chain was longer measured up to 8 % slower below 2^26.
/// Smaller tiles at more blocks per SM, and 384 or 256 threads with the
/// same bytes per tile, measured slower. (docs/select.md has the runs.)
///
/// SmallCall: calls below select_small_call_items, where a block of the
/// persistent grid meets only a few tiles, drop what filled the budget:
/// byte-flag tiles their extra round (448 × 3), 8-byte items their extra
/// threads (512 × 4). Measured at 2^20–2^25 (compact_bench, medians of
/// three runs, 10 / 50 / 90 %): 448 × 3 −12 to +0.3 % at 2^20–2^22 (partition
/// −5.7 to 0 %), up to +12 % from 2^23; 512 × 4 −4.7 to +1.5 % at
/// 2^20–2^22, +0.4 to +2.6 % at 2^23–2^24. One round fewer for 4-byte items
/// without flags (+2.5 to +16 % at 2^20–2^22), for 8-byte items without
/// flags (512 × 3: compact_if, unique and run-length encoding +1.8 to +16 %
/// at 2^20–2^22) or for 8-byte items with byte flags (−6.6 to +11 %), and
/// half the rounds for every selector (up to +43 %), lost.
///
/// BlocksPerSm = 1: one block per SM with tiles of twice the bytes (72 KB):
/// each look-back then covers twice the items. Every selector takes the
/// extra round there (896 × 5 without flags: 17 920 4-byte or 8 960 8-byte
/// items; with byte flags 896 × 4 × 4); without flags it replaced 992 × 4
/// (15 872 / 7 936), measured against it (H200, three interleaved rounds,
/// medians of 25 calls, 10 / 50 / 90 %): uint64 compact_if and unique
/// −4.7 to −8.3 % at 2^28–2^30, −2.3 to −4.5 % at 2^24; 768 × 6 (18 432 /
/// 9 216 items, the whole 72 KB) gained about half as much. Taken by the
/// compaction kernels that measured faster with it (see select_wide_tiles).
/// 8-byte items with byte flags take 512 threads × 8 rounds there (8 192 items,
/// the whole 72 KB): against 992 × 4, the shape the rule above gives them
/// (7 936 items; 1–10 % slower than their tiles of two blocks per SM), 768 × 5
/// (within 1 % at 2^28), 800 × 5, 640 × 6, 896 × 4 (3–5 % faster than two blocks at
/// 2^28) and 448 × 9 (as fast at 2^28, slower below), 512 × 8 measured 7–11 %
/// faster than two blocks at 2^28 and 3–8 % at 2^23–2^24 (H200, three
/// interleaved rounds, medians of 25 calls, 10 / 50 / 90 %). The same turn to
/// fewer threads and more rounds did not carry over: 4-byte items with byte
/// flags on 448 × 8, 512 × 7 or 576 × 6, and items without flags on 576 × 8,
/// 512 × 9 or 448 × 10 (8-byte) and 640 × 7, 576 × 8 or 512 × 8 (4-byte),
/// measured from 2 % faster to 27 % slower.
template <class Item, std::size_t SideBytes = 0, bool SmallCall = false, int BlocksPerSm = select_blocks_per_sm>
struct default_select_tuning {
 private:
  static_assert(BlocksPerSm == 1 || BlocksPerSm == 2, "tiles sized for one or two blocks per SM");
  static constexpr std::size_t budget = 72 * 1024 / BlocksPerSm;
  static constexpr int wide_threads = 1024 / BlocksPerSm, min_deep_threads = 896 / BlocksPerSm;
  static constexpr int max_threads = 1024 - warp_threads;  // a block of 1 024 with the resolver warp
  static constexpr std::size_t round_bytes = vector_items<Item> * (sizeof(Item) + SideBytes);  // per thread
  static constexpr int max_rounds = 32 / vector_items<Item>;
  static constexpr int clamp_rounds(std::size_t r) {
    return r < 1 ? 1 : (r < std::size_t(max_rounds) ? int(r) : max_rounds);
  }
  static constexpr int wide_rounds = clamp_rounds(budget / (wide_threads * round_bytes));
  static constexpr int deep_threads = int(budget / (round_bytes * (wide_rounds + 1)) / 32 * 32);
  static constexpr bool deep = (SideBytes > 0 || BlocksPerSm == 1) && wide_rounds < max_rounds &&
                               deep_threads >= min_deep_threads &&
                               deep_threads * (wide_rounds + 1) > wide_threads * wide_rounds;
  static constexpr bool filled = SideBytes == 0 && sizeof(Item) == 8 && !SmallCall;
  static constexpr int filled_threads = int(budget / (round_bytes * wide_rounds) / 32 * 32);
  static constexpr int shaped_threads = deep ? deep_threads : filled ? filled_threads : wide_threads;
  // 8-byte items with byte flags on one block per SM: 512 threads, as many rounds as fit (above).
  static constexpr bool narrow = SideBytes == 1 && sizeof(Item) == 8 && BlocksPerSm == 1;
  static constexpr int narrow_threads = 512;
  static constexpr int narrow_rounds = clamp_rounds(budget / (narrow_threads * round_bytes));

 public:
  static constexpr int threads = narrow ? narrow_threads : shaped_threads < max_threads ? shaped_threads : max_threads;
  static constexpr int rounds = narrow ? narrow_rounds : deep && !SmallCall ? wide_rounds + 1 : wide_rounds;
  static constexpr int vec = 0;  // 16-byte vectors (vector_items<Item>)
  static constexpr bool count_in_launch = false;  // partition: see select_counting_in_launch
  static constexpr int blocks_per_sm = BlocksPerSm;
};

/// Partition on a tuning whose kernel counts the selected items in its own
/// (cooperative) launch, instead of a counting pre-pass before the launch:
/// each block takes a contiguous range of tiles (no tickets), counts its
/// selected items first and, before its first scatter, waits for every
/// block's count — the call's total, and its range's prefix, so no tile
/// looks back. Against the same kernel with tickets and look-back (H200,
/// three interleaved rounds, medians of 25 calls, 10 / 50 / 90 %): uint32
/// at 2^20 −4.2 to −5.0 %, uint64 at 2^20–2^22 −4.3 to −7.4 % (back to
/// back −3.7 to −8.5 %). A kernel of its own, apart from the one after a
/// pre-pass (calls of several launches): with the count's code in it, that
/// kernel had measured 6.4–6.8 % slower for uint32 partition at 2^28
/// (H200), where the code never runs.
template <class Tuning>
struct select_counting_in_launch : Tuning {
  static constexpr bool count_in_launch = true;
};

/// Calls of fewer items than this take default_select_tuning<..., true>
/// where it differs from the default: 4-byte items with byte flags 448 × 3
/// instead of 448 × 4, 8-byte items without flags 512 × 4 instead of 576 × 4
/// (see default_select_tuning).
inline constexpr std::size_t select_small_call_items = std::size_t(1) << 23;

/// Items on the busiest block when n items in tiles of `tile` are split into
/// contiguous whole-tile ranges over `blocks` blocks, as partition counting
/// in its launch splits them (select_counting_in_launch).
constexpr std::size_t busiest_block_items(std::size_t n, std::size_t tile, std::size_t blocks) {
  const std::size_t tiles = (n + tile - 1) / tile;
  return (tiles + blocks - 1) / blocks * tile;
}

/// Whether partition counting in its launch takes the smaller of two tilings
/// (tiles of `small_tile` items on `small_blocks` resident blocks, against
/// `tile` on `blocks`): where they put at least 5 % fewer items on the
/// busiest block, whose range sets the call's time. uint32 by byte flags at
/// 2^23 on 264 blocks: 6 × 5 376 items instead of 5 × 7 168 (10 % fewer)
/// measured 6.2–7.0 % faster (H100, three interleaved rounds, medians of 25
/// calls, 10 / 50 / 90 %), so the small tiles' pace per item is 3–4 % lower.
/// By that arithmetic smaller savings (0.04–3.6 % at 3 × 2^22 and above,
/// none measured) would gain nothing or lose: hence the margin.
constexpr bool partition_takes_smaller_tiles(std::size_t n, std::size_t small_tile, std::size_t small_blocks,
                                             std::size_t tile, std::size_t blocks) {
  return busiest_block_items(n, small_tile, small_blocks) * 20 <= busiest_block_items(n, tile, blocks) * 19;
}

/// Partition of 4-byte items by byte flags below select_small_call_items:
/// tiles of 512 threads × 2 rounds (4 096 items) beside the small-call tiles
/// (448 × 3, 5 376 items), taken where partition_takes_smaller_tiles says.
/// On 264 blocks that is every call of at most one tile a block (up to
/// 264 × 4 096 items, 2^20 among them: 4 096 items on the busiest block
/// instead of 5 376) and 2^21 (two: 8 192 instead of 10 752). uint32 against
/// the small-call tiles (H100, three interleaved rounds, medians of 25 calls,
/// 10 / 50 / 90 %): 2^21 6.1–7.0 % faster (0.98–0.99× CUB to 1.05–1.06×),
/// 2^20 3.2–4.0 %; half what the items alone predict (docs/select.md,
/// "Partition's short tiles").
template <class Item, std::size_t SideBytes>
struct partition_short_tiles : default_select_tuning<Item, SideBytes, true> {
  static constexpr int threads = 512;
  static constexpr int rounds = 2;
};

/// Whether partition has the short tiles (partition_short_tiles) beside the
/// small-call tiles: 4-byte items by byte flags.
template <class Item, std::size_t SideBytes>
inline constexpr bool has_partition_short_tiles = sizeof(Item) == 4 && SideBytes == 1;

/// Whether the small-call tuning is a kernel of its own.
template <class Item, std::size_t SideBytes>
inline constexpr bool has_small_call_select_tuning =
    default_select_tuning<Item, SideBytes, true>::threads != default_select_tuning<Item, SideBytes>::threads ||
    default_select_tuning<Item, SideBytes, true>::rounds != default_select_tuning<Item, SideBytes>::rounds;

/// Whether calls of at least select_wide_tiles_items take the tiles of one
/// block per SM (default_select_tuning<Item, SideBytes, false, 1>): the
/// compaction kernels (no values: those with a resolver warp) that measured
/// faster with them — 4-byte and 8-byte items by byte flags or without flags
/// (compact_if, unique). H200, three interleaved rounds (medians of 15 or 25
/// calls) against the same kernels on two blocks per SM (10 / 50 / 90 % selected): uint32 by byte flags
/// −4.9 to −6.3 % at 2^28, −0.6 to −2.9 % at 2^24; uint64 compact_if −3.7 to
/// −4.2 % at 2^28, −2.2 to −5.4 % at 2^24; uint64 unique −1.9 to −4.1 % at 2^28,
/// −0.6 to −4.3 % at 2^24 (on 992 × 4; 896 × 5 gained more, above); uint32
/// compact_if and unique on 896 × 5: −3.0 to −7.8 % at 2^27–2^30, −0.6 to −4.3 %
/// at 2^25–2^26, but +0.4 to +4.9 % at 2^23–2^24 (on 992 × 4 they had measured
/// −1.8 to +3.1 %); uint64 by byte flags on 512 × 8 (above): −7 to −11 % at 2^28,
/// −3 to −8 % at 2^23–2^24 (on 992 × 4: +0.3 to +10 %). Not taken: partition
/// (warp 0's look-back; +2 to +23 %, as was run-length encoding before it had
/// the resolver warp, not measured since); below 2^23 most kernels lost, up to
/// 37 %.
template <select_mode Mode, class Value, class Item, std::size_t SideBytes>
inline constexpr bool select_wide_tiles = Mode == select_mode::compact && select_resolver_warp<Mode, Value> &&
                                          (sizeof(Item) == 4 || sizeof(Item) == 8) && SideBytes <= 1;

/// The call size from which select_wide_tiles kernels run one block per SM:
/// 2^25 for 4-byte items without flags (above), the small-call limit
/// otherwise.
template <class Item, std::size_t SideBytes>
inline constexpr std::size_t select_wide_tiles_items =
    sizeof(Item) == 4 && SideBytes == 0 ? std::size_t(1) << 25 : select_small_call_items;

/// The whole 16-byte lines before a tile's items in its buffer: they end
/// with the item before the tile (for selectors that compare neighbours), and
/// come with the tile's bulk copy.
template <class Item>
inline constexpr std::uint32_t select_lead_bytes = (sizeof(Item) + 15) / 16 * 16;

/// Dynamic shared memory: select_stages tile buffers, each the lead, the
/// tile, and the selector's staged per-item data (flags), padded to 16 bytes.
template <class Item, class Tuning, std::size_t SideBytes>
inline constexpr std::size_t select_buffer_bytes = select_lead_bytes<Item> + tile_items<Item, Tuning> * sizeof(Item) +
                                                   (tile_items<Item, Tuning> * SideBytes + 15) / 16 * 16;
template <class Item, class Tuning, std::size_t SideBytes>
inline constexpr std::size_t select_smem_bytes = select_stages * select_buffer_bytes<Item, Tuning, SideBytes>;

}  // namespace scankit::detail
