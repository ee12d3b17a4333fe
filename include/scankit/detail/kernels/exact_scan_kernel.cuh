// detail/kernels/exact_scan_kernel.cuh — the exact floating-point scan: every
// output is the correctly rounded value of the exact sum of its prefix.
//
// Sums are carried as exact fixed-point integers (exact_accumulator), whose
// addition is associative and commutative bit for bit, so the result cannot
// depend on the tile size, the block's arrangement or the order in which the
// look-back meets its predecessors. One block per tile, tiles by launch
// ticket, prefixes by decoupled look-back over accumulators; each thread owns
// a run of consecutive items, so it rounds one running accumulator per item.
//
//   phase 0  ticket; the tile is staged in shared memory (bulk copy when whole
//            and aligned)
//   phase 1  each thread sums its run exactly
//   phase 2  warp scans of the run sums, then warp 0 scans the warp totals and
//            looks back for the tile's prefix
//   phase 3  each thread walks its run from its exclusive prefix, rounding the
//            running sum into the staged slot it has just read
//   phase 4  the tile is stored, 16 bytes per thread where it can be
#pragma once

#include <scankit/detail/lookback/launch_ticket.cuh>
#include <scankit/detail/lookback/look_back.cuh>
#include <scankit/detail/lookback/tile_status.cuh>
#include <scankit/detail/numeric/exact_accumulator.cuh>
#include <scankit/detail/thread/bulk_copy.cuh>
#include <scankit/detail/warp/shuffle.cuh>

#include <cstdint>
#include <cstring>

namespace scankit::detail {

/// Tile shape of the exact scan: an odd run length keeps the strided shared
/// memory reads of phase 1 and 3 free of bank conflicts. Floats: 256 x 45
/// (46 KB) measured best on the H200 (2026-12-01, 2^24 / 2^28: 36.7 % / 41.2 %
/// of copy; 256 x 15: 24.6 % / 22.0 %; 256 x 31: 37.1 % / 34.2 %; 128 x 63:
/// 29.1 % / 40.8 %): bigger tiles mean fewer look-backs over 44-byte sums.
template <class F>
struct exact_scan_tuning {
  static constexpr int threads = sizeof(F) == 4 ? 256 : 128;
  static constexpr int items = sizeof(F) == 4 ? 45 : 7;
};

template <class F, class Tuning = exact_scan_tuning<F>>
inline constexpr std::size_t exact_tile_items = std::size_t(Tuning::threads) * Tuning::items;

template <class F>
struct exact_scan_launch {
  std::size_t n;
  std::uint32_t num_tiles;
  bool bulk_loads;     // d_in 16-byte aligned: whole tiles arrive by bulk copy
  bool vector_stores;  // d_out 16-byte aligned
  bool has_initial;    // exclusive scans: initial is the first output and part of every prefix
  F initial;
  std::uint64_t* d_status;  // [0] launch counter, [1 + t] tile t's word; unused for one tile
  void* d_scratch;          // the accumulators the status words point at (split layout)
};

/// Float runs take fast paths that are checked to give the exact result,
/// and fall back to exact accumulation where the check fails.
template <class F>
inline constexpr bool float_fast_path = sizeof(F) == 4;

/// Walks a run from its exact prefix with exact accumulation, rounding every
/// running sum (exclusive: before adding the item) into the item's slot.
template <int Items, bool Exclusive, class F>
__device__ __forceinline__ void walk_run_exactly(F* run, exact_accumulator<F> running) {
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const F x = run[j];
    if constexpr (Exclusive) {
      run[j] = running.rounded();
      running.add(x);
    } else {
      running.add(x);
      run[j] = running.rounded();
    }
  }
}

/// Adds the exact sum of Items (at most 16) floats to `sum`. Fast path: when
/// the items that are not zero are finite and their binades span at most 25
/// (so every partial sum of at most 16 of them is a multiple of the smallest
/// ulp below 2^53 of them), their double sum is exact and is added in one step.
template <int Items>
__device__ __forceinline__ void add_float_chunk(exact_accumulator<float>& sum, const float* chunk) {
  static_assert(Items <= 16, "the exactness argument counts at most 16 summands");
  using acc_t = exact_accumulator<float>;
  double chunk_sum = 0;
  std::uint32_t lowest = 255, highest = 0, not_negative_zero = 0;
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const float x = chunk[j];
    const std::uint32_t bits = __float_as_uint(x), biased = (bits >> 23) & 0xff;
    const bool zero = (bits << 1) == 0;
    lowest = zero ? lowest : min(lowest, biased > 0 ? biased : 1u);
    highest = zero ? highest : max(highest, biased);
    not_negative_zero |= bits ^ 0x80000000u;
    chunk_sum += double(x);
  }
  if (highest < 255 && (highest <= lowest || highest - lowest <= 25)) {
    sum.add_double_units(chunk_sum);
    sum.flags |= acc_t::flag_finite | (not_negative_zero != 0 ? acc_t::flag_not_negative_zero : 0u);
  } else {
#pragma unroll
    for (int j = 0; j < Items; ++j) sum.add(chunk[j]);
  }
}

