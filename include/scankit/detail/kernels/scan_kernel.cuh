// detail/kernels/scan_kernel.cuh — the single-pass scan kernel: one block per
// tile, tiles ordered by launch ticket, prefixes by decoupled look-back.
//
// The tile is staged in shared memory by one bulk copy (sm_90 TMA), so the
// bytes in flight per SM are bounded by shared memory, not registers — the
// look-back waits of many resident tiles overlap each other's memory traffic.
#pragma once

#include <scankit/detail/block/block_scan_warp_shuffle.cuh>
#include <scankit/detail/dependent_launch.cuh>
#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/maybe.cuh>
#include <scankit/detail/thread/bulk_copy.cuh>
#include <scankit/detail/thread/shared_vector.cuh>
#include <scankit/detail/tuning/scan_tuning.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace scankit::detail {

/// Everything the kernel needs besides the data pointers.
template <class T>
struct scan_launch {
  std::size_t n;
  std::uint32_t num_tiles;
  bool bulk_loads;          // d_in 16-byte aligned: tiles arrive by bulk copy
  bool vector_stores;       // d_out aligned to output_vector_bytes: vector stores
  maybe<T> initial;         // initial value (exclusive scans always have one)
  std::uint64_t* d_status;  // [0] launch counter, [1 + t] tile t's word; unused for one tile
  void* d_scratch;          // split-layout tile values
  T* d_total;               // if set, receives initial ⊕ in[0] ⊕ ... ⊕ in[n-1] (written by the last tile)
};

/// Dynamic shared memory of one block: the staged tile of input items (In),
/// tile_items<T> of them (the tile shape is the scanned type's).
template <class T, class Tuning, class In = T>
inline constexpr std::size_t staged_tile_bytes = tile_items<T, Tuning> * sizeof(In);

/// Stores Vec consecutive items; with `vectorized` (p aligned to the whole
/// vector) as one 16- or 8-byte streaming store.
template <class T, int Vec>
__device__ __forceinline__ void store_global_vector(T* p, bool vectorized, const T (&v)[Vec]) {
  if constexpr (Vec > 1 && sizeof(T) * Vec == 16) {
    if (vectorized) {
      uint4 raw;
      memcpy(&raw, v, sizeof(raw));
      __stcs(reinterpret_cast<uint4*>(p), raw);  // streaming: keep the status words in L2
      return;
    }
  } else if constexpr (Vec > 1 && sizeof(T) * Vec == 8) {
    if (vectorized) {
      uint2 raw;
      memcpy(&raw, v, sizeof(raw));
      __stcs(reinterpret_cast<uint2*>(p), raw);
      return;
    }
  }
#pragma unroll
  for (int j = 0; j < Vec; ++j) p[j] = v[j];
}

/// Bytes of one vector of Out items as the scan of T with `Tuning` stores it,
/// when that is a size stores can be vectorized at (8 or 16), else 0.
template <class T, class Tuning, class Out>
inline constexpr std::size_t output_vector_bytes =
    tuning_vector_items<T, Tuning> > 1 && (sizeof(Out) * tuning_vector_items<T, Tuning> == 16 ||
                                           sizeof(Out) * tuning_vector_items<T, Tuning> == 8)
        ? sizeof(Out) * tuning_vector_items<T, Tuning>
        : 0;

