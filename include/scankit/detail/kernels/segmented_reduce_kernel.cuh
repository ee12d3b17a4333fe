// detail/kernels/segmented_reduce_kernel.cuh — load-balanced segmented
// reduction: merge-path tiles of equal work (detail/ragged/merge_path.cuh),
// each reduced independently, then the segments that cross tiles fixed up.
//
// The boundaries are all num_segments + 1 offsets; items are the values
// 0 .. num_values-1. Boundary k closes segment k - 1 (boundary 0 closes the
// values before offsets[0], which belong to no segment and are dropped; the
// values after the last boundary likewise).
//
//   tiles kernel   persistent blocks (a block's first tile is its blockIdx,
//                  the next ones drawn from the launch counter, so blocks
//                  that got through theirs early take more), each tile
//                  staged by bulk copy (TMA): for 4-byte values after the
//                  block's tile before it, the wait hidden by five resident
//                  blocks per SM; for wider ones while the tile before it is
//                  reduced (two stages). No tile waits for another. Every
//                  segment closed in the tile is final except the tile's
//                  first one, which lacks the part before the tile: the tile
//                  leaves that partial and its own carry (segment_carry)
//                  behind.
//   carry scan     exclusive scan of the tile carries (the single-pass scan
//                  kernel, one item per tile).
//   fix-up         one thread per tile: first segment = carry in ⊕ partial.
#pragma once

#include <scankit/detail/block/block_scan_warp_shuffle.cuh>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/ragged/merge_path.cuh>
#include <scankit/detail/ragged/segment_carry.cuh>
#include <scankit/detail/thread/bulk_copy.cuh>

#include <cstdint>

