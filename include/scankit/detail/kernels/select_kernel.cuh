// detail/kernels/select_kernel.cuh — the single-pass selection kernel behind
// compact, partition, unique and run-length encoding: count and scatter in one
// kernel, tiles ordered by launch ticket, each tile's output position from the
// decoupled look-back over the selected counts of the tiles before it.
//
// Persistent and pipelined over three tile buffers: each block loops over
// tiles drawn from the launch ticket; while it scatters one tile, the next is
// already selected with its aggregate published (a block holding an
// unpublished tile would make every later tile wait for it) and the bulk copy
// (TMA) of the one after is in flight. Per tile:
//   phase 0  the tile's items in shared memory, after its lead (the 16-byte
//            lines before it, which end with the item before the tile; for
//            selectors that compare neighbours): bulk copies issued by
//            thread 0, which waits on no global load; thread loads for a
//            misaligned input or a partial tile
//   phase 1  each thread evaluates the selector on its items (warp-striped
//            16-byte vectors, as in the scan) and keeps the answers as one
//            bit per item in a single register; warp totals
//   phase 2  warp 0 scans the warp totals and publishes the aggregate (one
//            tile ahead), looks back for the tile's prefix (count of selected
//            items before it; for run-length encoding also the position of
//            the last run head) and publishes its inclusive prefix (with a
//            resolver warp, below, the resolver looks back)
//   phase 3  each warp walks its rounds again with the bits: a warp scan of
//            the lanes' counts gives every selected item its slot; the items
//            are rearranged in shared memory (while the tile's prefix is
//            looked for: the slots within the tile came with its aggregate)
//            and the block writes them out coalesced (run-length encoding:
//            then the run lengths, from the heads' positions, the same way).
//            Key/value compaction stores each selected item and value
//            straight to its slot.
//
// Compaction without values (compact, compact_if, unique) and run-length
// encoding add a resolver warp to the block, and the block never waits for a
// look-back: the selecting warps select tile k + 1 (warp 0 publishes its
// aggregate), rearrange tile k and write it out (run-length encoding: its
// heads, then their lengths), with barriers among themselves only; the
// resolver refills the buffer written out (its ticket drawn only then) and
// looks back for the next tile, whose aggregate went out a whole tile
// earlier, while the selecting warps work. (Partition and key/value
// compaction keep warp 0's look-back in phase 2: partition measured 3–5 %
// slower with the resolver.)
//
// Partition needs the call's selected count before it places a rejected
// item. A call of one launch counts in the launch itself
// (select_counting_in_launch; a cooperative launch, so every block is
// resident) and takes its tiles without tickets: each block a contiguous
// range of tiles, whose selected items it counts first; before its first
// scatter it waits for every block's count, which gives the call's total
// and its range's prefix, so no tile looks back. A call of several launches
// (or one whose grid cannot be resident at once) counts in a pre-pass
// (count_selected.cuh) and launches this kernel as its programmatic
// dependent.
//
// A call of more than 2^31 items runs as several launches ("chunks"); each
// starts from the counts the previous one left in select_state, so positions
// stay 32-bit inside a launch and 64-bit across them.
#pragma once

#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/no_values.hpp>
#include <scankit/detail/select/count_selected.cuh>
#include <scankit/detail/select/select_tuning.cuh>
#include <scankit/detail/select/selectors.cuh>
#include <scankit/detail/thread/bulk_copy.cuh>
#include <scankit/detail/thread/shared_vector.cuh>
#include <scankit/detail/thread/store_run.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scankit::detail {

/// Carried from one launch of a call to the next.
struct select_carry {
  std::uint64_t selected;   // items selected before the launch's first item
  std::uint64_t last_head;  // run-length encoding: position of the last run head before it
};

/// Device-side state of one call (in the context's scratch memory).
struct select_state {
  select_carry carry[2];           // launch c reads carry[c % 2], its last tile writes carry[(c + 1) % 2]
  std::uint64_t count;             // the call's result: selected items, or runs
};

/// Look-back value of run-length encoding: run heads so far, and the
/// launch-local position + 1 of the last of them (0: none yet). Positions
/// grow with the tile order, so max combines them.
struct run_prefix {
  std::uint32_t count;
  std::uint32_t last_head;
};
struct run_prefix_op {
  __device__ __forceinline__ run_prefix operator()(const run_prefix& a, const run_prefix& b) const {
    return {a.count + b.count, a.last_head > b.last_head ? a.last_head : b.last_head};
  }
};
struct count_op {
  __device__ __forceinline__ std::uint32_t operator()(std::uint32_t a, std::uint32_t b) const { return a + b; }
};

/// One launch's arguments.
template <class Item, class Value, class Selector>
struct select_launch {
  const Item* d_in;
  const Value* d_values_in;  // compact: values moved with the selected items (or null)
  Selector select;
  Item* d_out;               // compact: selected items; partition: all items; RLE: run heads
  Value* d_values_out;       // compact: their values; RLE: run lengths
  std::size_t n;             // items of the whole call
  std::size_t chunk_begin;   // first item of this launch
  std::uint32_t chunk_items; // items of this launch
  std::uint32_t num_tiles;
  std::uint32_t chunk;       // index of this launch in the call
  bool last_chunk;
  bool bulk_loads;           // d_in 16-byte aligned: tiles arrive by bulk copy
  const void* d_side;        // the selector's per-item data to stage beside the items (flags), or null
  bool bulk_side;            // d_side 16-byte aligned: staged by bulk copy with the items
  select_state* d_state;
  const std::uint64_t* d_block_counts;  // partition: selected items per block of the counting pre-pass
  std::uint64_t* d_count_words;         // partition counting in the launch: one status word per block
  std::uint32_t count_blocks;           // partition: blocks of the counting pre-pass
  bool count_in_launch;                 // partition: each block counts a share (a cooperative launch)
  std::size_t* d_count;      // where the caller wants the count (or null)
  std::uint64_t* d_status;   // [0] launch counter, [1 + t] tile words
  void* d_status_scratch;    // the status layout's scratch (none for the packed and paired layouts used here)
};

