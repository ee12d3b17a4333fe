// detail/kernels/reduce_by_key_staged_kernel.cuh — reduce-by-key in one
// pass, the tile staged in shared memory (pairs wider than 8 bytes): run
// heads counted and runs reduced by one exclusive scan of segment carries
// (block scan + decoupled look-back), then every tile writes the keys of the
// runs starting in it and the values of the runs ending in it, coalesced.
#pragma once

#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/ragged/run_tile.cuh>
#include <scankit/detail/thread/bulk_copy.cuh>
#include <scankit/detail/thread/tile_vectors.cuh>

#include <cstdint>

namespace scankit::detail {

/// Dynamic shared memory: the staged keys and values, which the outgoing keys
/// and values reuse once every thread holds its items (one more value slot).
template <class K, class V>
constexpr std::size_t reduce_by_key_staged_smem_bytes() {
  constexpr std::size_t tile = reduce_by_key_shape<K, V>::tile_items;
  return (tile * sizeof(K) + 15) / 16 * 16 + ((tile + 1) * sizeof(V) + 15) / 16 * 16;
}

template <class K, class V, class Op, class Equal>
__global__ void __launch_bounds__(reduce_by_key_shape<K, V>::threads, reduce_by_key_shape<K, V>::min_blocks)
    reduce_by_key_staged_kernel(const K* d_keys, const V* d_values, K* d_unique_keys, V* d_reduced, Op op, Equal equal,
                                reduce_by_key_launch L) {
  using shape = reduce_by_key_shape<K, V>;
  constexpr int threads = shape::threads, items = shape::items;
  constexpr std::uint32_t tile_items = shape::tile_items;
  using carry_t = segment_carry<V>;
  using carry_scan = run_carry_scan<V, threads>;

  extern __shared__ uint4 smem_words[];
  unsigned char* const smem = reinterpret_cast<unsigned char*>(smem_words);
  K* const keys_s = reinterpret_cast<K*>(smem);  // item i at i
  V* const values_s = reinterpret_cast<V*>(smem + (tile_items * sizeof(K) + 15) / 16 * 16);
  K* const unique_s = keys_s;     // after phase 3's barrier: run base + k at k
  V* const reduced_s = values_s;  // after phase 3's barrier: run base - 1 + k at k
  __shared__ typename carry_scan::storage scan_storage;
  __shared__ launch_ticket ticket;
  __shared__ K key_before;  // the key before the tile

  // Phase 0: ticket and the key before the tile, then the tile: full aligned
  // tiles in 16-byte vectors, every load of keys and values issued before
  // any store (measured on the H200 at 2^28 against a bulk copy of the
  // tile: 14-18 % faster for 16-byte pairs), other tiles item by item.
  // Thread 0 also starts the tile `prefetch_distance` tickets ahead on its
  // way into L2, so that its block finds it there (uint64/double on the
  // H200, 2^24-2^28: runs of 1 4-6 % faster, of ~4 2-4 %, long runs within
  // ±1.4 %; the register kernel lost with it).
  constexpr std::uint64_t prefetch_distance = 64;
  static_assert(tile_items % 16 == 0, "a prefetched tile is whole 16-byte lines of keys and of values");
  const bool single_tile = L.num_tiles == 1;
  if (threadIdx.x == 0) {
    ticket = single_tile ? launch_ticket{0, 0} : redeem_ticket(L.d_status, draw_ticket(L.d_status), L.num_tiles);
    const std::uint64_t first = std::uint64_t(ticket.tile) * tile_items;
    if (first > 0) key_before = d_keys[first - 1];
    const std::uint64_t ahead = (std::uint64_t(ticket.tile) + prefetch_distance) * tile_items;
    if (L.vector_loads && ahead + tile_items <= L.n) {
      bulk_prefetch_l2(d_keys + ahead, tile_items * sizeof(K));
      bulk_prefetch_l2(d_values + ahead, tile_items * sizeof(V));
    }
  }
  __syncthreads();
  const launch_ticket my = ticket;
  const std::uint64_t begin = std::uint64_t(my.tile) * tile_items;
  const std::uint32_t count = std::uint32_t(L.n - begin < tile_items ? L.n - begin : tile_items);
  const bool last_tile = my.tile + 1 == L.num_tiles;
  if (L.vector_loads && count == tile_items) {
    tile_vectors<threads, tile_items * sizeof(K)> key_vectors;
    tile_vectors<threads, tile_items * sizeof(V)> value_vectors;
    key_vectors.load(d_keys + begin);
    value_vectors.load(d_values + begin);
    key_vectors.store(keys_s);
    value_vectors.store(values_s);
  } else {
    for (std::uint32_t i = threadIdx.x; i < count; i += threads) {
      keys_s[i] = d_keys[begin + i];
      values_s[i] = d_values[begin + i];
    }
  }
  __syncthreads();

  // Phase 1: each thread reduces its consecutive items: which of them are
  // run heads (one bit each), how many, and the partial reduction of its
  // last run.
  const std::uint32_t first = threadIdx.x * items;
  const std::uint32_t mine_count = first < count ? min(std::uint32_t(items), count - first) : 0u;
  std::uint32_t head_bits = 0, heads = 0;
  maybe<V> partial{V{}, false};
  if (mine_count > 0) {
    K before = first > 0 ? keys_s[first - 1] : key_before;
#pragma unroll
    for (int s = 0; s < items; ++s) {
      if (std::uint32_t(s) < mine_count) {
        const K key = keys_s[first + s];
        const V v = values_s[first + s];
        if ((my.tile == 0 && first + s == 0) || !equal(before, key)) {
          head_bits |= 1u << s;
          ++heads;
          partial = maybe<V>{v, true};
        } else {
          fold_into(partial, v, op);
        }
        before = key;
      }
    }
  }

  // Phase 2: exclusive scan of the carries within the tile; warp 0 publishes
  // the tile's aggregate. A thread past the input's end carries no heads and
  // a copy of the last item (the operator only ever sees input values).
  const carry_t carry_in =
      carry_scan::scan_tile(scan_storage, carry_t{heads, partial.has ? partial.value : values_s[count - 1]}, L, my, op);

  // Phase 3: take the items into registers (the keys of heads only), and
  // once every thread has, walk them again with the carry in: a head closes
  // the run before it and starts its own; the input's last item closes the
  // last run. The outgoing keys and values (by run index within the tile)
  // overwrite the staged items; slot 0 gets only the tile's part of the run
  // open at its start.
  K key[items];
  V value[items];
#pragma unroll
  for (int s = 0; s < items; ++s) {
    if (std::uint32_t(s) < mine_count) {
      value[s] = values_s[first + s];
      if (head_bits & (1u << s)) key[s] = keys_s[first + s];
    }
  }
  __syncthreads();
  std::uint32_t run = carry_in.boundaries;  // the tile's heads before this item
  V acc = carry_in.partial;                 // meaningful after the tile's first item
#pragma unroll
  for (int s = 0; s < items; ++s) {
    if (std::uint32_t(s) < mine_count) {
      const V v = value[s];
      if (head_bits & (1u << s)) {
        if (run > 0 || my.tile > 0) reduced_s[run] = acc;  // closes run base + run - 1
        unique_s[run] = key[s];
        ++run;
        acc = v;
      } else {
        acc = (s == 0 && threadIdx.x == 0) ? v : op(acc, v);
      }
    }
  }
  if (last_tile && mine_count > 0 && first + mine_count == count) reduced_s[run] = acc;

  // Phase 4: warp 0 looks back for the runs before the tile, overlapping the
  // other warps' walks; then coalesced stores of the tile's keys and values.
  // It sleeps 1000 ns after its walk before the first poll, as CUB's
  // reduce-by-key tunings for sm_90 do (uint64/double sums at 2^24-2^28 on
  // the H200, 2026-12-03: 0.9-2.5 % faster than no sleep, 500 ns within 1 %).
  constexpr unsigned first_poll_delay_ns = 1000;
  if (threadIdx.x < warp_threads) carry_scan::look_back(scan_storage, L, my, op, first_poll_delay_ns);
  __syncthreads();
  const auto same_slot = [](std::uint32_t k) { return k; };
  store_tile_runs<threads>(unique_s, same_slot, reduced_s, same_slot, scan_storage.runs_before_tile,
                           scan_storage.heads_in_tile, scan_storage.open_run_prefix(), (head_bits & 1u) != 0, op, my,
                           last_tile, d_unique_keys, d_reduced, L.d_count);
}

}  // namespace scankit::detail