namespace scankit::detail {

/// Threads, and merge steps per thread: a tile holds threads x steps values
/// and boundaries (steps odd, so that threads walking runs of values read
/// different shared-memory banks where a tile holds no boundary; the threads
/// share a tile by cost, see boundary_weight). Longer tiles spread the
/// per-tile costs (block scan, barriers, staging); more resident warps hide
/// the barriers' waits for a block's slowest warp. For 4-byte values (int32
/// sum, 2^28 values, H200): one stage of 384 x 25 at 5 blocks per SM against
/// two stages of 384 x 23 at 3 (the next tile staged while this one is
/// reduced): segments of 4 9 %, power-law lengths 8 % and the giant among
/// 1-15 3 % faster, segments of 256 4 % slower, 1 and 65536 within 1 % (at
/// 2^24 segments of 256 9 % slower). Two stages of shorter tiles at 4 blocks
/// (384 x 15-17, 320 x 19) or of 512 x 15 at 3 were 1-19 % slower for every
/// distribution at 2^28; one stage of 512 x 19-21 at 4 blocks slower for all
/// but the power law (docs/ragged.md).
template <class T>
struct segmented_reduce_shape {
  static constexpr int threads = sizeof(T) <= 4 ? 384 : 128;
  static constexpr int steps = sizeof(T) <= 4 ? 25 : 11;
  /// Tiles staged in shared memory per block: 2 = the block's next tile is
  /// staged (bulk copy) while this one is reduced; 1 = after it, its latency
  /// hidden by the other resident blocks (one stage takes half the shared
  /// memory: 5 blocks of 384 per SM for 4-byte values and offsets).
  static constexpr int stages = sizeof(T) <= 4 ? 1 : 2;
  /// Resident blocks per SM that the launch bounds ask registers for, with
  /// 4-byte offsets (a stage of 8-byte offsets, or the slots that 1- and
  /// 2-byte offsets need beside it, leaves room for fewer blocks): 5 blocks of
  /// 384 threads need at most 32 registers each.
  static constexpr int min_blocks = sizeof(T) <= 4 ? 5 : 1;
  static constexpr std::uint32_t tile_diagonals = std::uint32_t(threads) * steps;
  /// Within a tile, the threads' walks are cut at equal cost with a boundary
  /// counted as this many values (closing a segment costs a walk several
  /// times what folding a value does), so that a warp's lanes finish closer
  /// together where segment lengths are uneven. 4 against equal merge steps
  /// (int32 sum, 2^28 values, H200): power law 6 %, giant 5 %, segments of
  /// 256 4.5 % and of 1 3 % faster, of 4 1.6 % slower; 2, 3 and 6 gained less.
  /// Swept again with the shared leading fold: 6 was 1 % faster on the power
  /// law but gave back segments of 256's gain (docs/ragged.md).
  static constexpr std::uint32_t boundary_weight = 4;
};

template <class T>
struct segmented_reduce_launch {
  std::uint64_t num_values;
  std::uint64_t num_boundaries;   // num_segments + 1
  std::uint64_t num_tiles;
  const std::uint64_t* d_splits;  // merge-path partition, num_tiles + 1 entries
  std::uint64_t* d_counter;       // launch counter: each block's tiles after its first are drawn from it
  segment_carry<T>* d_carries;    // per tile: its carry (then, scanned in place: its carry in)
  maybe<T>* d_first_partials;     // per tile: the partial of its first closed segment
  T init;
};

/// Bytes of one staged copy of `count` elements of E that may start anywhere
/// within a 16-byte line (see stage_range).
template <class E>
__host__ __device__ constexpr std::uint32_t staged_range_bytes(std::uint32_t count) {
  return (count * std::uint32_t(sizeof(E)) + 31) / 16 * 16;
}

/// Element index (in the staging buffer) of the range's first element: its
/// offset within its 16-byte line.
template <class E>
__device__ __forceinline__ std::uint32_t staged_shift(const E* d_first) {
  if constexpr (16 % sizeof(E) != 0) return 0;
  return std::uint32_t(reinterpret_cast<std::uintptr_t>(d_first) % 16) / std::uint32_t(sizeof(E));
}

/// Thread 0: starts copying d_array[begin, end) into `buffer` so that element
/// begin + k lands at buffer[staged_shift + k]: one bulk copy of the whole
/// 16-byte lines inside the array, counted on `bar`; the few elements outside
/// them (only where the array itself is not 16-byte aligned at its ends) are
/// loaded directly. Returns the bytes the bulk copy brings.
template <class E>
__device__ std::uint32_t stage_range(E* buffer, const E* d_array, std::uint64_t array_size, std::uint64_t begin,
                                     std::uint64_t end, std::uint64_t* bar) {
  if (begin >= end) return 0;
  static_assert(16 % sizeof(E) == 0, "elements that tile 16-byte lines");
  const std::uintptr_t line_of_begin = reinterpret_cast<std::uintptr_t>(d_array + begin) / 16 * 16;
  const std::uintptr_t array_begin = (reinterpret_cast<std::uintptr_t>(d_array) + 15) / 16 * 16;
  const std::uintptr_t array_end = reinterpret_cast<std::uintptr_t>(d_array + array_size) / 16 * 16;
  std::uintptr_t copy_begin = line_of_begin > array_begin ? line_of_begin : array_begin;
  std::uintptr_t copy_end = (reinterpret_cast<std::uintptr_t>(d_array + end) + 15) / 16 * 16;
  if (copy_end > array_end) copy_end = array_end;
  unsigned char* const dst = reinterpret_cast<unsigned char*>(buffer);
  std::uint32_t bytes = 0;
  if (copy_begin < copy_end) {
    bytes = std::uint32_t(copy_end - copy_begin);
    mbarrier_expect_bytes(bar, bytes);
    bulk_copy_to_shared(dst + (copy_begin - line_of_begin), reinterpret_cast<const void*>(copy_begin), bytes, bar);
  } else {
    copy_begin = copy_end = reinterpret_cast<std::uintptr_t>(d_array + end);  // nothing copied: load it all
  }
  // Elements before / after the copied lines.
  const std::uint32_t shift = staged_shift(d_array + begin);
  for (std::uint64_t g = begin; g < end; ++g) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(d_array + g);
    if (a >= copy_begin && a < copy_end) {
      g += (copy_end - a) / sizeof(E) - 1;  // skip the copied lines
      continue;
    }
    buffer[shift + (g - begin)] = d_array[g];
  }
  return bytes;
}