/// The exact sum of a run of floats, in chunks of at most 15 items.
template <int Items>
__device__ __forceinline__ exact_accumulator<float> float_run_sum(const float* run) {
  constexpr int chunk = 15, whole = Items / chunk, rest = Items % chunk;
  exact_accumulator<float> sum = exact_accumulator<float>::zero();
#pragma unroll
  for (int c = 0; c < whole; ++c) add_float_chunk<chunk>(sum, run + c * chunk);
  if constexpr (rest > 0) add_float_chunk<rest>(sum, run + whole * chunk);
  return sum;
}

/// Walks a run of floats from its exact prefix P. Fast path: the running sum
/// s in double, from p = approx_double(P) (|p − P| ≤ 2^−52|P|). While s is
/// known to be the exact sum (p was exact and every addition so far was, by
/// Fast2Sum's error term), f = float(s) is the correctly rounded sum — ties
/// included, float() rounds to nearest even. Otherwise s is within E_k =
/// (k + 2)·2^−51·M_k of the exact running sum after k additions (M_k = |p| +
/// the |x| added so far; each addition errs by at most 2^−53 of a partial sum
/// ≤ M_k, and the factor 2 covers the bound's own rounding), and f is the
/// correctly rounded sum when E_k is below the distance from s to both of f's
/// rounding boundaries, f + ulp/2 (away from zero) and f − ulp/2 (toward
/// zero; ulp/4 when |f| is a power of two, whose lower neighbour is closer).
/// Every output is checked; a zero, non-finite or boundary-close sum makes
/// the whole run take the exact walk.
template <int Items, bool Exclusive>
__device__ __forceinline__ void walk_float_run(float* run, const exact_accumulator<float>& prefix) {
  using acc_t = exact_accumulator<float>;
  bool certain = (prefix.flags & (acc_t::flag_nan | acc_t::flag_pos_inf | acc_t::flag_neg_inf)) == 0;
  float out[Items];
  bool s_exact = false;
  double s = prefix.approx_double(s_exact);
  double magnitude = fabs(s);
  auto round_checked = [&](int additions) {
    const float f = __double2float_rn(s);
    const std::uint32_t bits = __float_as_uint(f), biased = (bits >> 23) & 0xff;
    // Half of f's ulp, 2^(max(biased, 1) − 151), as a double; a quarter below a power of two.
    const double half_ulp = __longlong_as_double(std::int64_t((biased > 0 ? biased : 1u) + 1023u - 151u) << 52);
    const double half_below = (bits & 0x7fffffu) == 0 ? 0.5 * half_ulp : half_ulp;
    const double away = fabs(s) - fabs(double(f));  // exact (Sterbenz): s and f are within half an ulp
    const double error_bound = double(additions + 2) * 0x1p-51 * magnitude;
    const bool inside = half_ulp - away > error_bound && half_below + away > error_bound;
    certain = certain && biased != 0xff && f != 0.0f && (s_exact || inside);
    return f;
  };
#pragma unroll
  for (int j = 0; j < Items; ++j) {
    const float x = run[j];
    if constexpr (Exclusive) out[j] = round_checked(j);
    // Fast2Sum: the rounding error of s + x is exactly small − (sum − big).
    const double sum = s + double(x);
    const bool s_larger = fabs(s) >= fabs(double(x));
    const double big = s_larger ? s : double(x), small = s_larger ? double(x) : s;
    s_exact = s_exact && small - (sum - big) == 0.0;
    s = sum;
    magnitude += fabs(double(x));
    if constexpr (!Exclusive) out[j] = round_checked(j + 1);
  }
  if (certain) {
#pragma unroll
    for (int j = 0; j < Items; ++j) run[j] = out[j];
  } else {
    walk_run_exactly<Items, Exclusive>(run, prefix);
  }
}

/// Float kernels that fit 128 registers a thread run two 256-thread blocks per SM.
template <class F, class Tuning>
inline constexpr int exact_min_blocks = sizeof(F) == 4 && Tuning::threads <= 256 ? 2 : 1;

