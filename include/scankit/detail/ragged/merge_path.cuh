// detail/ragged/merge_path.cuh — load balancing by merge path (Green,
// McColl & Bader; moderngpu's load-balancing search).
//
// Ragged work is the merge of two sorted sequences: the segment boundaries
// B[0 .. num_boundaries) (CSR offsets) and the items 0, 1, ..., num_items-1
// (values to reduce, or outputs to expand). Boundary k comes before item b
// exactly when B[k] <= b, so an item's segment is the number of boundaries
// before it, minus one. Cutting the merged sequence into tiles of equal
// length ("diagonals") gives every block the same work whatever the segment
// lengths: a tile holds few items and many boundaries where segments are
// short, many items and no boundary inside a long segment.
#pragma once

#include <scankit/detail/block/padded_slots.cuh>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace scankit::detail {

/// An offset as an unsigned 64-bit index (a negative signed offset becomes
/// huge, so it reads as "after every item" and is never used as an address).
template <class Offset>
__host__ __device__ __forceinline__ std::uint64_t offset_index(Offset o) {
  return std::uint64_t(std::make_unsigned_t<Offset>(o));
}

/// Where the split of diagonal d (a + b = d) can lie: a in [lo, hi], at least
/// d - num_items boundaries (no more items exist) and at most
/// min(d, num_boundaries).
template <class Index>
struct split_range {
  Index lo, hi;
};
template <class Index>
__device__ __forceinline__ split_range<Index> diagonal_split_range(Index d, Index num_boundaries, Index num_items) {
  return {d > num_items ? d - num_items : Index(0), d < num_boundaries ? d : num_boundaries};
}

