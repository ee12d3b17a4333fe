// detail/kernels/textbook_scan.cuh — the textbook scan policies: a tile is
// staged in shared memory with coalesced loads, scanned in place by a
// textbook block algorithm, and tiles are combined by one of four grid
// strategies. Threads per block and items per thread are run-time values.
//
//   decoupled_lookback   one kernel: ticket → tile scan → look-back → store
//   chained              one kernel: ticket → tile scan → wait for the
//                        predecessor's inclusive prefix → publish → store
//   reduce_then_scan     tile_reduce kernel → scan of the totals → rescan
//                        kernel that re-reads each tile with its prefix
//   scan_then_propagate  tile_scan kernel writing partial results and
//                        totals → scan of the totals → propagate kernel
//                        adding carries
//
// (The scans of the tile totals recurse with the same policy until the
// totals fit one tile.)
#pragma once

#include <scankit/detail/block/block_scan_brent_kung.cuh>
#include <scankit/detail/block/block_scan_kogge_stone.cuh>
#include <scankit/detail/block/block_scan_kogge_stone_double_buffer.cuh>
#include <scankit/detail/block/block_scan_three_phase.cuh>
#include <scankit/detail/block/smem_tile.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/policy.hpp>

#include <cstdint>

namespace scankit::detail {

/// Tile layout of a textbook block algorithm: padded (bank-conflict free)
/// where threads walk runs or tree strides, plain for Kogge-Stone (one item
/// per thread, neighbours at stride s: conflict free already).
constexpr bool pads_tile(block_algorithm a) {
  return a == block_algorithm::brent_kung || a == block_algorithm::three_phase || a == block_algorithm::warp_shuffle;
}
template <class T, block_algorithm Algorithm>
using textbook_tile = smem_tile<T, pads_tile(Algorithm)>;

/// The textbook block algorithm `Algorithm`: scans tile[0, m) in place
/// (`items` per thread for the coarsened ones; the others take a fixed count).
template <block_algorithm Algorithm, class T, class Op>
__device__ __forceinline__ void textbook_block_scan(textbook_tile<T, Algorithm> tile, unsigned m, unsigned items,
                                                    T* scratch, Op op) {
  if constexpr (Algorithm == block_algorithm::kogge_stone) block_scan_kogge_stone::scan(tile, m, scratch, op);
  else if constexpr (Algorithm == block_algorithm::kogge_stone_double_buffer)
    block_scan_kogge_stone_double_buffer::scan(tile.base, m, scratch, op);  // plain layout: swaps raw buffers
  else if constexpr (Algorithm == block_algorithm::brent_kung) block_scan_brent_kung::scan(tile, m, scratch, op);
  else if constexpr (Algorithm == block_algorithm::three_phase)
    block_scan_three_phase<block_scan_kogge_stone>::scan(tile, m, items, scratch, op);
  else block_scan_three_phase<block_scan_warp_shuffle_items>::scan(tile, m, items, scratch, op);
}

/// One launch of a textbook kernel.
template <class T>
struct textbook_launch {
  std::size_t n;              // items in this array
  unsigned tile_items;        // threads × items per thread
  unsigned items_per_thread;
  std::uint32_t num_tiles;
  bool exclusive;             // shift the output by one
  maybe<T> initial;           // put in front of everything
  look_back_order order;      // look-back: fixed for run_to_run, else any
  std::uint64_t* d_status;    // look-back / chained: [0] counter, [1 + t] tile words
  void* d_status_scratch;     // look-back / chained: split-layout values
  T* d_totals;                // reduce / propagate: one total per tile (scanned in between)
};

// Dynamic shared memory: the tile (padded or not), then blockDim.x + 32
// items of scratch.
template <class T, block_algorithm Algorithm>
struct textbook_smem {
  textbook_tile<T, Algorithm> tile;
  T* scratch;
};
template <class T, block_algorithm Algorithm>
__device__ __forceinline__ textbook_smem<T, Algorithm> textbook_memory(unsigned tile_items) {
  extern __shared__ uint4 textbook_smem_bytes[];
  T* const base = reinterpret_cast<T*>(textbook_smem_bytes);
  return {{base}, base + smem_tile_slots(tile_items, sizeof(T), pads_tile(Algorithm))};
}

// Loads in flight per thread while staging: enough bytes outstanding per SM
// to cover DRAM latency (one load per thread at a time would leave each SM
// about 8 KB in flight, a third of what the H200 needs).
constexpr unsigned staging_batch = 8;

/// Copies d_in[begin, begin + m) into the tile, coalesced, with up to
/// staging_batch loads per thread in flight.
template <class Tile, class T>
__device__ __forceinline__ void stage_tile(Tile tile, const T* d_in, std::size_t begin, unsigned m) {
  const unsigned step = blockDim.x;
  unsigned k = threadIdx.x;
  for (; k + (staging_batch - 1) * step < m; k += staging_batch * step) {
    T batch[staging_batch];
#pragma unroll
    for (unsigned j = 0; j < staging_batch; ++j) batch[j] = d_in[begin + k + j * step];
#pragma unroll
    for (unsigned j = 0; j < staging_batch; ++j) tile[k + j * step] = batch[j];
  }
  for (; k < m; k += step) tile[k] = d_in[begin + k];
}

// Writes the scanned tile with `prefix` in front: inclusive, or shifted by
// one (exclusive; the prefix is then always present).
template <class Tile, class T, class Op>
__device__ __forceinline__ void store_tile(T* d_out, std::size_t begin, unsigned m, Tile tile, const maybe<T>& prefix,
                                           bool exclusive, Op op) {
  for (unsigned k = threadIdx.x; k < m; k += blockDim.x) {
    if (!exclusive) d_out[begin + k] = apply_prefix(prefix, tile[k], op);
    else d_out[begin + k] = k == 0 ? prefix.value : apply_prefix(prefix, tile[k - 1], op);
  }
}

/// Ordered reduction of the tile (no scan): each thread reduces its own run
/// of `items`, then warp 0 reduces the run totals in order. The result is
/// valid in thread 0.
template <class Tile, class T, class Op>
__device__ __forceinline__ T reduce_tile(Tile tile, unsigned m, unsigned items, T* scratch, Op op) {
  const unsigned t = threadIdx.x;
  const unsigned runs = (m + items - 1) / items;
  __syncthreads();  // the tile is staged
  // Per thread: its run, sequentially.
  if (t < runs) {
    const unsigned begin = t * items, end = begin + items < m ? begin + items : m;
    T running = tile[begin];
    for (unsigned k = begin + 1; k < end; ++k) running = op(running, tile[k]);
    scratch[t] = running;
  }
  __syncthreads();
  // Warp 0: each lane a chunk of consecutive run totals, then the lanes.
  T total{};
  if (t < warp_threads) {
    const unsigned chunk = (runs + warp_threads - 1) / warp_threads;
    const unsigned begin = t * chunk, end = begin + chunk < runs ? begin + chunk : runs;
    if (begin < end) {
      total = scratch[begin];
      for (unsigned k = begin + 1; k < end; ++k) total = op(total, scratch[k]);
    }
    total = warp_reduce(total, int((runs + chunk - 1) / chunk), op);
  }
  return total;
}

template <class T>
__device__ __forceinline__ unsigned tile_length(const textbook_launch<T>& L, std::uint32_t tile) {
  const std::size_t begin = std::size_t(tile) * L.tile_items;
  return unsigned(L.n - begin < L.tile_items ? L.n - begin : L.tile_items);
}

/// Single-pass textbook scan: decoupled look-back, or chained (Chained: wait
/// for the predecessor's inclusive prefix only).
template <class T, class Op, block_algorithm Algorithm, bool Chained>
__global__ void textbook_single_pass_kernel(const T* d_in, T* d_out, Op op, textbook_launch<T> L) {
  const auto [tile, scratch] = textbook_memory<T, Algorithm>(L.tile_items);
  __shared__ launch_ticket ticket;
  __shared__ alignas(T) unsigned char prefix_bytes[sizeof(T)];  // raw: T may have member initializers
  __shared__ bool prefix_has;

  // Phase 0: the tile id, in launch order.
  if (threadIdx.x == 0)
    ticket = L.num_tiles == 1 ? launch_ticket{0, 0} : redeem_ticket(L.d_status, draw_ticket(L.d_status), L.num_tiles);
  __syncthreads();
  const launch_ticket my = ticket;
  const std::size_t begin = std::size_t(my.tile) * L.tile_items;
  const unsigned m = tile_length(L, my.tile);

  // Phase 1: stage and scan the tile.
  stage_tile(tile, d_in, begin, m);
  textbook_block_scan<Algorithm>(tile, m, L.items_per_thread, scratch, op);
  const T total = tile[m - 1];

  // Phase 2: the tile's prefix — thread 0 for tile 0 and the chained wait,
  // all of warp 0 for the look-back (which needs 32 threads).
  const tile_status<T> status(L.d_status + 1, L.d_status_scratch, L.num_tiles);
  maybe<T> prefix = L.initial;
  if (my.tile == 0) {
    if (threadIdx.x == 0 && L.num_tiles > 1)
      status.publish(0, tile_state::inclusive, apply_prefix(L.initial, total, op), my.tag);
  } else if constexpr (Chained) {
    // Wait for the predecessor's inclusive prefix; nothing else is published.
    if (threadIdx.x == 0) {
      unsigned backoff_ns = 8;
      tile_reading<T> r = status.read(my.tile - 1, my.tag);
      while (r.state != tile_state::inclusive) {
        __nanosleep(backoff_ns);
        if (backoff_ns < 256) backoff_ns *= 2;
        r = status.read(my.tile - 1, my.tag);
      }
      status.publish(my.tile, tile_state::inclusive, op(r.value, total), my.tag);
      prefix = maybe<T>{r.value, true};
    }
  } else if (threadIdx.x < warp_threads) {
    if (threadIdx.x == 0) status.publish(my.tile, tile_state::aggregate, total, my.tag);
    const T before = L.order == look_back_order::fixed
                         ? warp_look_back<T, look_back_order::fixed>(status, my.tile, my.tag, op)
                         : warp_look_back<T, look_back_order::any>(status, my.tile, my.tag, op);
    if (threadIdx.x == 0) status.publish(my.tile, tile_state::inclusive, op(before, total), my.tag);
    prefix = maybe<T>{before, true};
  }
  if (threadIdx.x == 0) {
    *reinterpret_cast<T*>(prefix_bytes) = prefix.value;
    prefix_has = prefix.has;
  }
  __syncthreads();

  // Phase 3: store with the prefix.
  store_tile(d_out, begin, m, tile, maybe<T>{*reinterpret_cast<const T*>(prefix_bytes), prefix_has}, L.exclusive, op);
}

/// Reduce-then-scan, first kernel: reduce each tile (blockIdx.x) to its total.
template <class T, class Op, block_algorithm Algorithm>
__global__ void textbook_tile_reduce_kernel(const T* d_in, Op op, textbook_launch<T> L) {
  const auto [tile, scratch] = textbook_memory<T, Algorithm>(L.tile_items);
  const unsigned m = tile_length(L, blockIdx.x);
  stage_tile(tile, d_in, std::size_t(blockIdx.x) * L.tile_items, m);
  const T total = reduce_tile(tile, m, L.items_per_thread, scratch, op);
  if (threadIdx.x == 0) L.d_totals[blockIdx.x] = total;
}

/// Scan-then-propagate, first kernel: scan each tile (blockIdx.x), write its
/// partial results (no prefix; the exclusive form leaves slot 0 of each tile
/// for the propagate kernel) and its total.
template <class T, class Op, block_algorithm Algorithm>
__global__ void textbook_tile_scan_kernel(const T* d_in, T* d_out, Op op, textbook_launch<T> L) {
  const auto [tile, scratch] = textbook_memory<T, Algorithm>(L.tile_items);
  const std::size_t begin = std::size_t(blockIdx.x) * L.tile_items;
  const unsigned m = tile_length(L, blockIdx.x);
  stage_tile(tile, d_in, begin, m);
  textbook_block_scan<Algorithm>(tile, m, L.items_per_thread, scratch, op);
  if (threadIdx.x == 0) L.d_totals[blockIdx.x] = tile[m - 1];
  for (unsigned k = threadIdx.x; k < m; k += blockDim.x) {
    if (!L.exclusive) d_out[begin + k] = tile[k];
    else if (k > 0) d_out[begin + k] = tile[k - 1];
  }
}

// The prefix of tile t once the totals are scanned (inclusive): initial ⊕
// totals[t-1].
template <class T, class Op>
__device__ __forceinline__ maybe<T> scanned_prefix(const textbook_launch<T>& L, std::uint32_t tile, Op op) {
  return combine(L.initial, maybe<T>{tile > 0 ? L.d_totals[tile - 1] : T{}, tile > 0}, op);
}

/// Reduce-then-scan, last kernel: re-read and scan each tile with its prefix.
template <class T, class Op, block_algorithm Algorithm>
__global__ void textbook_rescan_kernel(const T* d_in, T* d_out, Op op, textbook_launch<T> L) {
  const auto [tile, scratch] = textbook_memory<T, Algorithm>(L.tile_items);
  const std::size_t begin = std::size_t(blockIdx.x) * L.tile_items;
  const unsigned m = tile_length(L, blockIdx.x);
  stage_tile(tile, d_in, begin, m);
  textbook_block_scan<Algorithm>(tile, m, L.items_per_thread, scratch, op);
  store_tile(d_out, begin, m, tile, scanned_prefix(L, blockIdx.x, op), L.exclusive, op);
}

/// Scan-then-propagate, last kernel: put each tile's carry in front of its
/// partial results (read and written once more, staging_batch loads per
/// thread in flight).
template <class T, class Op>
__global__ void textbook_propagate_kernel(T* d_out, Op op, textbook_launch<T> L) {
  const maybe<T> carry = scanned_prefix(L, blockIdx.x, op);
  if (!carry.has) return;
  T* const out = d_out + std::size_t(blockIdx.x) * L.tile_items;
  const unsigned m = tile_length(L, blockIdx.x), step = blockDim.x;
  if (L.exclusive && threadIdx.x == 0) out[0] = carry.value;
  const unsigned first = L.exclusive ? 1 : 0;  // the slot the carry itself fills
  unsigned k = first + threadIdx.x;
  for (; k + (staging_batch - 1) * step < m; k += staging_batch * step) {
    T batch[staging_batch];
#pragma unroll
    for (unsigned j = 0; j < staging_batch; ++j) batch[j] = out[k + j * step];
#pragma unroll
    for (unsigned j = 0; j < staging_batch; ++j) out[k + j * step] = op(carry.value, batch[j]);
  }
  for (; k < m; k += step) out[k] = op(carry.value, out[k]);
}

}  // namespace scankit::detail