template <class F, class Tuning, bool Exclusive>
__global__ void __launch_bounds__(Tuning::threads, (exact_min_blocks<F, Tuning>))
    exact_scan_kernel(const F* d_in, F* d_out, exact_scan_launch<F> launch) {
  using acc_t = exact_accumulator<F>;
  constexpr int threads = Tuning::threads, items = Tuning::items, warps = threads / warp_threads;
  constexpr std::uint32_t tile_size = threads * items;
  static_assert(threads % warp_threads == 0 && tile_size * sizeof(F) % 16 == 0, "whole warps, 16-byte tiles");

  __shared__ alignas(16) F tile[tile_size];
  __shared__ acc_t warp_sums[warps];  // warp totals, then each warp's exclusive prefix
  __shared__ launch_ticket ticket;
  __shared__ std::uint64_t tile_loaded;  // mbarrier of the bulk copy
  __shared__ bool copied;

  const bool single_tile = launch.num_tiles == 1;
  const exact_plus op;

  // Phase 0: ticket, then the tile into shared memory.
  if (threadIdx.x == 0) {
    ticket = single_tile ? launch_ticket{0, 0}
                         : redeem_ticket(launch.d_status, draw_ticket(launch.d_status), launch.num_tiles);
    copied = launch.bulk_loads && (std::size_t(ticket.tile) + 1) * tile_size <= launch.n;
    if (copied) {
      mbarrier_init(&tile_loaded);
      bulk_load(tile, d_in + std::size_t(ticket.tile) * tile_size, std::uint32_t(sizeof(tile)), &tile_loaded);
    }
  }
  __syncthreads();
  const launch_ticket my = ticket;
  const std::size_t tile_begin = std::size_t(my.tile) * tile_size;
  const std::uint32_t tile_length =
      launch.n - tile_begin < tile_size ? std::uint32_t(launch.n - tile_begin) : tile_size;
  if (copied) {
    mbarrier_wait(&tile_loaded, 0);
  } else {
    for (std::uint32_t k = threadIdx.x; k < tile_size; k += threads)
      tile[k] = k < tile_length ? d_in[tile_begin + k] : F(0);  // padding: never stored
    __syncthreads();
  }

  // Phase 1: the exact sum of this thread's run.
  const std::uint32_t run_begin = threadIdx.x * items;
  acc_t run_sum = acc_t::zero();
  if constexpr (float_fast_path<F>) {
    run_sum = float_run_sum<items>(tile + run_begin);
  } else {
#pragma unroll
    for (int j = 0; j < items; ++j) run_sum.add(tile[run_begin + j]);
  }

  // Phase 2: runs before this one in the warp; warp totals; the tile prefix.
  const int lane = lane_id(), warp = int(threadIdx.x) / warp_threads;
  const acc_t warp_inclusive = warp_inclusive_scan(run_sum, op);
  acc_t lanes_before = shfl_up(warp_inclusive, 1);
  if (lane == 0) lanes_before = acc_t::zero();
  if (lane == warp_threads - 1) warp_sums[warp] = warp_inclusive;
  __syncthreads();
  if (warp == 0) {
    const acc_t total = lane < warps ? warp_sums[lane] : acc_t::zero();
    const acc_t warps_inclusive = warp_inclusive_scan(total, op, warps);
    const acc_t tile_total = shfl_idx(warps_inclusive, warps - 1);
    const acc_t initial = launch.has_initial ? acc_t::of(launch.initial) : acc_t::zero();
    const tile_status<acc_t> status(launch.d_status + 1, launch.d_scratch, launch.num_tiles);
    const acc_t tile_prefix = tile_exclusive_prefix(status, my, single_tile, tile_total, initial, op);
    acc_t warps_before = shfl_up(warps_inclusive, 1);
    if (lane == 0) warps_before = acc_t::zero();
    if (lane < warps) warp_sums[lane] = tile_prefix + warps_before;
  }
  __syncthreads();

  // Phase 3: walk the run, rounding the running sum in place.
  const acc_t run_prefix = warp_sums[warp] + lanes_before;
  if constexpr (float_fast_path<F>) {
    walk_float_run<items, Exclusive>(tile + run_begin, run_prefix);
  } else {
    walk_run_exactly<items, Exclusive>(tile + run_begin, run_prefix);
  }
  __syncthreads();

  // Phase 4: store the tile, coalesced.
  F* const out = d_out + tile_begin;
  if (tile_length == tile_size && launch.vector_stores) {
    constexpr std::uint32_t vectors = tile_size * sizeof(F) / 16;
    for (std::uint32_t k = threadIdx.x; k < vectors; k += threads)
      __stcs(reinterpret_cast<uint4*>(out) + k, reinterpret_cast<const uint4*>(tile)[k]);
  } else {
    for (std::uint32_t k = threadIdx.x; k < tile_length; k += threads) out[k] = tile[k];
  }
}

}  // namespace scankit::detail