/// Bisection of [lo, hi): the first k for which `before(k)` is false (hi if
/// none), assuming `before` is true up to some k and false after it. Whatever
/// `before` returns, the result stays in [lo, hi].
template <class Index, class Before>
__device__ __forceinline__ Index bisect_split(Before before, Index lo, Index hi) {
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (before(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// Boundaries before diagonal d (a + b = d, a boundaries and b items
/// consumed): the first a in [max(0, d - num_items), min(d, num_boundaries)]
/// whose boundary comes after item d - a - 1. `boundary(k)` returns B[k] as
/// an index. Binary search, so non-monotone (invalid) boundaries still give an
/// a in that range.
template <class Boundary>
__device__ __forceinline__ std::uint64_t merge_path_split(Boundary boundary, std::uint64_t num_boundaries,
                                                          std::uint64_t num_items, std::uint64_t d) {
  const split_range<std::uint64_t> range = diagonal_split_range(d, num_boundaries, num_items);
  // Boundary k precedes item d - k - 1: the split is past k.
  return bisect_split([&](std::uint64_t k) { return boundary(k) < d - k; }, range.lo, range.hi);
}

/// merge_path_split by a group of `Lanes` lanes of a warp (a power of two,
/// 2-32; all lanes of the group, the same d; every lane gets the split):
/// each step cuts the range into `Lanes` chunks, every lane reads the last
/// boundary of one, and the first chunk whose last boundary is not before
/// the split's diagonal becomes the range — about log_Lanes of the range in
/// dependent reads where the binary search takes log2 (22 for 4 million
/// boundaries), for `Lanes` times the reads. The same range guarantee.
template <unsigned Lanes, class Boundary>
__device__ __forceinline__ std::uint64_t group_merge_path_split(Boundary boundary, std::uint64_t num_boundaries,
                                                                std::uint64_t num_items, std::uint64_t d) {
  static_assert(Lanes >= 2 && Lanes <= warp_threads && (Lanes & (Lanes - 1)) == 0, "a power of two, 2-32");
  const unsigned lane = unsigned(lane_id()) % Lanes;
  const unsigned group_base = unsigned(lane_id()) - lane;
  const unsigned group_mask = Lanes == warp_threads ? full_warp_mask : ((1u << Lanes) - 1) << group_base;
  const split_range<std::uint64_t> range = diagonal_split_range(d, num_boundaries, num_items);
  std::uint64_t lo = range.lo, hi = range.hi;  // the split is in [lo, hi]
  while (lo < hi) {
    const std::uint64_t chunk = (hi - lo + Lanes - 1) / Lanes;
    const std::uint64_t first = lo + lane * chunk;  // this lane's chunk: [first, last]
    const std::uint64_t last = (first + chunk < hi ? first + chunk : hi) - 1;
    // Boundary k precedes item d - k - 1: the split is past k.
    const bool past_split = first < hi && !(boundary(last) < d - last);
    const unsigned past = (__ballot_sync(group_mask, past_split) & group_mask) >> group_base;
    if (past == 0) return hi;  // every chunk before the split
    const unsigned f = unsigned(__ffs(past)) - 1;
    const std::uint64_t f_first = lo + f * chunk;
    hi = (f_first + chunk < hi ? f_first + chunk : hi) - 1;  // not before: the split is at most here
    lo = f_first;                                            // chunk f - 1 ended before it
  }
  return lo;
}

/// d_splits[t] = boundaries before diagonal t * tile_diagonals, t = 0 ..
/// num_tiles (the last one is the end of the merge); `Lanes` lanes per split
/// (1: a thread's binary search).
template <unsigned Lanes, class Offset>
__global__ void merge_path_partition_kernel(const Offset* d_boundaries, std::uint64_t num_boundaries,
                                            std::uint64_t num_items, std::uint64_t tile_diagonals,
                                            std::uint64_t num_tiles, std::uint64_t* d_splits) {
  const std::uint64_t thread = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::uint64_t t = thread / Lanes;
  if (t > num_tiles) return;  // the whole group
  const std::uint64_t total = num_boundaries + num_items;
  const std::uint64_t d = t * tile_diagonals < total ? t * tile_diagonals : total;
  auto boundary = [&](std::uint64_t k) { return offset_index(d_boundaries[k]); };
  if constexpr (Lanes > 1) {
    const std::uint64_t split = group_merge_path_split<Lanes>(boundary, num_boundaries, num_items, d);
    if (lane_id() % Lanes == 0) d_splits[t] = split;
  } else {
    d_splits[t] = merge_path_split(boundary, num_boundaries, num_items, d);
  }
}

/// One tile of the merge: boundaries [a_begin, a_end), items [b_begin, b_end).
struct merge_tile {
  std::uint64_t a_begin, a_end, b_begin, b_end;
  __device__ std::uint32_t boundaries() const { return std::uint32_t(a_end - a_begin); }
  __device__ std::uint32_t items() const { return std::uint32_t(b_end - b_begin); }
};

/// Tile `tile`'s range from its two splits (a_begin = split_lo). The end is
/// clamped so that the tile never holds more than its diagonals nor runs
/// backwards, whatever the boundaries held (with valid boundaries the clamp
/// changes nothing).
__device__ __forceinline__ merge_tile clamp_merge_tile(std::uint64_t split_lo, std::uint64_t split_hi,
                                                       std::uint64_t tile, std::uint64_t tile_diagonals,
                                                       std::uint64_t total) {
  const std::uint64_t d0 = tile * tile_diagonals;
  const std::uint64_t d1 = d0 + tile_diagonals < total ? d0 + tile_diagonals : total;
  merge_tile m;
  m.a_begin = split_lo;
  std::uint64_t a1 = split_hi;
  if (a1 < m.a_begin) a1 = m.a_begin;
  if (a1 > m.a_begin + (d1 - d0)) a1 = m.a_begin + (d1 - d0);
  m.a_end = a1;
  m.b_begin = d0 - m.a_begin;
  m.b_end = d1 - m.a_end;
  return m;
}

/// Tile `tile`'s range from the partition.
__device__ __forceinline__ merge_tile merge_tile_bounds(const std::uint64_t* d_splits, std::uint64_t tile,
                                                        std::uint64_t tile_diagonals, std::uint64_t total) {
  return clamp_merge_tile(d_splits[tile], d_splits[tile + 1], tile, tile_diagonals, total);
}

/// No boundary: a sentinel past every item of a tile.
constexpr std::uint32_t no_boundary = 0xffffffffu;

/// Stages the tile's boundaries in shared memory as item positions relative
/// to the tile (clamped to [0, items], which changes nothing for valid
/// offsets), at padded slots, with the sentinel after the last. Each thread
/// issues all its loads before its stores.
template <int Threads, int Rounds, class Offset>
__device__ __forceinline__ void stage_tile_boundaries(const Offset* d_boundaries, const merge_tile& m,
                                                      std::uint32_t* bounds_s) {
  const std::uint32_t na = m.boundaries(), nb = m.items();
  std::uint64_t o[Rounds];
#pragma unroll
  for (int r = 0; r < Rounds; ++r) {
    const std::uint32_t k = r * Threads + threadIdx.x;
    if (k < na) o[r] = offset_index(d_boundaries[m.a_begin + k]);
  }
#pragma unroll
  for (int r = 0; r < Rounds; ++r) {
    const std::uint32_t k = r * Threads + threadIdx.x;
    if (k < na) {
      const std::uint64_t local = o[r] > m.b_begin ? o[r] - m.b_begin : 0;
      bounds_s[padded_slot<std::uint32_t>(k)] = local < nb ? std::uint32_t(local) : nb;
    }
  }
  if (threadIdx.x == 0) bounds_s[padded_slot<std::uint32_t>(na)] = no_boundary;
}

/// Where one thread's walk starts: a boundaries and b items of the tile
/// before it.
struct merge_position {
  std::uint32_t a, b;
};

/// The split of the tile's local `diagonal` (binary search over the staged
/// boundaries).
__device__ __forceinline__ merge_position tile_merge_start(const std::uint32_t* bounds_s, std::uint32_t na,
                                                           std::uint32_t nb, std::uint32_t diagonal) {
  const split_range<std::uint32_t> range = diagonal_split_range(diagonal, na, nb);
  const std::uint32_t a = bisect_split(
      [&](std::uint32_t k) { return bounds_s[padded_slot<std::uint32_t>(k)] < diagonal - k; }, range.lo, range.hi);
  return merge_position{a, diagonal - a};
}

/// The split of the tile's local `diagonal` when a boundary counts as Weight
/// (w) steps of the merge and an item as one (the diagonals then run to nb +
/// w * na): boundary k starts at w * k + B[k], so the split of diagonal d is
/// a = the boundaries that start before d, b = the items that start before
/// it. `boundary(k)` returns the staged boundary k (tile-relative, in [0,
/// nb]). The search starts from a guess — where the split would be if
/// boundaries and items were spread evenly over the tile — then gallops to
/// bracket the split (1, 2, 4, ... steps out) and bisects the bracket: a few
/// dependent reads where segment lengths are even, at most about twice a
/// plain binary search's where they are not. Whatever the boundaries hold, a
/// stays within [ceil((d - nb) / w), min(na, ceil(d / w))] and b within [0, nb].
template <std::uint32_t Weight, class Boundary>
__device__ __forceinline__ merge_position merge_split_near(Boundary boundary, std::uint32_t na, std::uint32_t nb,
                                                           std::uint32_t diagonal) {
  static_assert(Weight >= 1, "a boundary weighs at least one step");
  // At least the boundaries that start before d even after every item
  // (w * k + nb < d), at most those that start before d with no item before
  // them (w * k < d).
  const std::uint32_t after_items = diagonal > nb ? diagonal - nb : 0u;
  const std::uint32_t without_items = (diagonal + Weight - 1) / Weight;
  std::uint32_t lo = (after_items + Weight - 1) / Weight, hi = without_items < na ? without_items : na;
  // before(k): boundary k starts before the diagonal, so the split is past k.
  auto before = [&](std::uint32_t k) { return boundary(k) < diagonal - Weight * k; };
  if (lo < hi) {
    std::uint32_t guess = std::uint32_t(float(diagonal) * __fdividef(float(na), float(Weight * na + nb)));
    guess = guess < lo ? lo : guess >= hi ? hi - 1 : guess;
    if (before(guess)) {
      lo = guess + 1;
      for (std::uint32_t step = 1; lo + step - 1 < hi; step *= 2) {
        const std::uint32_t k = lo + step - 1;
        if (!before(k)) {
          hi = k;
          break;
        }
        lo = k + 1;
      }
    } else {
      hi = guess;
      for (std::uint32_t step = 1; hi >= lo + step; step *= 2) {
        const std::uint32_t k = hi - step;
        if (before(k)) {
          lo = k + 1;
          break;
        }
        hi = k;
      }
    }
    lo = bisect_split(before, lo, hi);
  }
  // The items before the split: d - w * lo, or those before boundary lo - 1
  // where that boundary starts before d and ends after it. (Never more than
  // B[lo]: boundary lo starts at or after d. In [0, nb] whatever the
  // boundaries hold, as lo >= (d - nb) / w.)
  const std::uint32_t b = diagonal > Weight * lo ? diagonal - Weight * lo : 0u;
  return merge_position{lo, lo > 0 ? max(b, boundary(lo - 1)) : b};
}

/// Walks `steps` (at most Steps) of the tile's merge from p: calls
/// on_boundary(a, b) when boundary a comes next (before item b), else
/// on_item(b, a) for item b (after a boundaries). The next boundary's
/// position stays in a register, so an item costs one comparison.
template <int Steps, class OnBoundary, class OnItem>
__device__ __forceinline__ void merge_walk(const std::uint32_t* bounds_s, merge_position p, std::uint32_t steps,
                                           OnBoundary on_boundary, OnItem on_item) {
  std::uint32_t next = bounds_s[padded_slot<std::uint32_t>(p.a)];
#pragma unroll
  for (int s = 0; s < Steps; ++s) {
    if (std::uint32_t(s) < steps) {
      if (next <= p.b) {
        on_boundary(p.a, p.b);
        ++p.a;
        next = bounds_s[padded_slot<std::uint32_t>(p.a)];
      } else {
        on_item(p.b, p.a);
        ++p.b;
      }
    }
  }
}

}  // namespace scankit::detail
