// detail/kernels/reduce_by_key_register_kernel.cuh — reduce-by-key in one
// pass, each thread's consecutive pairs held in registers (pairs of up to 8
// bytes): run heads counted and runs reduced by one exclusive scan of segment
// carries (block scan + decoupled look-back), then every tile writes the keys
// of the runs starting in it and the values of the runs ending in it,
// coalesced through shared memory.
#pragma once

#include <scankit/detail/block/padded_slots.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/ragged/run_tile.cuh>
#include <scankit/detail/thread/consecutive_vectors.cuh>

#include <cstdint>

namespace scankit::detail {

/// Dynamic shared memory, padded slots (detail/block/padded_slots.cuh): the
/// outgoing keys, then one space that holds the heads' keys at their items'
/// slots until they are copied out, and then the outgoing values.
template <class K, class V>
constexpr std::size_t reduce_by_key_register_smem_bytes() {
  constexpr std::size_t tile = reduce_by_key_shape<K, V>::tile_items;
  constexpr std::size_t keys = padded_slots<K>(tile) * sizeof(K), closed = padded_slots<V>(tile + 1) * sizeof(V);
  return (keys + 15) / 16 * 16 + (keys > closed ? keys : closed);
}

template <class K, class V, class Op, class Equal>
__global__ void __launch_bounds__(reduce_by_key_shape<K, V>::threads, reduce_by_key_shape<K, V>::min_blocks)
    reduce_by_key_register_kernel(const K* d_keys, const V* d_values, K* d_unique_keys, V* d_reduced, Op op,
                                  Equal equal, reduce_by_key_launch L) {
  using shape = reduce_by_key_shape<K, V>;
  constexpr int threads = shape::threads, items = shape::items;
  constexpr std::uint32_t tile_items = shape::tile_items;
  using carry_t = segment_carry<V>;
  using carry_scan = run_carry_scan<V, threads>;
  static_assert(items * sizeof(K) % 16 == 0 && items * sizeof(V) % 16 == 0, "a thread's items: whole 16-byte vectors");

  extern __shared__ uint4 smem_words[];
  unsigned char* const smem = reinterpret_cast<unsigned char*>(smem_words);
  K* const unique_s = reinterpret_cast<K*>(smem);  // run base + k at padded_slot<K>(k)
  unsigned char* const second = smem + (padded_slots<K>(tile_items) * sizeof(K) + 15) / 16 * 16;
  K* const head_keys_s = reinterpret_cast<K*>(second);  // until phase 4's first barrier: head i's key at padded_slot<K>(i)
  V* const reduced_s = reinterpret_cast<V*>(second);    // then run base - 1 + k at padded_slot<V>(k)
  __shared__ typename carry_scan::storage scan_storage;
  __shared__ launch_ticket ticket;

  // Phase 0: the tile from the ticket.
  const bool single_tile = L.num_tiles == 1;
  if (threadIdx.x == 0)
    ticket = single_tile ? launch_ticket{0, 0} : redeem_ticket(L.d_status, draw_ticket(L.d_status), L.num_tiles);
  __syncthreads();
  const launch_ticket my = ticket;
  const std::uint64_t begin = std::uint64_t(my.tile) * tile_items;
  const std::uint32_t count = std::uint32_t(L.n - begin < tile_items ? L.n - begin : tile_items);
  const bool last_tile = my.tile + 1 == L.num_tiles;
  const std::uint32_t first = threadIdx.x * items;
  const std::uint32_t mine_count = first < count ? min(std::uint32_t(items), count - first) : 0u;
  const bool full = mine_count == items;

  // Phase 1: the thread's consecutive keys and values into registers (16-byte
  // loads where whole and aligned), and the key before them.
  K key[items];
  V value[items];
  const bool has_before = begin + first > 0 && mine_count > 0;
  const K before = has_before ? d_keys[begin + first - 1] : K{};
  if (full && L.vector_loads) {
    load_consecutive_vectors(d_keys + begin + first, key);
    load_consecutive_vectors(d_values + begin + first, value);
  } else {
#pragma unroll
    for (int s = 0; s < items; ++s) {
      if (std::uint32_t(s) < mine_count) {
        key[s] = d_keys[begin + first + s];
        value[s] = d_values[begin + first + s];
      }
    }
  }

  // Phase 2: run heads (one bit each; their keys go to shared memory, so the
  // keys leave the registers here), their count and the partial of the
  // thread's last run. A thread past the input's end carries no heads and a
  // copy of the last item (the operator only ever sees input values).
  std::uint32_t head_bits = 0, heads = 0;
  V partial{};
  const auto visit = [&](int s) {
    const bool head = !(s == 0 ? has_before && equal(before, key[0]) : equal(key[s - 1], key[s]));
    if (head) {
      head_bits |= 1u << s;
      ++heads;
      head_keys_s[padded_slot<K>(first + s)] = key[s];
    }
    partial = (head || s == 0) ? value[s] : op(partial, value[s]);
  };
  if (full) {  // the common case, without a bound per item
#pragma unroll
    for (int s = 0; s < items; ++s) visit(s);
  } else if (mine_count > 0) {
#pragma unroll
    for (int s = 0; s < items; ++s)
      if (std::uint32_t(s) < mine_count) visit(s);
  } else {
    partial = d_values[begin + count - 1];
  }

  // Phase 3: exclusive scan of the carries within the tile; warp 0
  // publishes the tile's aggregate.
  const carry_t carry_in = carry_scan::scan_tile(scan_storage, carry_t{heads, partial}, L, my, op);

  // Phase 4: the heads' keys from their items' slots to their runs' slots
  // (by index within the tile); after a barrier, walk the values with the
  // carry in: a head closes the run before it, and the input's last item
  // closes the last run. The closed runs' values overwrite the heads' keys;
  // slot 0 gets only the tile's part of the run open at its start.
  {
    std::uint32_t run = carry_in.boundaries;
#pragma unroll
    for (int s = 0; s < items; ++s) {
      if (head_bits & (1u << s)) {
        unique_s[padded_slot<K>(run)] = head_keys_s[padded_slot<K>(first + s)];
        ++run;
      }
    }
  }
  __syncthreads();
  std::uint32_t run = carry_in.boundaries;  // the tile's heads before this item
  V acc = carry_in.partial;                 // meaningful after the tile's first item
#pragma unroll
  for (int s = 0; s < items; ++s) {
    if (full || std::uint32_t(s) < mine_count) {
      const bool head = head_bits & (1u << s);
      if (head && (run > 0 || my.tile > 0)) reduced_s[padded_slot<V>(run)] = acc;  // closes run base + run - 1
      run += head ? 1 : 0;
      acc = (head || (s == 0 && threadIdx.x == 0)) ? value[s] : op(acc, value[s]);
    }
  }
  if (last_tile && mine_count > 0 && first + mine_count == count) reduced_s[padded_slot<V>(run)] = acc;

  // Phase 5: warp 0 looks back for the runs before the tile, overlapping the
  // other warps' walks; then coalesced stores of the tile's keys and values.
  // Its own walks stand between the tile's publication and its first poll
  // (int32 sums at 2^24-2^28 on the H200, 2026-12-03: a further 1000 ns sleep
  // was 0.7-0.8 % faster at runs of 1 and 0.6-2.8 % slower at longer runs).
  constexpr unsigned first_poll_delay_ns = 0;
  if (threadIdx.x < warp_threads) carry_scan::look_back(scan_storage, L, my, op, first_poll_delay_ns);
  __syncthreads();
  store_tile_runs<threads>(
      unique_s, [](std::uint32_t k) { return padded_slot<K>(k); }, reduced_s,
      [](std::uint32_t k) { return padded_slot<V>(k); }, scan_storage.runs_before_tile, scan_storage.heads_in_tile,
      scan_storage.open_run_prefix(), (head_bits & 1u) != 0, op, my, last_tile, d_unique_keys, d_reduced, L.d_count);
}

}  // namespace scankit::detail