/// Scans In items converted to T and stores them converted to Out (In == T ==
/// Out for ordinary scans; a narrower integer In widens, e.g. uint32 sizes to
/// uint64 offsets; the compensated scan reads and writes F and scans
/// compensated<F>). Order: how the look-back combines (look_back.cuh).
template <class In, class T, class Out, class Op, class Tuning, bool Exclusive, look_back_order Order>
__global__ void __launch_bounds__(Tuning::threads)
    scan_kernel(const In* d_in, Out* d_out, Op op, scan_launch<T> launch) {
  constexpr int threads = Tuning::threads, rounds = Tuning::rounds, vec = tuning_vector_items<T, Tuning>;
  constexpr std::size_t tile_size = tile_items<T, Tuning>;
  using block_scan = block_scan_warp_shuffle<T, threads, rounds, vec>;
  using status_t = tile_status<T>;

  extern __shared__ uint4 staged_words[];  // the tile, staged_tile_bytes<T, Tuning, In>
  In* const staged = reinterpret_cast<In*>(staged_words);
  __shared__ typename block_scan::storage scan_storage;
  __shared__ launch_ticket ticket;
  __shared__ std::uint64_t tile_loaded;  // mbarrier of the bulk copy
  __shared__ bool copied;

  // Where launched as a programmatic dependent (segmented reduction's carry
  // scan): the input is there once the kernel before has finished. Either
  // way, a dependent after this kernel may launch.
  wait_for_earlier_grid();
  allow_dependent_launch();
  const bool single_tile = launch.num_tiles == 1;  // no ticket, no look-back
  std::uint64_t* const d_counter = launch.d_status;

  // Phase 0: draw the ticket, then start the tile's bulk copy. (Starting the
  // copy of tile blockIdx.x before the ticket returns was measured slower:
  // tickets often disagree with blockIdx, and the wasted reads cost more than
  // the hidden atomic latency.)
  if (threadIdx.x == 0) {
    ticket = single_tile ? launch_ticket{0, 0} : redeem_ticket(d_counter, draw_ticket(d_counter), launch.num_tiles);
    copied = launch.bulk_loads && (std::size_t(ticket.tile) + 1) * tile_size <= launch.n;
    if (copied) {
      mbarrier_init(&tile_loaded);
      bulk_load(staged, d_in + std::size_t(ticket.tile) * tile_size, std::uint32_t(staged_tile_bytes<T, Tuning, In>),
                &tile_loaded);
    }
  }
  __syncthreads();
  const launch_ticket my = ticket;

  // Phase 1: the tile in shared memory. Without a bulk copy (misaligned
  // input, or the partial last tile) each thread loads its own slots; the last
  // tile's missing slots get copies of the last input item, so the operator
  // only ever sees input values (those slots are never stored).
  const int lane = lane_id(), warp = int(threadIdx.x) / warp_threads;
  const std::size_t thread_offset = std::size_t(warp) * warp_threads * rounds * vec + lane * vec;
  const std::size_t tile_begin = std::size_t(my.tile) * tile_size;
  if (copied) {
    mbarrier_wait(&tile_loaded, 0);
  } else {
    const In last = d_in[launch.n - 1];
#pragma unroll
    for (int r = 0; r < rounds; ++r)
#pragma unroll
      for (int j = 0; j < vec; ++j) {
        const std::size_t k = thread_offset + r * warp_threads * vec + j;
        staged[k] = tile_begin + k < launch.n ? d_in[tile_begin + k] : last;
      }
  }

  // Phase 2: block scan; warp 0 publishes the tile total and looks back;
  // results go straight to global memory.
  const status_t status(launch.d_status + 1, launch.d_scratch, launch.num_tiles);
  auto tile_prefix = [&](const T& tile_total) -> maybe<T> {
    if (my.tile == 0) {
      if (!single_tile && lane == 0)
        status.publish(0, tile_state::inclusive, apply_prefix(launch.initial, tile_total, op), my.tag);
      return launch.initial;
    }
    if (lane == 0) status.publish(my.tile, tile_state::aggregate, tile_total, my.tag);
    const T exclusive = warp_look_back<T, Order>(status, my.tile, my.tag, op);
    if (lane == 0) status.publish(my.tile, tile_state::inclusive, op(exclusive, tile_total), my.tag);
    return maybe<T>{exclusive, true};
  };
  auto load_round = [&](int r, T(&v)[vec]) {
    const In* p = staged + thread_offset + r * warp_threads * vec;
    if constexpr (std::is_same_v<In, T> && vec == vector_items<T>) {
      load_shared_vector(p, v);
    } else {
#pragma unroll
      for (int j = 0; j < vec; ++j) v[j] = T(p[j]);
    }
  };
  const bool full_tile = tile_begin + tile_size <= launch.n;
  const bool writes_total = launch.d_total != nullptr && my.tile + 1 == launch.num_tiles;
  auto emit_round = [&](int r, const T(&v)[vec]) {
    const std::size_t k = thread_offset + r * warp_threads * vec, i = tile_begin + k;
    if (writes_total) {  // the scan of all n items: the last item's inclusive value
#pragma unroll
      for (int j = 0; j < vec; ++j)
        if (i + j == launch.n - 1) *launch.d_total = Exclusive ? op(v[j], T(staged[k + j])) : v[j];
    }
    Out o[vec];
#pragma unroll
    for (int j = 0; j < vec; ++j) o[j] = static_cast<Out>(v[j]);
    if (full_tile) {
      store_global_vector(d_out + i, launch.vector_stores, o);
    } else {
#pragma unroll
      for (int j = 0; j < vec; ++j)
        if (i + j < launch.n) d_out[i + j] = o[j];
    }
  };
  block_scan::template scan<Exclusive>(scan_storage, load_round, emit_round, op, tile_prefix);
}

}  // namespace scankit::detail