/// Dynamic shared memory: segmented_reduce_shape::stages stages, each holding
/// a tile's values and then, from the next 16-byte line, its raw offsets
/// (values + boundaries never exceed the tile's diagonals). Boundary k's slot
/// holds its tile-relative position, then the value of the segment it closes:
/// in place of raw offset k where that cell holds both (no more shared memory,
/// and each cell is converted by the thread that reads it), else in an array
/// of their own.
template <class T, class Offset>
struct segmented_reduce_smem {
  static constexpr std::uint32_t diagonals = segmented_reduce_shape<T>::tile_diagonals;
  static constexpr std::uint32_t widest =
      sizeof(T) > sizeof(Offset) ? std::uint32_t(sizeof(T)) : std::uint32_t(sizeof(Offset));
  static constexpr std::uint32_t stage_bytes = diagonals * widest + 64;  // + the two ranges' partial lines
  static constexpr bool slots_in_place = sizeof(Offset) >= 4 && sizeof(T) <= sizeof(Offset);
  static constexpr std::uint32_t slot_bytes =
      slots_in_place ? std::uint32_t(sizeof(Offset)) : sizeof(T) > 4 ? std::uint32_t(sizeof(T)) : 4u;
  static constexpr std::uint32_t slot_area_bytes =
      slots_in_place ? 0 : (padded_slots<std::uint32_t>(diagonals + 1) * slot_bytes + 15) / 16 * 16;
  static constexpr std::uint32_t bytes = segmented_reduce_shape<T>::stages * stage_bytes + slot_area_bytes;
  /// Byte offset of the raw offsets in a stage holding `items` values.
  __device__ static std::uint32_t offsets_at(std::uint32_t items) { return staged_range_bytes<T>(items); }
  /// Byte offset of boundary k's slot from the first slot.
  __device__ static std::uint32_t slot_at(std::uint32_t k) {
    return (slots_in_place ? k : padded_slot<std::uint32_t>(k)) * slot_bytes;
  }
};