template <class Item, class Value, class Selector, select_mode Mode, class Tuning>
__global__ void __launch_bounds__(select_block_threads<Mode, Value, Tuning>, Tuning::blocks_per_sm)
    select_kernel(select_launch<Item, Value, Selector> L) {
  constexpr int threads = Tuning::threads, rounds = Tuning::rounds, vec = vector_items<Item>;
  constexpr int warps = threads / warp_threads;
  constexpr unsigned tile_size = unsigned(tile_items<Item, Tuning>);
  constexpr unsigned vec_mask = (1u << vec) - 1;
  constexpr bool runs = Mode == select_mode::run_length_encode;
  static_assert(rounds * vec <= 32, "one selection bit per item in one register");
  static_assert(threads % warp_threads == 0, "whole warps");
  static_assert(warps <= warp_threads, "warp 0 scans the warp totals, one per lane");
  using prefix_t = std::conditional_t<runs, run_prefix, std::uint32_t>;
  using prefix_op = std::conditional_t<runs, run_prefix_op, count_op>;
  constexpr std::size_t side_bytes = side_bytes_of<Selector>;
  constexpr std::size_t buffer_bytes = select_buffer_bytes<Item, Tuning, side_bytes>;
  // All but key/value compaction scatter through shared memory (phase 3).
  constexpr bool scatter_through_shared = Mode != select_mode::compact || std::is_same_v<Value, no_values>;

  extern __shared__ uint4 select_smem[];
  constexpr int stages = select_stages;
  constexpr bool resolver = select_resolver_warp<Mode, Value>;
  __shared__ std::uint64_t loaded[stages];       // mbarriers of the buffers
  // With a resolver warp, per buffer: the tile's slots and aggregate are out
  // (one arrival: warp 0), its prefix is known (one: the resolver), it is
  // written out (one per selecting thread: see the write-out); and the
  // tile's prefix.
  __shared__ std::uint64_t scanned[resolver ? stages : 1], resolved[resolver ? stages : 1],
      drained[resolver ? stages : 1];
  __shared__ prefix_t buffer_prefix[resolver ? stages : 1];
  __shared__ std::uint32_t buffer_tile[stages];  // tile in each buffer (>= num_tiles: none)
  __shared__ bool buffer_copied[stages];         // filled by bulk copy (else by thread loads)
  __shared__ bool buffer_side[stages];           // side data (flags) staged too (else read from global)
  __shared__ std::uint32_t launch_tag;        // set in the prologue only
  __shared__ prefix_t warp_prefix[stages][warps];  // per buffer: warp totals, then exclusive prefixes
  __shared__ prefix_t tile_total[stages];          // per buffer: the tile's total
  __shared__ prefix_t tile_prefix;            // selected in this launch before the current tile (no resolver)
  __shared__ std::uint64_t warp_counts[Mode == select_mode::partition ? warps : 1];  // partition: block counts summed by warp
  // Partition on static tiles: the counts of the blocks before this one, summed by warp.
  __shared__ std::uint64_t warp_counts_before[Mode == select_mode::partition && Tuning::count_in_launch ? warps : 1];
  __shared__ select_carry carry;              // from the launches before this one

  auto count_of = [](const prefix_t& p) -> std::uint32_t {
    if constexpr (runs) return p.count; else return p;
  };
  auto staged_of = [&](int b) {  // staged[-1]: the item before the tile
    return reinterpret_cast<Item*>(select_smem + (b * buffer_bytes + select_lead_bytes<Item>) / 16);
  };
  auto side_of = [&](int b) {  // the staged flags of buffer b
    return reinterpret_cast<const unsigned char*>(staged_of(b) + tile_size);
  };
  const bool single_tile = L.num_tiles == 1;
  // Partition counting in its launch takes its tiles without tickets: block
  // b the contiguous range [range_begin, range_end), whose selected items it
  // counts first, so every block's counts give its tiles' prefixes and no
  // tile looks back (the launch is cooperative: every block is resident).
  // It still draws one ticket, for the launch's tag.
  bool static_tiles = false;
  if constexpr (Mode == select_mode::partition && Tuning::count_in_launch)
    static_tiles = L.count_in_launch && !single_tile;
  const std::uint32_t range_begin = std::uint32_t(std::uint64_t(L.num_tiles) * blockIdx.x / gridDim.x);
  const std::uint32_t range_end = std::uint32_t(std::uint64_t(L.num_tiles) * (blockIdx.x + 1) / gridDim.x);
  const std::uint32_t total_draws = static_tiles ? gridDim.x : L.num_tiles + gridDim.x;

  // Thread 0: put the next tile in buffer b — its ticket (in the loop drawn
  // at the start of the scatter, so the atomic's latency is hidden), the
  // bulk copies of the tile and, for selectors that compare neighbours, of
  // its lead (which ends with the item before the tile) — and arrive on the
  // buffer's barrier. Thread 0 waits on no global load here: a tile that
  // cannot be bulk-copied is loaded by every thread in select_tile. Every
  // fill completes one phase of that barrier, and the arrival releases the
  // writes above: a thread that has waited for the phase may read
  // buffer_tile[b], buffer_copied[b] and the staged items. A block stops
  // drawing after its first ticket past the end; with a single tile the one
  // block takes it without a ticket, and with static tiles each block its
  // range in order.
  bool drawing = true;
  std::uint64_t drawn = 0;               // thread 0: the ticket for the next fill
  std::uint32_t next_static = range_begin;  // thread 0, static tiles: the next tile of the block's range
  bool tagged = false;      // the filling thread: launch_tag set (by its first draw, before the prologue's barrier)
  auto draw_early = [&] {
    if (drawing && !single_tile && !static_tiles) drawn = draw_ticket(L.d_status);
  };
  auto fill = [&](int b) {
    std::uint32_t tile = L.num_tiles;
    if (drawing) {
      if (single_tile) {
        tile = 0;
        drawing = false;
      } else if (static_tiles) {
        tile = next_static < range_end ? next_static++ : L.num_tiles;
        drawing = tile < L.num_tiles;
      } else {
        const launch_ticket t = redeem_persistent_ticket(L.d_status, drawn, total_draws);
        tile = t.tile;
        if (!tagged) {  // the same for every draw of the launch: written once, so no later fill races its readers
          launch_tag = t.tag;
          tagged = true;
        }
        drawing = tile < L.num_tiles;
      }
    }
    buffer_tile[b] = tile;
    if (tile < L.num_tiles) {
      Item* const staged = staged_of(b);
      const std::size_t begin = std::size_t(tile) * tile_size;
      const bool copied = L.bulk_loads && begin + tile_size <= L.chunk_items;
      const bool side = side_bytes > 0 && copied && L.bulk_side;
      buffer_copied[b] = copied;
      buffer_side[b] = side;
      if (copied) {
        // The tile starts 16-byte aligned, so the lead before it is whole
        // 16-byte lines ending with staged[-1]. It goes in a copy of its own,
        // so the tile's copy starts where it always did (one copy of both:
        // docs/select.md), and only for selectors that read staged[-1].
        constexpr std::uint32_t lead = select_lead_bytes<Item>;
        constexpr std::uint32_t item_bytes = tile_size * std::uint32_t(sizeof(Item));
        constexpr std::uint32_t flag_bytes = tile_size * std::uint32_t(side_bytes);
        const bool with_lead = reads_item_before<Selector> && L.chunk_begin + begin > 0;
        const std::uint32_t lead_bytes = with_lead ? lead : 0;
        mbarrier_expect_bytes(&loaded[b], lead_bytes + item_bytes + (side ? flag_bytes : 0));
        if (with_lead)
          bulk_copy_to_shared(reinterpret_cast<unsigned char*>(staged) - lead,
                              reinterpret_cast<const unsigned char*>(L.d_in + L.chunk_begin + begin) - lead, lead,
                              &loaded[b]);
        bulk_copy_to_shared(staged, L.d_in + L.chunk_begin + begin, item_bytes, &loaded[b]);
        if (side)
          bulk_copy_to_shared(const_cast<unsigned char*>(side_of(b)),
                              static_cast<const unsigned char*>(L.d_side) + (L.chunk_begin + begin) * side_bytes,
                              flag_bytes, &loaded[b]);
      }
    }
    mbarrier_arrive(&loaded[b]);
  };
  const int lane = lane_id(), warp = int(threadIdx.x) / warp_threads;
  // A barrier of the selecting warps (the resolver warp never waits at it).
  auto selecting_sync = [] {
    if constexpr (resolver)
      asm volatile("bar.sync 1, %0;" ::"n"(threads) : "memory");
    else
      __syncthreads();
  };
  const unsigned thread_offset = unsigned(warp) * warp_threads * rounds * vec + unsigned(lane) * vec;
  auto round_offset = [&](int r) { return thread_offset + unsigned(r) * warp_threads * vec; };
  const tile_status<prefix_t> status(L.d_status + 1, L.d_status_scratch, L.num_tiles);
  const tile_status<std::uint32_t> block_counts(L.d_count_words, nullptr, 0);  // partition counting in the launch

  // Run-length encoding's head positions: launch-local position + 1 (so 0
  // means none) of this thread's item j of round r in the tile starting at
  // tile_begin.
  auto head_position = [&](unsigned tile_begin, int r, int j) -> std::uint32_t {
    return tile_begin + round_offset(r) + unsigned(j) + 1;
  };
  // head_position of the highest set bit of `b` (bit 0 = round r0's first
  // item), 0 if none (written out: through head_position the compiler
  // orders its additions differently).
  auto last_head_of = [&](unsigned b, int r0, unsigned tile_begin) -> std::uint32_t {
    if (b == 0) return 0;
    const int p = 31 - __clz(b) + r0 * vec;
    return tile_begin + round_offset(p / vec) + unsigned(p % vec) + 1;
  };

  // Selectors that compare neighbours get the item before each vector from
  // the lane before (a shuffle; lane 0 reads it from shared memory) instead
  // of every lane reading it at[-1], a 4-way bank conflict for 4-byte items
  // — where the kernel has the registers for it: one block per SM, and
  // run-length encoding of 4-byte items. H200, compact_bench, two A/Bs of
  // interleaved runs: uint32 unique −0.5 to −2.4 % at 2^26–2^28 (10 / 50 %;
  // 90 % unchanged), uint64 unique there −0.4 to −1.9 %, uint32 run-length
  // encoding −0.4 to −1.6 % from 2^24. The uint32 unique kernel of two
  // blocks per SM spilled with it (up to +16.5 % at 2^21–2^24), and uint64
  // run-length encoding measured +0.1 to +2.9 % (docs/select.md).
  constexpr bool shuffle_item_before =
      reads_item_before<Selector> && (Tuning::blocks_per_sm == 1 || (runs && sizeof(Item) == 4));

  // Phases 0-1 for buffer b (after waiting for its barrier): the tile in
  // shared memory, one bit per item, the warp totals. Without a bulk copy
  // each thread loads its own slots (and, for selectors that compare
  // neighbours, thread 0 the item before the tile); slots past the end get
  // the launch's last item, so selectors only ever see input values.
  // Returns this thread's bits.
  auto select_tile = [&](int b) -> unsigned {
    Item* const staged = staged_of(b);
    const unsigned tile_begin = buffer_tile[b] * tile_size;
    const bool full_tile = tile_begin + tile_size <= L.chunk_items;
    const std::size_t tile_global = L.chunk_begin + tile_begin;
    if (!buffer_copied[b]) {
      const Item last = L.d_in[L.chunk_begin + L.chunk_items - 1];
      if (reads_item_before<Selector> && threadIdx.x == 0 && tile_global > 0)
        staged[-1] = L.d_in[tile_global - 1];
#pragma unroll
      for (int r = 0; r < rounds; ++r)
#pragma unroll
        for (int j = 0; j < vec; ++j) {
          const unsigned i = round_offset(r) + j;
          staged[i] = tile_begin + i < L.chunk_items ? L.d_in[tile_global + i] : last;
        }
      selecting_sync();
    }
    unsigned bits = 0;
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
      const unsigned i = round_offset(r);
      Item v[vec];
      load_shared_vector(staged + i, v);
      const unsigned valid =
          full_tile ? unsigned(vec) : (tile_begin + i < L.chunk_items ? L.chunk_items - (tile_begin + i) : 0);
      unsigned bit;
      if constexpr (side_bytes > 0) {
        if (buffer_side[b])
          bit = L.select.template bits_staged<vec>(
              reinterpret_cast<const typename Selector::flag_type*>(side_of(b)) + i);
        else
          bit = L.select.template bits<vec>(v, staged + i, tile_global + i, valid);
      } else if constexpr (shuffle_item_before) {
        // The item before this vector ends the lane before's; lane 0 reads it.
        Item before = shfl_up(v[vec - 1], 1);
        if (lane == 0 && tile_global + i > 0) before = staged[i - 1];
        bit = L.select.template bits_after<vec>(before, v, tile_global + i);
      } else {
        bit = L.select.template bits<vec>(v, staged + i, tile_global + i, valid);
      }
      if (valid < unsigned(vec)) bit &= (1u << valid) - 1;
      bits |= (bit & vec_mask) << (r * vec);
    }
    prefix_t warp_total;
    if constexpr (runs) warp_total = {unsigned(__popc(bits)), last_head_of(bits, 0, tile_begin)};
    else warp_total = unsigned(__popc(bits));
#pragma unroll
    for (int offset = 1; offset < warp_threads; offset <<= 1)
      warp_total = prefix_op{}(warp_total, shfl_xor(warp_total, offset));  // count: sum, last head: max
    if (lane == 0) warp_prefix[b][warp] = warp_total;
    return bits;
  };

  // Warp 0, after select_tile(b) and a barrier: scan buffer b's warp totals
  // and publish its aggregate (tile 0: its inclusive prefix) at once, so
  // tiles after it can look past it while this block is still busy.
  auto publish_aggregate = [&](int b) {
    prefix_t w{};
    if (lane < warps) w = warp_prefix[b][lane];
    const prefix_t inclusive_in_tile = warp_inclusive_scan(w, prefix_op{}, warps);
    const prefix_t total = shfl_idx(inclusive_in_tile, warps - 1);
    const prefix_t exclusive_in_tile = shfl_up(inclusive_in_tile, 1);
    if (lane < warps) warp_prefix[b][lane] = lane == 0 ? prefix_t{} : exclusive_in_tile;
    if (lane == 0) {
      tile_total[b] = total;
      const std::uint32_t tile = buffer_tile[b];
      if (!single_tile && !static_tiles)
        status.publish(tile, tile == 0 ? tile_state::inclusive : tile_state::aggregate, total, launch_tag);
    }
  };

  // The launch's last tile, all its inclusive prefix: hand the counts on to
  // the next launch, or finish the call (run-length encoding: the last run
  // ends with the input).
  auto finish_launch = [&](const prefix_t& all) {
    select_carry out{carry.selected + count_of(all), carry.last_head};
    if constexpr (runs)
      if (all.last_head != 0) out.last_head = L.chunk_begin + all.last_head - 1;
    if (!L.last_chunk) {
      L.d_state->carry[(L.chunk + 1) % 2] = out;
    } else {
      L.d_state->count = out.selected;
      if (L.d_count != nullptr) *L.d_count = out.selected;
      if constexpr (runs)
        if (out.selected > 0) L.d_values_out[out.selected - 1] = static_cast<Value>(L.n - out.last_head);
    }
  };

  // Run-length encoding: the length of the run from one head to the next
  // (launch-local positions + 1; head_before 0 = none in this launch, then
  // carry.last_head).
  auto run_length = [&](std::uint32_t head_before, std::uint32_t head) {
    const std::uint64_t previous = head_before != 0 ? L.chunk_begin + head_before - 1 : carry.last_head;
    return L.chunk_begin + head - 1 - previous;
  };

  // Run-length encoding, once buffer b's heads are out (first: the output
  // slot of its first head; round_slot: the tile slot of this thread's first
  // head of each round): head s of the tile ends the run before it, whose
  // length goes to lengths[first + s - 1]. The heads' launch-local positions
  // + 1 go to the buffer as uint32 (pos[0]: head_before, the head before
  // them; 0 = none in this launch, then carry.last_head), in pieces of what
  // the buffer holds (one piece unless nearly every item of a tile of items
  // under 4 bytes is a head).
  auto write_run_lengths = [&](int b, unsigned bits, const unsigned(&round_slot)[rounds], std::uint64_t first,
                               std::uint32_t head_before) {
    if constexpr (runs) {
      constexpr unsigned piece_heads = unsigned(tile_size * sizeof(Item) / sizeof(std::uint32_t)) - 1;
      static_assert(piece_heads >= 1, "room for a head position after the one before it");
      std::uint32_t* const pos = reinterpret_cast<std::uint32_t*>(staged_of(b));
      const unsigned tile_begin = buffer_tile[b] * tile_size, tile_selected = count_of(tile_total[b]);
      for (unsigned piece = 0; piece < tile_selected; piece += piece_heads) {
        selecting_sync();  // the buffer's previous contents are out
        if (threadIdx.x == 0) pos[0] = head_before;
#pragma unroll
        for (int r = 0; r < rounds; ++r) {
          unsigned slot = round_slot[r];
#pragma unroll
          for (int j = 0; j < vec; ++j) {
            if ((bits >> (r * vec + j)) & 1u) {
              if (slot - piece < piece_heads) pos[slot - piece + 1] = head_position(tile_begin, r, j);
              ++slot;
            }
          }
        }
        selecting_sync();
        const unsigned heads = tile_selected - piece < piece_heads ? tile_selected - piece : piece_heads;
        for (unsigned k = threadIdx.x; k < heads; k += threads) {
          const std::uint64_t out = first + piece + k;
          if (out == 0) continue;  // the call's first run: no run before it
          L.d_values_out[out - 1] = static_cast<Value>(run_length(pos[k], pos[k + 1]));
        }
        if (threadIdx.x == 0) head_before = pos[heads];
      }
    }
  };

  // Run-length encoding: where buffer b's heads leave room for their
  // positions (uint32, one per head, from the next 16-byte boundary on), the
  // positions go there while the heads are put in their slots, and the
  // lengths go out with the heads — no pass of their own, two barriers
  // fewer before the buffer's refill (else null: write_run_lengths). Fits
  // up to about half of a tile's items as heads for 4-byte items, two
  // thirds for 8-byte. H200, three interleaved rounds of medians of 25
  // calls (two of 15 at 2^26–2^28), against the pass for every tile,
  // 2^20–2^28: 10 % heads uint32 −6.0 to −10.4 %, uint64 −2.8 to −6.4 %;
  // 50 % uint64 −2.9 to −5.3 %, uint32 −0.5 to +1.7 %; 90 % (the pass)
  // +0.5 to +3.6 % (docs/select.md, "Run lengths beside the heads").
  auto positions_beside_heads = [&](int b) -> std::uint32_t* {
    const unsigned heads = count_of(tile_total[b]);
    const unsigned offset = (heads * unsigned(sizeof(Item)) + 15) / 16 * 16;
    if (offset + heads * 4 > tile_size * unsigned(sizeof(Item))) return nullptr;
    return reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(staged_of(b)) + offset);
  };
  // The lengths of a tile's runs from the head positions beside its heads
  // (first: the output slot of its first head; head_before: the last head
  // before the tile, launch-local + 1, 0 = none in this launch).
  auto write_run_lengths_beside = [&](const std::uint32_t* positions, unsigned heads, std::uint64_t first,
                                      std::uint32_t head_before) {
    if constexpr (runs) {
      for (unsigned k = threadIdx.x; k < heads; k += threads) {
        const std::uint64_t out = first + k;
        if (out == 0) continue;  // the call's first run: no run before it
        L.d_values_out[out - 1] = static_cast<Value>(run_length(k == 0 ? head_before : positions[k - 1], positions[k]));
      }
    }
  };

  // Every launch is the programmatic dependent of the kernel before it in
  // the stream, so its blocks start while that one finishes: wait for it
  // before touching global memory — except partition's first launch after
  // its counting pre-pass, which reads the input beside the count and waits
  // only before its first scatter. A dependent of this launch may start at
  // once (it waits for this one to finish).
  if (Mode != select_mode::partition || L.chunk != 0 || L.count_in_launch) wait_for_earlier_grid();
  allow_dependent_launch();

  if constexpr (resolver) {
    // The resolver schedule's first fills: every buffer at once, except in
    // calls where they cannot hand out every tile but are still a large
    // share of a block's (more than stages, at most 8 tiles per block):
    // there the first buffer, and the others once its tile is in, so each
    // block's first tile lands sooner and its look-back and write-out start
    // while the rest streams in (docs/select.md, "Staggered first fills":
    // −2 to −6 % at 2^22–2^23). Where blocks meet one or two tiles it lost
    // up to 8 %; where they meet dozens it moved −1.1 to +2.0 %, as much as
    // the same build moved there without staggering. The other schedule
    // fills every buffer at once: staggered there, partition measured up to
    // 5 % slower (and run-length encoding, then in that schedule, up to 18 %;
    // in this one, not staggering it measured −7.6 to +2.1 % at 2^22–2^23
    // and within ±1.7 % elsewhere: no clear gain).
    const bool more_tiles_than_stages = L.num_tiles > std::uint32_t(stages) * gridDim.x;  // per block
    constexpr std::uint32_t staggered_max_tiles_per_block = 8;
    const bool staggered_fills = more_tiles_than_stages && L.num_tiles <= staggered_max_tiles_per_block * gridDim.x;

    // Prologue: the resolver's lane 0 sets up the barriers and the carry and
    // puts a tile in flight in every buffer (staggered: in the first); it
    // draws every ticket.
    if (threadIdx.x == threads) {
      for (int b = 0; b < stages; ++b) {
        mbarrier_init(&loaded[b]);
        mbarrier_init_arrivals(&scanned[b], 1);
        mbarrier_init_arrivals(&resolved[b], 1);
        mbarrier_init_arrivals(&drained[b], threads);
      }
      carry = L.chunk == 0 ? select_carry{0, 0} : L.d_state->carry[L.chunk % 2];
      launch_tag = 0;
      for (int b = 0; b < (staggered_fills ? 1 : stages); ++b) {
        draw_early();
        fill(b);
      }
    }
    __syncthreads();
    if (buffer_tile[0] >= L.num_tiles) return;  // no work for this block

    // The refill's ticket, drawn when the buffer it fills is written out —
    // or, for 4-byte items on one block per SM, when the resolver hands the
    // prefix of the tile in that buffer over, so the atomic's round trip
    // runs beside the write-out (a short one: 16-byte stores) instead of
    // ahead of the next look-back. H200, three interleaved rounds, medians
    // of 25 calls: uint32 compact_if and unique −1.5 to −2.0 % at 2^26–2^30
    // (50 % selected), by flags −0.1 to −0.8 %; drawn so, uint64 by flags
    // (one item per thread in the write-out) measured +0.6 to +4.0 % from
    // 2^24 up, uint64 compact_if −0.4 to +1.8 %, and the uint32 kernels of
    // two blocks per SM +1.9 to +4.2 % at 2^24 (docs/select.md, "The
    // refill's ticket beside the write-out").
    constexpr bool ticket_beside_write_out = sizeof(Item) == 4 && Tuning::blocks_per_sm == 1;
    // In calls of more than `stages` tiles per block the resolver's first
    // poll for a tile waits a while (select_first_poll_delay_ns has the
    // measurements).
    const unsigned first_poll_delay_ns = more_tiles_than_stages ? select_first_poll_delay_ns : 0u;

    if (warp == warps) {
      // The resolver, per tile j of the block: refill the buffer of tile
      // j − 1 once it is written out, with a ticket drawn only then or
      // during that write-out (drawn a whole tile earlier, as a refill's
      // ticket is in the other schedule, a tile waits longer between its
      // draw and its aggregate, and every later tile's look-back waits with
      // it: 4–7 % slower at 2^28); then, once tile j's
      // aggregate is out, look back for its prefix, which the selecting warps
      // need only after selecting the next tile and rearranging this one.
      // Its hand-off of the prefix repeats warp 0's in the other schedule on
      // purpose: one shared step for look-back and hand-off had moved several
      // kernels' registers and measured uint64 run-length encoding (then in
      // the other schedule) 2.3–3.7 % slower at 2^24 and 2^28 (docs/select.md,
      // "two changes measured and left out"); the look-back itself
      // (look_back_and_publish) and the launch's last-tile hand-off
      // (finish_launch) are shared.
      for (std::uint32_t j = 0;; ++j) {
        const int b = int(j % stages);
        const std::uint32_t tile = buffer_tile[b];
        if (tile >= L.num_tiles) break;
        if (lane == 0) {
          if (j == 0 && staggered_fills) {  // the other buffers' first fills, once the first tile is in
            mbarrier_wait(&loaded[0], 0);
            for (int f = 1; f < stages; ++f) {
              draw_early();
              fill(f);
            }
          }
          if (j >= 1) {
            const int written_out = int((j - 1) % stages);
            mbarrier_wait(&drained[written_out], ((j - 1) / stages) % 2);
            if constexpr (!ticket_beside_write_out) draw_early();
            fill(written_out);
          }
          mbarrier_wait(&scanned[b], (j / stages) % 2);
        }
        __syncwarp();
        const prefix_t total = tile_total[b];
        const prefix_t before = look_back_and_publish(status, launch_ticket{tile, launch_tag}, total, prefix_t{},
                                                      prefix_op{}, first_poll_delay_ns);
        if (lane == 0) {
          buffer_prefix[b] = before;
          if (tile == L.num_tiles - 1) finish_launch(prefix_op{}(before, total));
          mbarrier_arrive(&resolved[b]);
          // Every draw is redeemed: the block draws while it has had no
          // ticket past the end, so a tile follows this one.
          if constexpr (ticket_beside_write_out) draw_early();
        }
        __syncwarp();
      }
      return;
    }

    // The selecting warps, per tile k of the block: phases 0-1 of tile k + 1
    // (warp 0 then publishes its aggregate and slots), tile k to its slots
    // in its buffer, and out with the prefix the resolver found.
    mbarrier_wait(&loaded[0], 0);
    unsigned bits = select_tile(0);
    selecting_sync();
    if (warp == 0) {
      publish_aggregate(0);
      __syncwarp();
      if (lane == 0) mbarrier_arrive(&scanned[0]);
    }
    for (std::uint32_t k = 0;; ++k) {
      const int b = int(k % stages), next = int((k + 1) % stages);
      const std::uint32_t tile = buffer_tile[b];  // waited for in the iteration before
      if (tile >= L.num_tiles) break;
      mbarrier_wait(&loaded[next], ((k + 1) / stages) % 2);  // its ((k + 1) / stages)-th fill
      const bool has_next = buffer_tile[next] < L.num_tiles;
      Item* const staged = staged_of(b);
      const unsigned next_bits = has_next ? select_tile(next) : 0u;
      Item items[rounds][vec];
#pragma unroll
      for (int r = 0; r < rounds; ++r) load_shared_vector(staged + round_offset(r), items[r]);
      selecting_sync();  // every warp has tile k's items in registers, and tile k + 1's totals are in
      if (warp == 0 && has_next) {
        publish_aggregate(next);
        __syncwarp();
        if (lane == 0) mbarrier_arrive(&scanned[next]);
      }

      // Tile k's selected items to their slots (from its aggregate's scan in
      // the iteration before). Run-length encoding: each head's launch-local
      // position + 1 to its slot of head_positions, where they fit in the
      // buffer after the heads.
      unsigned before = count_of(warp_prefix[b][warp]);
      unsigned round_slot[rounds];  // run-length encoding: slot of this thread's first head of round r
      std::uint32_t* const head_positions = runs ? positions_beside_heads(b) : nullptr;
      const unsigned tile_begin = tile * tile_size;
#pragma unroll
      for (int r = 0; r < rounds; ++r) {
        const unsigned rb = (bits >> (r * vec)) & vec_mask;
        const unsigned lane_count = unsigned(__popc(rb));
        const unsigned inclusive = warp_inclusive_scan(lane_count, count_op{});
        unsigned slot = before + inclusive - lane_count;
        round_slot[r] = slot;
#pragma unroll
        for (int j = 0; j < vec; ++j)
          if ((rb >> j) & 1u) {
            if (head_positions != nullptr) head_positions[slot] = head_position(tile_begin, r, j);
            staged[slot++] = items[r][j];
          }
        before += shfl_idx(inclusive, warp_threads - 1);
      }
      selecting_sync();  // the tile is rearranged

      // Tile k out, coalesced (4-byte items in 16-byte stores), once the
      // resolver has its prefix; then its buffer is the resolver's to refill.
      mbarrier_wait(&resolved[b], (k / stages) % 2);
      const std::uint64_t first = carry.selected + count_of(buffer_prefix[b]);
      const unsigned tile_selected = count_of(tile_total[b]);
      if constexpr (runs) {
        // Run heads, then their lengths. The heads of 4-byte items go out one
        // 16-byte vector per iteration: unrolled, the loop spilled; so
        // written, they measured −0.6 to −3.3 % at 50 and 90 % heads, +0.3
        // to +1.7 % at 10 % (H200, 2^21–2^28, before the resolver;
        // docs/select.md, "Run heads in 16-byte stores").
        store_run<threads, false>(staged, L.d_out + first, tile_selected, threadIdx.x);
        if (head_positions != nullptr)
          write_run_lengths_beside(head_positions, tile_selected, first, buffer_prefix[b].last_head);
        else
          write_run_lengths(b, bits, round_slot, first, buffer_prefix[b].last_head);
      } else {
        store_run<threads>(staged, L.d_out + first, tile_selected, threadIdx.x);
      }
      // Every thread arrives itself, after its cross-proxy fence: an
      // arrival releases only the arriving thread's own accesses (one lane
      // per warp after a __syncwarp orders them too, but compute-sanitizer's
      // racecheck does not follow that chain; every thread arriving measured
      // −2.0 to +2.0 %, geometric mean +0.2 %, at 2^22–2^28).
      fence_generic_to_async_shared();
      mbarrier_arrive(&drained[b]);
      bits = next_bits;
    }
  } else {
    // Prologue: barriers, the carry, a tile in flight in every buffer, the
    // first one selected.
    if (threadIdx.x == 0) {
      for (int b = 0; b < stages; ++b) mbarrier_init(&loaded[b]);
      carry = L.chunk == 0 ? select_carry{0, 0} : L.d_state->carry[L.chunk % 2];
      launch_tag = 0;
      if (static_tiles) drawn = draw_ticket(L.d_status);  // for the tag alone (redeemed below)
      for (int b = 0; b < stages; ++b) {
        draw_early();
        fill(b);
      }
    }
    if constexpr (Mode == select_mode::partition && Tuning::count_in_launch) {
      if (static_tiles) {
        // Partition counting in the launch itself (cooperative, so every
        // block is resident): the selected items of the block's range, read
        // while its tiles' bulk copies are in flight, go out in a status word
        // with the launch's tag.
        const std::size_t range_items = std::size_t(range_end) * tile_size;
        const unsigned count = count_selected_share(
            L.d_in, L.select, L.chunk_begin + std::size_t(range_begin) * tile_size,
            L.chunk_begin + (range_items < L.chunk_items ? range_items : L.chunk_items), threadIdx.x, threads);
        if (threadIdx.x == 0) launch_tag = redeem_persistent_ticket(L.d_status, drawn, total_draws).tag;
        const unsigned block_count = block_sum<threads>(count);  // its barrier also releases the prologue's writes
        if (threadIdx.x == 0) block_counts.publish(blockIdx.x, tile_state::inclusive, block_count, launch_tag);
      }
    }
    __syncthreads();
    mbarrier_wait(&loaded[0], 0);
    if (buffer_tile[0] >= L.num_tiles) return;  // no work for this block
    unsigned bits = select_tile(0);
    __syncthreads();
    if (warp == 0) publish_aggregate(0);
    __syncthreads();

    std::uint64_t partition_total = 0;  // partition: selected items in the whole input (from the block's first tile)
    std::uint64_t static_before = 0;    // partition on static tiles: selected in the launch before the current tile
    for (std::uint32_t k = 0;; ++k) {
      const int b = int(k % stages), next = int((k + 1) % stages);
      const std::uint32_t tile = buffer_tile[b];  // waited for in the iteration before
      if (tile >= L.num_tiles) break;
      mbarrier_wait(&loaded[next], ((k + 1) / stages) % 2);  // its ((k + 1) / stages)-th fill
      const bool has_next = buffer_tile[next] < L.num_tiles;
      Item* const staged = staged_of(b);
      const unsigned tile_begin = tile * tile_size;  // launch-local
      const bool full_tile = tile_begin + tile_size <= L.chunk_items;
      const std::size_t tile_global = L.chunk_begin + tile_begin;

      // Phases 0-1 of the next tile first: its aggregate goes out before this
      // tile's look-back waits.
      const unsigned next_bits = has_next ? select_tile(next) : 0u;
      // This tile's items into registers where they go through shared memory
      // (key/value compaction reads them later, from the buffer): after the
      // barrier the buffer may be rearranged.
      Item items[rounds][vec];
      if constexpr (scatter_through_shared) {
#pragma unroll
        for (int r = 0; r < rounds; ++r) load_shared_vector(staged + round_offset(r), items[r]);
      }
      __syncthreads();

      // Phase 2: warp 0 publishes the next tile's aggregate, then looks back for
      // this tile's prefix and publishes its inclusive prefix (static tiles:
      // the prefix comes from the block counts, in phase 3).
      if (warp == 0 && !static_tiles) {
        if (has_next) publish_aggregate(next);
        const prefix_t total = tile_total[b];
        const prefix_t before =
            look_back_and_publish(status, launch_ticket{tile, launch_tag}, total, prefix_t{}, prefix_op{});
        if (lane == 0) {
          tile_prefix = before;
          if (tile == L.num_tiles - 1) finish_launch(prefix_op{}(before, total));
        }
      } else if (warp == 0 && has_next) {
        publish_aggregate(next);
      }

      // Phase 3: every selected item of this tile to its slot (thread 0 first
      // draws the ticket for the refill below).
      if (threadIdx.x == 0) draw_early();
      if constexpr (scatter_through_shared) {
        // Every item to its slot in the tile, in shared memory — the selected
        // ones first, then (partition) the rejected ones — and the block writes
        // the tile's one or two runs with consecutive threads on consecutive
        // addresses, so stores fill whole sectors. The slots within the
        // tile came with its aggregate, so the other warps rearrange while
        // warp 0 looks back, and warp 0 after it.
        const unsigned tile_selected = count_of(tile_total[b]);
        unsigned before = count_of(warp_prefix[b][warp]);  // selected earlier in the tile
#pragma unroll
        for (int r = 0; r < rounds; ++r) {
          const unsigned rb = (bits >> (r * vec)) & vec_mask;
          const unsigned lane_count = unsigned(__popc(rb));
          const unsigned inclusive = warp_inclusive_scan(lane_count, count_op{});
          unsigned slot = before + inclusive - lane_count;  // selected in the tile before item j
          const unsigned i = round_offset(r);
#pragma unroll
          for (int j = 0; j < vec; ++j) {
            const bool selected = (rb >> j) & 1u;
            if (selected) {
              staged[slot] = items[r][j];
            } else if constexpr (Mode == select_mode::partition) {
              // Rejected: after the tile's selected items. A slot past the end
              // of a partial tile is never selected, so it lands on itself,
              // past what the block writes out.
              staged[tile_selected + (i + j - slot)] = items[r][j];
            }
            slot += selected;
          }
          before += shfl_idx(inclusive, warp_threads - 1);
        }
        if constexpr (Mode == select_mode::partition) {
          if (k == 0) {
            // The block's first tile: the block counts (of the pre-pass,
            // waiting for it when this launch is its dependent; or of this
            // launch, waiting for each to carry its tag), summed by warp here
            // and over the warps after the barrier below.
            std::uint64_t counted = 0, counted_before = 0;
            bool pre_pass = true;
            if constexpr (Tuning::count_in_launch) {
              if (L.count_in_launch) {
                pre_pass = false;
                if (single_tile) {
                  if (threadIdx.x == 0) counted = count_of(tile_total[b]);  // the one tile is the whole input
                } else {
                  for (unsigned c = threadIdx.x; c < gridDim.x; c += threads) {  // one count per block of this launch
                    tile_reading<std::uint32_t> r;
                    do r = block_counts.read(c, launch_tag);
                    while (r.state == tile_state::invalid);
                    counted += r.value;
                    if (c < blockIdx.x) counted_before += r.value;
                  }
                  counted_before =
                      warp_reduce(counted_before, warp_threads, [](std::uint64_t x, std::uint64_t y) { return x + y; });
                  if (lane == 0) warp_counts_before[warp] = counted_before;
                }
              }
            }
            if (pre_pass) {
              wait_for_earlier_grid();
              for (unsigned c = threadIdx.x; c < L.count_blocks; c += threads) counted += L.d_block_counts[c];
            }
            counted = warp_reduce(counted, warp_threads, [](std::uint64_t x, std::uint64_t y) { return x + y; });
            if (lane == 0) warp_counts[warp] = counted;
          }
        }
        __syncthreads();
        if constexpr (Mode == select_mode::partition) {
          if (k == 0) {
            for (int w = 0; w < warps; ++w) partition_total += warp_counts[w];
            if constexpr (Tuning::count_in_launch)
              if (static_tiles)
                for (int w = 0; w < warps; ++w) static_before += warp_counts_before[w];
          }
          if (static_tiles && tile == L.num_tiles - 1 && threadIdx.x == 0) {
            // The launch's last tile on static tiles: the call's count (a call
            // counting in its launch is a single launch).
            L.d_state->count = carry.selected + partition_total;
            if (L.d_count != nullptr) *L.d_count = carry.selected + partition_total;
          }
        }
        // The tile's first selected slot.
        const std::uint64_t first = carry.selected + (static_tiles ? static_before : count_of(tile_prefix));
        std::uint64_t first_rejected = 0;
        if constexpr (Mode == select_mode::partition) first_rejected = partition_total + (tile_global - first);
        const unsigned written =
            Mode == select_mode::partition ? (full_tile ? tile_size : L.chunk_items - tile_begin) : tile_selected;
        for (unsigned k = threadIdx.x; k < written; k += threads)
          L.d_out[k < tile_selected ? first + k : first_rejected + (k - tile_selected)] = staged[k];
        if constexpr (Mode == select_mode::partition) static_before += tile_selected;
      } else {
        // Key/value compaction: every selected item and its value straight
        // from its slot, after the look-back.
        __syncthreads();
        unsigned running = tile_prefix + warp_prefix[b][warp];
        const std::uint64_t base = carry.selected;
#pragma unroll
        for (int r = 0; r < rounds; ++r) {
          const unsigned rb = (bits >> (r * vec)) & vec_mask;
          const unsigned lane_count = unsigned(__popc(rb));
          const unsigned inclusive = warp_inclusive_scan(lane_count, count_op{});
          const unsigned i = round_offset(r);
          const std::size_t g = tile_global + i;
          if (rb != 0) {
            Item v[vec];
            load_shared_vector(staged + i, v);
            unsigned slot = running + inclusive - lane_count;  // launch-local: selected before item j
#pragma unroll
            for (int j = 0; j < vec; ++j) {
              if ((rb >> j) & 1u) {
                L.d_out[base + slot] = v[j];
                L.d_values_out[base + slot] = L.d_values_in[g + j];
                ++slot;
              }
            }
          }
          running += shfl_idx(inclusive, warp_threads - 1);
        }
      }

      // Buffer b is free again (every thread is done with it and with the
      // shared prefixes): refill it; the copy has stages − 1 iterations to land.
      fence_generic_to_async_shared();
      __syncthreads();
      if (threadIdx.x == 0) fill(b);
      bits = next_bits;
    }
  }
}

}  // namespace scankit::detail