template <class T, class Offset, class Op>
__global__ void __launch_bounds__(segmented_reduce_shape<T>::threads,
                                  sizeof(Offset) == 4 ? segmented_reduce_shape<T>::min_blocks : 1)
    segmented_reduce_tiles_kernel(const T* d_values, const Offset* d_offsets, T* d_out, Op op,
                                  segmented_reduce_launch<T> L) {
  using shape = segmented_reduce_shape<T>;
  using smem = segmented_reduce_smem<T, Offset>;
  constexpr int threads = shape::threads;
  using carry_t = segment_carry<T>;
  using block_scan = block_scan_warp_shuffle<carry_t, threads, 1, 1>;

  extern __shared__ uint4 smem_words[];
  constexpr int stages = shape::stages;
  static_assert(stages == 1 || stages == 2, "one or two stages");
  __shared__ std::uint64_t loaded[stages];  // mbarriers of the stages
  __shared__ merge_tile staged_tile[stages];  // the tile in each stage
  __shared__ std::uint64_t staged_id[stages];  // its index (num_tiles or more: none, the block is done)
  __shared__ typename block_scan::storage scan_storage;
  __shared__ carry_t tile_carry;
  __shared__ merge_position walk_start[threads + 1];  // where each thread's walk starts, then (na, nb)
  auto stage = [&](int s) { return reinterpret_cast<unsigned char*>(smem_words) + s * smem::stage_bytes; };
  auto values_of = [&](int s) { return reinterpret_cast<T*>(stage(s)); };
  auto offsets_of = [&](int s, const merge_tile& m) {
    return reinterpret_cast<Offset*>(stage(s) + smem::offsets_at(m.items()));
  };
  unsigned char* const slot_array = reinterpret_cast<unsigned char*>(smem_words) + stages * smem::stage_bytes;
  const std::uint64_t total = L.num_boundaries + L.num_values;
  // Values whose size does not tile 16-byte lines are loaded by all threads
  // once their tile is current (not staged ahead).
  constexpr bool bulk_values = 16 % sizeof(T) == 0;

  // Thread 0: start staging the block's next tile (`upcoming`) into stage s
  // (the stage's previous tile is done: every thread passed the barrier at
  // the end of the loop over it). A block's first tile is its blockIdx, the
  // ones after are drawn from the launch counter, one fill ahead: blocks go
  // at unequal paces (their tiles' mix of boundaries and values, their SM),
  // and those that got through theirs early draw more. The upcoming tile's
  // splits were loaded one fill earlier (split_lo / split_hi), so their
  // latency is hidden.
  std::uint64_t upcoming = blockIdx.x;       // thread 0: the tile the next fill stages
  std::uint64_t split_lo = 0, split_hi = 0;  // thread 0: its splits
  auto load_splits = [&] {
    if (upcoming < L.num_tiles) {
      split_lo = L.d_splits[upcoming];
      split_hi = L.d_splits[upcoming + 1];
    }
  };
  auto fill = [&](int s) {
    staged_id[s] = upcoming;
    if (upcoming < L.num_tiles) {
      const merge_tile m = clamp_merge_tile(split_lo, split_hi, upcoming, shape::tile_diagonals, total);
      staged_tile[s] = m;
      if constexpr (bulk_values) stage_range(values_of(s), d_values, L.num_values, m.b_begin, m.b_end, &loaded[s]);
      stage_range(offsets_of(s, m), d_offsets, L.num_boundaries, m.a_begin, m.a_end, &loaded[s]);
      // Every block draws once per tile it stages (num_tiles draws in all,
      // the last one resets the counter); tickets past the tiles mean done.
      const launch_ticket t =
          redeem_persistent_ticket(L.d_counter, draw_ticket(L.d_counter), std::uint32_t(L.num_tiles));
      upcoming = std::uint64_t(t.tile) + gridDim.x;
      load_splits();
    }
    mbarrier_arrive(&loaded[s]);  // releases staged_tile[s] and staged_id[s]
  };
  // Launched as the partition's dependent: the splits are there once the
  // partition has finished; the carry scan after this kernel may launch.
  wait_for_earlier_grid();
  allow_dependent_launch();
  if (threadIdx.x == 0) {
    for (int s = 0; s < stages; ++s) mbarrier_init(&loaded[s]);
    load_splits();
    fill(0);
  }
  __syncthreads();

  for (std::uint32_t round = 0;; ++round) {
    const int s = int(round % stages);
    if constexpr (stages == 2)
      if (threadIdx.x == 0) fill(s ^ 1);  // stage the block's next tile now
    mbarrier_wait(&loaded[s], (round / stages) % 2);
    const std::uint64_t tile = staged_id[s];
    if (tile >= L.num_tiles) break;
    const merge_tile m = staged_tile[s];
    const std::uint32_t na = m.boundaries(), nb = m.items();
    T* const values_s = values_of(s) + (bulk_values ? staged_shift(d_values + m.b_begin) : 0);
    if constexpr (!bulk_values)
      for (std::uint32_t k = threadIdx.x; k < nb; k += threads) values_s[k] = d_values[m.b_begin + k];

    // Phase 1: the tile's boundaries to tile-relative positions in their
    // slots (clamped to [0, nb], which changes nothing for valid offsets).
    const Offset* const raw = offsets_of(s, m) + staged_shift(d_offsets + m.a_begin);
    unsigned char* const slots =
        smem::slots_in_place ? reinterpret_cast<unsigned char*>(const_cast<Offset*>(raw)) : slot_array;
    auto bound_slot = [&](std::uint32_t k) { return reinterpret_cast<std::uint32_t*>(slots + smem::slot_at(k)); };
    auto closed_slot = [&](std::uint32_t k) { return reinterpret_cast<T*>(slots + smem::slot_at(k)); };
    {
      // 32-bit arithmetic where it suffices (64-bit for every tile measured
      // 10 % slower for segments of 1, 5 % for segments of 4: H200, 2^28).
      if (sizeof(Offset) <= 4 && m.b_end <= 0xffffffffu) {
        const std::uint32_t b_begin = std::uint32_t(m.b_begin);
        for (std::uint32_t k = threadIdx.x; k < na; k += threads) {
          const std::uint32_t o = std::uint32_t(offset_index(raw[k]));
          *bound_slot(k) = min(o > b_begin ? o - b_begin : 0u, nb);
        }
      } else {
        for (std::uint32_t k = threadIdx.x; k < na; k += threads) {
          const std::uint64_t o = offset_index(raw[k]);
          const std::uint64_t rel = o > m.b_begin ? o - m.b_begin : 0;
          *bound_slot(k) = rel < nb ? std::uint32_t(rel) : nb;
        }
      }
      // A default for the tile's first partial, overwritten (after the
      // barriers below) by the thread that closes the tile's first segment.
      if (threadIdx.x == 0 && na > 0) L.d_first_partials[tile] = maybe<T>{L.init, false};
    }
    __syncthreads();

    // Phase 2: each thread finds the split of its share of the tile's walk
    // cost (boundaries weighted) and learns where its walk ends (the next
    // thread's split); then (after every search is done: the walk overwrites
    // slots) it walks its part of the merge: boundary k closes the segment of
    // the values since the previous boundary. Those segments are final; the
    // first one closed also needs the part before the walk (phase 3), and the
    // values after the last boundary are the walk's open segment.
    constexpr std::uint32_t weight = shape::boundary_weight;
    const std::uint32_t cost = nb + weight * na;
    // Shares of at least `weight` each hold a step (a boundary that starts
    // before a share ends inside it), so every thread below `active` walks
    // something; threads past it (only in the launch's last tile) stand idle.
    // (All active, the usual case, is the middle case with a divisor the
    // compiler knows: a multiply and shift instead of an integer division.)
    const std::uint32_t active = min(std::uint32_t(threads), max(cost / weight, 1u));
    const std::uint32_t diagonal = active == std::uint32_t(threads) ? threadIdx.x * cost / std::uint32_t(threads)
                                   : threadIdx.x < active              ? threadIdx.x * cost / active
                                                                       : cost;
    const merge_position start =
        merge_split_near<weight>([&](std::uint32_t k) { return *bound_slot(k); }, na, nb, diagonal);
    walk_start[threadIdx.x] = start;
    if (threadIdx.x == 0) walk_start[threads] = merge_position{na, nb};
    __syncthreads();
    const std::uint32_t a_end = walk_start[threadIdx.x + 1].a;
    const std::uint32_t b_end = walk_start[threadIdx.x + 1].b;
    // Values [from, to) folded into x, in order: four at a time, then a pair
    // and a single. (Not unrolled further: the compiler's unrolling of the
    // four-value loop costs every short run a cascade of checks. The pair and
    // single instead of a loop of up to three: power-law lengths 7 % and the
    // giant among 1-15 4 % faster, segments of 1 2.5 % slower.)
    auto fold = [&](T x, std::uint32_t from, std::uint32_t to) {
#pragma unroll 1
      for (; from + 4 <= to; from += 4)
        x = op(op(op(op(x, values_s[from]), values_s[from + 1]), values_s[from + 2]), values_s[from + 3]);
      if (from + 2 <= to) {
        x = op(op(x, values_s[from]), values_s[from + 1]);
        from += 2;
      }
      if (from < to) x = op(x, values_s[from]);
      return x;
    };
    std::uint32_t b = start.b;
    // Boundary k's position, kept within [b, b_end] (changes nothing for valid offsets).
    auto position = [&](std::uint32_t k) { return min(max(*bound_slot(k), b), b_end); };
    // The values before the walk's first boundary, or all of them where it
    // holds none: every lane folds its leading values in this one loop, so a
    // warp where some lanes hold boundaries runs the others' folds beside
    // theirs, not as a path of its own; then only lanes with boundaries go
    // on to close segments.
    const bool has_boundary = start.a < a_end;
    const std::uint32_t first_end = has_boundary ? position(start.a) : b_end;
    maybe<T> leading{L.init, false};  // init where the walk is empty (only invalid offsets leave one so)
    if (b < first_end) leading = maybe<T>{fold(values_s[b], b + 1, first_end), true};
    T open = leading.value;  // the walk's open segment (after its last boundary, if any)
    if (has_boundary) {
      b = first_end;
      for (std::uint32_t k = start.a + 1; k < a_end; ++k) {
        const std::uint32_t end = position(k);
        *closed_slot(k) = fold(L.init, b, end);
        b = end;
      }
      open = fold(L.init, b, b_end);
    }
    const std::uint32_t closed = has_boundary ? a_end - start.a : 0u;

    // Phase 3: exclusive scan of the threads' carries within the tile (no
    // prefix: thread 0 has no carry in). A thread past the tile's end carries
    // (1, init): it closes nothing and makes the combine take nothing from it.
    const segment_carry_op<T, Op, false> carry_op{op};
    const carry_t mine = diagonal < cost ? carry_t{closed, open} : carry_t{1, L.init};
    carry_t carry_in{};
    block_scan::template scan<true>(
        scan_storage, [&](int, carry_t(&v)[1]) { v[0] = mine; }, [&](int, const carry_t(&v)[1]) { carry_in = v[0]; },
        carry_op, [&](const carry_t& tile_total) {
          if (lane_id() == 0) tile_carry = tile_total;
          return maybe<carry_t>{carry_t{}, false};
        });
    if (closed > 0) {
      const maybe<T> in{carry_in.partial, threadIdx.x > 0};
      const maybe<T> first = combine(in, leading, op);
      if (start.a == 0) {
        L.d_first_partials[tile] = first;  // the tile's first closed segment: fixed up later
      } else {
        *closed_slot(start.a) = first.value;
      }
    }
    __syncthreads();

    // Phase 4: store the segments closed in this tile after its first, and
    // the tile's carry.
    T* const out = d_out + m.a_begin;  // boundary k closes segment a_begin + k - 1
    for (std::uint32_t k = threadIdx.x + 1; k < na; k += threads) out[k - 1] = *closed_slot(k);
    if (threadIdx.x == 0) {
      // The last tile's threads past the end spoil its total; nobody reads it.
      L.d_carries[tile] = tile_carry;
    }
    fence_generic_to_async_shared();  // stage s's reads and writes before its refill's copy
    __syncthreads();  // stage s is free for the block's tile `stages` tiles on
    if constexpr (stages == 1)
      if (threadIdx.x == 0) fill(0);  // stage the block's next tile
  }
}

/// One thread per tile: the tile's first closed segment gets the carry from
/// the tiles before it (scanned in place into d_carries).
template <class T, class Op>
__global__ void segmented_reduce_fixup_kernel(T* d_out, Op op, segmented_reduce_launch<T> L) {
  wait_for_earlier_grid();  // the carry scan's dependent
  const std::uint64_t tile = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tile >= L.num_tiles) return;
  const merge_tile m = merge_tile_bounds(L.d_splits, tile, segmented_reduce_shape<T>::tile_diagonals,
                                         L.num_boundaries + L.num_values);
  if (m.a_end == m.a_begin || m.a_begin == 0) return;  // no boundary, or only the one before the first segment
  const T carry_in = L.d_carries[tile].partial;  // always real: the sequence starts with (0, init)
  const maybe<T> first = L.d_first_partials[tile];
  d_out[m.a_begin - 1] = first.has ? op(carry_in, first.value) : carry_in;
}

}  // namespace scankit::detail
